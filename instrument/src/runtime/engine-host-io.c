/*
 * How the engine moves data between host and device: host streams
 * (circular buffers or callbacks, connected per replica or shared),
 * remote buffers, PrintTensor's output, and the host read/write handles
 * and whole-remote-buffer calls of the public API.
 */
#include "engine-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a stream's data comes from or goes to. Several replicas may share
 * one connection (tsi_engine_connect_stream without a replica); it is
 * freed when the last of them lets go. */
struct stream_conn {
	unsigned refs;
	unsigned char *begin; /* circular host buffer [begin, end), or NULL */
	size_t size;          /* end - begin, bytes */
	size_t cursor;        /* next byte to use, 0 .. size-1 */
	tsi_stream_cb cb;     /* or a callback */
	void *user_data;
	unsigned char *stage; /* one transfer's bytes (malloc) */
	uint64_t seq;         /* copy number `stage` was filled for (h2d) */
};

/* --- Streams ------------------------------------------------------------------ */

/* Drops one replica slot's reference to a stream connection. */
void tsi_engine_conn_unref(stream_conn *c)
{
	if (c && --c->refs == 0) {
		free(c->stage);
		free(c);
	}
}

/* Bytes one copy of `s` moves. */
static size_t stream_bytes(const tsi_stream *s)
{
	return s->numel * tsi_type_size(s->type);
}

/* Reads one transfer from a circular host buffer into `dst`, wrapping at
 * the end (byte-wise), and advances the cursor. */
static void circular_read(stream_conn *c, unsigned char *dst, size_t bytes)
{
	size_t first = c->size - c->cursor;

	if (first > bytes)
		first = bytes;
	memcpy(dst, c->begin + c->cursor, first);
	memcpy(dst + first, c->begin, bytes - first);
	c->cursor = (c->cursor + bytes) % c->size;
}

/* Writes one transfer into a circular host buffer; see circular_read. */
static void circular_write(stream_conn *c, const unsigned char *src, size_t bytes)
{
	size_t first = c->size - c->cursor;

	if (first > bytes)
		first = bytes;
	memcpy(c->begin + c->cursor, src, first);
	memcpy(c->begin, src + first, bytes - first);
	c->cursor = (c->cursor + bytes) % c->size;
}

/* The connection replica r of stream `s` uses for this copy: replica 0's
 * for a BROADCAST host-to-device stream, its own otherwise. */
static stream_conn *stream_conn_for(const tsi_engine *e, const tsi_stream *s, unsigned r)
{
	if (s->to_device && s->mode == TSI_REPLICATED_STREAM_BROADCAST)
		r = 0;
	return e->conns[(size_t)s->id * e->replicas + r];
}

/*
 * Runs one stream copy on the replicas of `m`. Host-to-device: each
 * distinct connection is read once per copy and its data goes to every
 * replica that uses it — one transfer for a BROADCAST stream, and for a
 * PER_REPLICA stream connected with tsi_engine_connect_stream (shared by
 * all replicas) every replica gets the same data, as engine.h promises.
 * Device-to-host: every replica transfers in replica order, so replicas
 * sharing one buffer fill it one after the other (no replica's data is
 * lost) and a shared callback is called once per replica.
 */
int tsi_engine_run_stream_copy(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_stream *s = p->stream;
	size_t bytes = stream_bytes(s);

	if (s->id >= e->n_streams)
		return tsi_engine_fail(e, TSI_ERR_INVALID_GRAPH,
		                       "stream '%s' was created after the engine was compiled", s->name);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r) || stream_conn_for(e, s, r))
			continue;
		if (e->replicas > 1 && !(s->to_device && s->mode == TSI_REPLICATED_STREAM_BROADCAST))
			return tsi_engine_fail(e, TSI_ERR_STREAM_NOT_CONNECTED,
			                       "stream '%s' is not connected for replica %u: call "
			                       "tsi_engine_connect_stream or tsi_engine_connect_stream_cb "
			                       "before running",
			                       s->name, r);
		return tsi_engine_fail(e, TSI_ERR_STREAM_NOT_CONNECTED,
		                       "stream '%s' is not connected: call tsi_engine_connect_stream or "
		                       "tsi_engine_connect_stream_cb before running",
		                       s->name);
	}
	e->copy_seq++;
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		stream_conn *c = stream_conn_for(e, s, r);
		if (s->to_device) {
			if (c->seq != e->copy_seq) {
				if (c->cb) {
					TSI_TRACE_BEGINF("Stream callback %s", s->name);
					c->cb(c->stage, bytes, c->user_data);
					TSI_TRACE_END();
				} else {
					circular_read(c, c->stage, bytes);
				}
				c->seq = e->copy_seq;
			}
			tsi_engine_tensor_scatter(e, p->dst, r, c->stage);
		} else {
			tsi_engine_tensor_gather(e, p->src, r, c->stage);
			if (c->cb) {
				TSI_TRACE_BEGINF("Stream callback %s", s->name);
				c->cb(c->stage, bytes, c->user_data);
				TSI_TRACE_END();
			} else {
				circular_write(c, c->stage, bytes);
			}
		}
	}
	return TSI_OK;
}

/* Finds a stream by name for a connect call, failing with a message. */
static int find_stream_for_connect(tsi_engine *e, const char *name, tsi_stream **out)
{
	tsi_stream *s = tsi_graph_find_stream(e->graph, name);

	if (!s)
		return tsi_engine_fail(e, TSI_ERR_UNKNOWN_HANDLE, "no stream named '%s' in the graph",
		                       name ? name : "(null)");
	if (s->id >= e->n_streams)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "stream '%s' was created after the engine was compiled", name);
	*out = s;
	return TSI_OK;
}

/*
 * Attaches a new connection to replica `replica` of stream `s`, or to all
 * replicas (sharing it) when `all` is set. Takes ownership of `c`.
 */
static int install_conn(tsi_engine *e, const tsi_stream *s, bool all, unsigned replica,
                        stream_conn *c)
{
	size_t base = (size_t)s->id * e->replicas;

	c->stage = malloc(stream_bytes(s));
	if (!c->stage) {
		free(c);
		return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory connecting stream '%s'",
		                       s->name);
	}
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!all && r != replica)
			continue;
		tsi_engine_conn_unref(e->conns[base + r]);
		e->conns[base + r] = c;
		c->refs++;
	}
	return TSI_OK;
}

/* The stream a connect call names, checking the replica it asks for. */
static int connect_target(tsi_engine *e, const char *name, bool all, unsigned replica,
                          tsi_stream **out)
{
	int rc = find_stream_for_connect(e, name, out);

	if (rc)
		return rc;
	if (!all && replica >= e->replicas)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "replica %u of stream '%s' does not exist: the graph has %u "
		                       "replica%s",
		                       replica, name, e->replicas, e->replicas == 1 ? "" : "s");
	return TSI_OK;
}

/* Shared body of the two buffer-connecting calls. */
static int connect_buffer(tsi_engine *e, const char *name, bool all, unsigned replica,
                          void *begin, void *end)
{
	tsi_stream *s = NULL;
	stream_conn *c;
	int rc;

	rc = connect_target(e, name, all, replica, &s);
	if (rc)
		return rc;
	if (!begin || !end || (unsigned char *)end < (unsigned char *)begin)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "stream '%s': the host buffer [begin, end) is not a valid range",
		                       name);
	size_t size = (size_t)((unsigned char *)end - (unsigned char *)begin);
	if (size < stream_bytes(s))
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "stream '%s': a host buffer of %zu bytes is smaller than one "
		                       "transfer (%zu elements of %s = %zu bytes)",
		                       name, size, s->numel, tsi_type_name(s->type), stream_bytes(s));
	c = calloc(1, sizeof(*c));
	if (!c)
		return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory connecting stream '%s'",
		                       name);
	c->begin = begin;
	c->size = size;
	return install_conn(e, s, all, replica, c);
}

/* Shared body of the two callback-connecting calls. */
static int connect_cb(tsi_engine *e, const char *name, bool all, unsigned replica,
                      tsi_stream_cb cb, void *user_data)
{
	tsi_stream *s = NULL;
	stream_conn *c;
	int rc;

	rc = connect_target(e, name, all, replica, &s);
	if (rc)
		return rc;
	if (!cb)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "stream '%s': the callback is NULL",
		                       name);
	c = calloc(1, sizeof(*c));
	if (!c)
		return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory connecting stream '%s'",
		                       name);
	c->cb = cb;
	c->user_data = user_data;
	return install_conn(e, s, all, replica, c);
}

/*
 * Connects every replica to one circular buffer. Replicas share its
 * cursor: see tsi_engine_run_stream_copy for what that means in each direction.
 */
TSI_API int tsi_engine_connect_stream(tsi_engine *engine, const char *name, void *begin,
                                      void *end)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_connect_stream: engine is NULL");
	return connect_buffer(engine, name, true, 0, begin, end);
}

/* Connects one replica to its own circular buffer. */
TSI_API int tsi_engine_connect_stream_replica(tsi_engine *engine, const char *name,
                                              unsigned replica, void *begin, void *end)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_connect_stream_replica: engine is NULL");
	return connect_buffer(engine, name, false, replica, begin, end);
}

/* Connects every replica to one callback (called once per transfer; see
 * tsi_engine_run_stream_copy for shared connections). */
TSI_API int tsi_engine_connect_stream_cb(tsi_engine *engine, const char *name, tsi_stream_cb cb,
                                         void *user_data)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_connect_stream_cb: engine is NULL");
	return connect_cb(engine, name, true, 0, cb, user_data);
}

/* Connects one replica to its own callback. */
TSI_API int tsi_engine_connect_stream_cb_replica(tsi_engine *engine, const char *name,
                                                 unsigned replica, tsi_stream_cb cb,
                                                 void *user_data)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_connect_stream_cb_replica: engine is NULL");
	return connect_cb(engine, name, false, replica, cb, user_data);
}

/* --- Remote buffers ----------------------------------------------------------- */

/* Bytes of one replica's whole remote buffer. */
static size_t remote_bytes(const tsi_remote_buffer *rb)
{
	return rb->repeats * rb->numel * tsi_type_size(rb->type);
}

/* Start of replica r's rows of remote buffer `rb`. */
static unsigned char *remote_base(const tsi_engine *e, const tsi_remote_buffer *rb, unsigned r)
{
	return e->remote[rb->id] + (size_t)r * remote_bytes(rb);
}

/* Runs a remote-buffer copy (either direction) on the replicas of `m`. */
int tsi_engine_run_remote_copy(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_remote_buffer *rb = p->remote;
	size_t row_bytes = rb->numel * tsi_type_size(rb->type);

	if (rb->id >= e->n_remote)
		return tsi_engine_fail(e, TSI_ERR_INVALID_GRAPH,
		                       "remote buffer '%s' was created after the engine was compiled",
		                       rb->name);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		double row = p->pred ? tsi_engine_scalar_value(e, p->pred, r) : 0.0;
		if (row < 0 || row >= (double)rb->repeats)
			return tsi_engine_fail(e, TSI_ERR_OUT_OF_RANGE,
			                       "remote buffer '%s': row %lld is out of range (the buffer has "
			                       "%zu rows)",
			                       rb->name, (long long)row, rb->repeats);
		unsigned char *at = remote_base(e, rb, r) + (size_t)row * row_bytes;
		if (p->kind == TSI_PROG_REMOTE_TO_TENSOR)
			tsi_engine_tensor_scatter(e, p->dst, r, at);
		else
			tsi_engine_tensor_gather(e, p->src, r, at);
	}
	return TSI_OK;
}

/* --- PrintTensor ----------------------------------------------------------------- */

/* Writes element i as a C++ ostream would with default settings. */
static void print_element(FILE *f, tsi_type type, const void *buf, size_t i)
{
	double v = tsi_type_load(type, buf, i);

	if (type == TSI_FLOAT || type == TSI_HALF)
		fprintf(f, "%g", v);
	else
		fprintf(f, "%lld", (long long)v);
}

/* Writes dimension `dim` onwards of a tensor whose elements are `buf`,
 * starting at element *index, nested braces indented one space a level. */
static void print_dims(FILE *f, const tsi_tensor *t, const void *buf, size_t dim, size_t *index,
                       size_t indent)
{
	if (dim + 1 == t->rank) {
		fputc('{', f);
		for (size_t i = 0; i < t->shape[dim]; i++) {
			if (i)
				fputc(',', f);
			print_element(f, t->type, buf, (*index)++);
		}
		fputc('}', f);
		return;
	}
	fputs("{\n", f);
	for (size_t i = 0; i < t->shape[dim]; i++) {
		for (size_t s = 0; s <= indent; s++)
			fputc(' ', f);
		print_dims(f, t, buf, dim + 1, index, indent + 1);
		if (i + 1 < t->shape[dim])
			fputc(',', f);
		fputc('\n', f);
	}
	for (size_t s = 0; s < indent; s++)
		fputc(' ', f);
	fputc('}', f);
}

/* Runs a PrintTensor on the replicas of `m`, in Poplar's layout. */
int tsi_engine_run_print(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_tensor *t = p->src;
	FILE *f = e->print ? e->print : stdout;
	unsigned char *buf = tsi_engine_tmp_reserve(e, t->numel * tsi_type_size(t->type) + 1);

	if (!buf)
		return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory printing '%s'", p->title);
	for (unsigned r = 0; r < e->replicas; r++) {
		size_t index = 0;
		if (!mask_has(m, r))
			continue;
		tsi_engine_tensor_gather(e, t, r, buf);
		if (e->replicas > 1)
			fprintf(f, "%s (replica %u): ", p->title, r);
		else
			fprintf(f, "%s: ", p->title);
		if (t->rank == 0)
			print_element(f, t->type, buf, 0);
		else
			print_dims(f, t, buf, 0, &index, 0);
		fputc('\n', f);
		fflush(f);
	}
	return TSI_OK;
}
/* --- Host handles ---------------------------------------------------------------- */

/* True when every element of `t` lives in a variable that has device memory
 * (handles created after compilation may point at newer variables). */
static bool tensor_has_memory(const tsi_engine *e, const tsi_tensor *t)
{
	for (size_t i = 0; i < t->n_regions; i++)
		if (t->regions[i].var >= e->n_vars)
			return false;
	return true;
}

/*
 * Finds host handle `name` for a read or write of `bytes` bytes on
 * `replica` (or all replicas when `all`), checking size, replica and load
 * state. On success *out is the handle's tensor.
 */
static int host_handle_check(tsi_engine *e, const char *name, bool is_write, bool all,
                             unsigned replica, const void *buf, size_t bytes,
                             const tsi_tensor **out)
{
	const char *what = is_write ? "write" : "read";
	tsi_host_handle *h = tsi_graph_find_host_handle(e->graph, name, is_write);
	size_t want;

	if (!h)
		return tsi_engine_fail(e, TSI_ERR_UNKNOWN_HANDLE,
		                       "no host %s handle named '%s' (create one with "
		                       "tsi_graph_create_host_%s)",
		                       what, name ? name : "(null)", what);
	want = h->tensor->numel * tsi_type_size(h->tensor->type);
	if (bytes != want)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "host %s handle '%s': %zu bytes given but the tensor (%zu x %s) "
		                       "holds %zu bytes",
		                       what, name, bytes, h->tensor->numel, tsi_type_name(h->tensor->type),
		                       want);
	if (!buf && bytes)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "host %s handle '%s': buffer is NULL",
		                       what, name);
	if (!all && replica >= e->replicas)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "host %s handle '%s': replica %u does not exist (the graph has %u "
		                       "replica%s)",
		                       what, name, replica, e->replicas, e->replicas == 1 ? "" : "s");
	if (!tensor_has_memory(e, h->tensor))
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "host %s handle '%s' refers to a variable created after the engine "
		                       "was compiled",
		                       what, name);
	*out = h->tensor;
	return tsi_engine_check_loaded(e, is_write ? "tsi_engine_write_tensor"
	                                           : "tsi_engine_read_tensor");
}

/* Writes `buf` to one replica or all of them. */
static int write_tensor(tsi_engine *e, const char *name, bool all, unsigned replica,
                        const void *buf, size_t bytes)
{
	const tsi_tensor *t = NULL;
	int rc = host_handle_check(e, name, true, all, replica, buf, bytes, &t);

	if (rc)
		return rc;
	if (e->dry)
		return TSI_OK; /* PRE_COMPILE: accepted and dropped */
	TSI_TRACE_BEGINF("Write tensor %s", name);
	for (unsigned r = 0; r < e->replicas; r++)
		if (all || r == replica)
			tsi_engine_tensor_scatter(e, t, r, buf);
	TSI_TRACE_END();
	return TSI_OK;
}

/* Reads one replica's tensor into `buf`. */
static int read_tensor(tsi_engine *e, const char *name, unsigned replica, void *buf,
                       size_t bytes)
{
	const tsi_tensor *t = NULL;
	int rc = host_handle_check(e, name, false, false, replica, buf, bytes, &t);

	if (rc)
		return rc;
	if (e->dry) {
		memset(buf, 0, bytes); /* PRE_COMPILE: the device returns zeros */
	} else {
		TSI_TRACE_BEGINF("Read tensor %s", name);
		tsi_engine_tensor_gather(e, t, replica, buf);
		TSI_TRACE_END();
	}
	return TSI_OK;
}

/* Writes a host write handle's tensor on every replica. */
TSI_API int tsi_engine_write_tensor(tsi_engine *engine, const char *handle, const void *buf,
                                    size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_write_tensor: engine is NULL");
	return write_tensor(engine, handle, true, 0, buf, bytes);
}

/* Reads a host read handle's tensor from replica 0. */
TSI_API int tsi_engine_read_tensor(tsi_engine *engine, const char *handle, void *buf,
                                   size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_read_tensor: engine is NULL");
	return read_tensor(engine, handle, 0, buf, bytes);
}

/* Writes a host write handle's tensor on one replica only. */
TSI_API int tsi_engine_write_tensor_replica(tsi_engine *engine, const char *handle,
                                            unsigned replica, const void *buf, size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_write_tensor_replica: engine is NULL");
	return write_tensor(engine, handle, false, replica, buf, bytes);
}

/* Reads a host read handle's tensor from one replica. */
TSI_API int tsi_engine_read_tensor_replica(tsi_engine *engine, const char *handle,
                                           unsigned replica, void *buf, size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_read_tensor_replica: engine is NULL");
	return read_tensor(engine, handle, replica, buf, bytes);
}

/* Checks a whole-remote-buffer host access (engine included) and finds
 * the buffer. */
static int remote_check(tsi_engine *e, const char *name, unsigned replica, const void *buf,
                        size_t bytes, bool is_write, const tsi_remote_buffer **out)
{
	const char *call = is_write ? "tsi_engine_write_remote" : "tsi_engine_read_remote";
	const tsi_remote_buffer *rb;

	if (!e)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: engine is NULL", call);
	rb = tsi_graph_find_remote_buffer(e->graph, name);
	if (!rb)
		return tsi_engine_fail(e, TSI_ERR_UNKNOWN_HANDLE, "%s: no remote buffer named '%s'", call,
		                       name ? name : "(null)");
	if (rb->id >= e->n_remote)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "%s: remote buffer '%s' was created after the engine was compiled",
		                       call, name);
	if (bytes != remote_bytes(rb))
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "%s: %zu bytes given but remote buffer '%s' (%zu rows x %zu x %s) "
		                       "holds %zu bytes",
		                       call, bytes, name, rb->repeats, rb->numel, tsi_type_name(rb->type),
		                       remote_bytes(rb));
	if (!buf)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "%s: buffer is NULL", call);
	if (replica >= e->replicas)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "%s: replica %u does not exist (the graph has %u replica%s)", call,
		                       replica, e->replicas, e->replicas == 1 ? "" : "s");
	*out = rb;
	return tsi_engine_check_loaded(e, call);
}

/* Replaces one replica's whole remote buffer (every row) from the host.
 * Accepted and dropped on a PRE_COMPILE device. */
TSI_API int tsi_engine_write_remote(tsi_engine *engine, const char *name, unsigned replica,
                                    const void *buf, size_t bytes)
{
	const tsi_remote_buffer *rb = NULL;
	int rc;

	rc = remote_check(engine, name, replica, buf, bytes, true, &rb);
	if (rc)
		return rc;
	if (!engine->dry)
		memcpy(remote_base(engine, rb, replica), buf, bytes);
	return TSI_OK;
}

/* Reads one replica's whole remote buffer (zeros on a PRE_COMPILE device). */
TSI_API int tsi_engine_read_remote(tsi_engine *engine, const char *name, unsigned replica,
                                   void *buf, size_t bytes)
{
	const tsi_remote_buffer *rb = NULL;
	int rc;

	rc = remote_check(engine, name, replica, buf, bytes, false, &rb);
	if (rc)
		return rc;
	if (engine->dry)
		memset(buf, 0, bytes);
	else
		memcpy(buf, remote_base(engine, rb, replica), bytes);
	return TSI_OK;
}
