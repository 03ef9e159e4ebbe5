/*
 * The two emitters of the value tree: JSON text and CBOR (RFC 8949,
 * through libcbor's streaming encoders rather than cbor_item_t trees,
 * which would cost a heap item per number), into a buffer that grows by
 * doubling or to a stream through a 256 KiB buffer.
 *
 * Exactness. Integers never pass through a double: JSON gets their
 * decimal digits, CBOR an unsigned or negative integer of the smallest
 * width. Doubles (balances) are written with 17 significant digits, so
 * they read back bit for bit; a non-finite double becomes null in both
 * formats, as JSON has no way to write it.
 *
 * Strings come from users (names of variables, compute sets ...). Both
 * formats require UTF-8, so every byte that does not start a well-formed
 * UTF-8 sequence is written as U+FFFD by both emitters alike.
 */
#include <tilescope/alloc.h>
#include "serialise-private.h"

#include <tilescope/json-writer.h>
#include <tilescope/utf8.h>

#include <cbor.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- Reading numbers and strings for the emitters --------------------------- */

/* A number as sign and magnitude, the form both emitters write. */
typedef struct sv_num {
	bool neg;
	uint64_t mag; /* |value|; for a negative value at least 1 */
} sv_num;

/* Sign and magnitude of v (INT64_MIN included, without overflow). */
static sv_num num_signed(int64_t v)
{
	sv_num r;

	r.neg = v < 0;
	r.mag = r.neg ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
	return r;
}

/* Element i of an SV_NUMS node. */
static sv_num nums_at(const sv_node *n, size_t i)
{
	const unsigned char *p = (const unsigned char *)n->nums.base + i * n->nums.stride;
	sv_num r = {false, 0};

	switch (n->nums.type) {
	case SV_U32: {
		uint32_t v;
		memcpy(&v, p, sizeof(v));
		r.mag = v;
		break;
	}
	case SV_I32: {
		int32_t v;
		memcpy(&v, p, sizeof(v));
		r = num_signed(v);
		break;
	}
	case SV_U64: {
		uint64_t v;
		memcpy(&v, p, sizeof(v));
		r.mag = v;
		break;
	}
	case SV_SIZE: {
		size_t v;
		memcpy(&v, p, sizeof(v));
		r.mag = v;
		break;
	}
	}
	return r;
}

/* Element i of an SV_DENSE node, walking its pairs in order with *k. */
static uint64_t dense_at(const sv_node *n, size_t i, size_t *k)
{
	if (*k < n->dense.n && n->dense.index[*k] == i)
		return n->dense.value[(*k)++];
	return 0;
}

/* Length of the well-formed UTF-8 sequence at s[0..n) (1 to 4), or 0
 * when s[0] does not start one: base's decoder (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), which the JSON writer uses too,
 * so both emitters replace the same bytes. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	return tsb_utf8_decode(s, n, NULL);
}

static const unsigned char replacement_char[3] = {0xEF, 0xBF, 0xBD}; /* U+FFFD */

/* --- Output buffer ----------------------------------------------------------- */

typedef struct sv_out {
	unsigned char *p;
	size_t len, cap;
	sv_msg msg;
	FILE *sink;        /* NULL: the whole document in p; else written out as it grows */
	int sink_errno;    /* the errno of a failed write to sink, 0 when none */
} sv_out;

/* What a sink's buffer holds at most before it is written out. */
#define SV_SINK_CHUNK ((size_t)256 << 10)

/* After the walk: every pair used means the indexes were strictly
 * ascending and below len, as tsi_tile_values promises. */
static int dense_check(const sv_out *o, const sv_node *n, size_t k)
{
	if (k == n->dense.n)
		return 0;
	return sv_error(&o->msg, TSF_ERR_INVALID,
	                "profile: tile values are not ascending or reach past %zu entries "
	                "(index %u)",
	                n->dense.len, n->dense.index[k]);
}


/* Makes room for `extra` more bytes (doubling, so appends are amortised
 * constant time). False when the host is out of memory. */
static bool out_reserve(sv_out *o, size_t extra)
{
	size_t cap = o->cap ? o->cap : 4096;
	unsigned char *p;

	/* Streaming: what is written so far goes out before the buffer would
	 * grow past a chunk, so memory stays a chunk whatever the output's
	 * size. Callers write at o->p + o->len after this returns, so the
	 * flush is invisible to them. */
	if (o->sink && o->len && o->len + extra > SV_SINK_CHUNK) {
		if (fwrite(o->p, 1, o->len, o->sink) != o->len) {
			o->sink_errno = errno ? errno : EIO;
			return false;
		}
		o->len = 0;
	}
	if (o->cap - o->len >= extra)
		return true;
	if (extra > SIZE_MAX - o->len)
		return false;
	while (cap - o->len < extra) {
		if (cap > SIZE_MAX / 2)
			return false;
		cap *= 2;
	}
	p = tsb_realloc(o->p, cap);
	if (!p)
		return false;
	o->p = p;
	o->cap = cap;
	return true;
}

/* Appends n bytes; false when the host is out of memory. */
static bool out_put(sv_out *o, const void *bytes, size_t n)
{
	if (!out_reserve(o, n))
		return false;
	memcpy(o->p + o->len, bytes, n);
	o->len += n;
	return true;
}

/* The emitters' one failure besides bad tile lists: out of memory, or
 * a write to the sink that failed. */
static int out_no_memory(const sv_out *o)
{
	if (o->sink_errno)
		return sv_error(&o->msg, TSF_ERR_IO, "write failed: %s", strerror(o->sink_errno));
	return sv_error(&o->msg, TSF_ERR_NO_MEMORY, "out of host memory writing a serialised profile");
}

/* --- JSON emitter --------------------------------------------------------------- */

/*
 * Through base's JSON writer (tilescope/json-writer.h), compact, with
 * this document's spelling of strings since its first release: \n and \t
 * as such, other controls as \u00XX, a byte that is not UTF-8 as a raw
 * U+FFFD. The writer hands its output to the emitter's own buffer, so
 * streaming to a sink works as for CBOR.
 */

/* The writer's sink: appends to the emitter's output. */
static int json_sink(void *user_data, const char *bytes, size_t n)
{
	return out_put(user_data, bytes, n) ? 0 : -1;
}

/* A number given as sign and magnitude; every negative one came from an
 * int64_t, so it fits one again. */
static void json_num(tsb_json *j, sv_num v)
{
	if (v.neg)
		tsb_json_i64(j, -(int64_t)(v.mag - 1) - 1);
	else
		tsb_json_u64(j, v.mag);
}

/* Writes node `n` (and what it holds). Returns a bad tile list's failure;
 * the writer's own (out of memory, the sink) stay in the writer. */
static int json_node(tsb_json *j, sv_out *o, const sv_node *n)
{
	size_t k = 0;
	int rc;

	switch (n->kind) {
	case SV_NULL:
		tsb_json_null(j);
		break;
	case SV_BOOL:
		tsb_json_bool(j, n->b);
		break;
	case SV_UINT:
		tsb_json_u64(j, n->u);
		break;
	case SV_INT:
		tsb_json_i64(j, n->i);
		break;
	case SV_DOUBLE:
		tsb_json_double(j, n->d);
		break;
	case SV_STRING:
		tsb_json_string_len(j, n->str.p, n->str.len);
		break;
	case SV_ARRAY:
	case SV_MAP:
		if (n->kind == SV_MAP)
			tsb_json_begin_object(j);
		else
			tsb_json_begin_array(j);
		for (const sv_node *c = n->list.first; c && !tsb_json_error(j); c = c->next) {
			if (n->kind == SV_MAP)
				tsb_json_key(j, c->key);
			rc = json_node(j, o, c);
			if (rc)
				return rc;
		}
		if (n->kind == SV_MAP)
			tsb_json_end_object(j);
		else
			tsb_json_end_array(j);
		break;
	case SV_NUMS:
		tsb_json_begin_array(j);
		for (size_t i = 0; i < n->nums.n; i++)
			json_num(j, nums_at(n, i));
		tsb_json_end_array(j);
		break;
	case SV_DENSE:
		tsb_json_begin_array(j);
		for (size_t i = 0; i < n->dense.len; i++)
			tsb_json_u64(j, dense_at(n, i, &k));
		rc = dense_check(o, n, k);
		if (rc)
			return rc;
		tsb_json_end_array(j);
		break;
	}
	return 0;
}

/* Writes the tree under `root` as compact JSON into `o`. */
static int json_value(sv_out *o, const sv_node *root)
{
	tsb_json *j = tsb_json_new_sink(json_sink, o, TSB_JSON_SHORT_NEWLINE_TAB);
	int rc;

	if (!j)
		return out_no_memory(o);
	rc = json_node(j, o, root);
	if (!rc && tsb_json_finish(j) != TSB_JSON_OK)
		rc = out_no_memory(o); /* the writer failed only for memory or the sink */
	tsb_json_free(j);
	return rc;
}

/* --- CBOR emitter --------------------------------------------------------------- */

/* The longest head libcbor writes: a type byte and an 8-byte argument. */
#define CBOR_HEAD_MAX 9

/* Appends what one of libcbor's encoders writes for `arg`; the encoders
 * return 0 when the space is too small, which the reservation rules out. */
#define CBOR_PUT(o, encoder, arg)                                                          \
	(out_reserve((o), CBOR_HEAD_MAX) &&                                                     \
	 ((o)->len += encoder((arg), (o)->p + (o)->len, (o)->cap - (o)->len), true))

/* An integer as CBOR major type 0 or 1 (-1 - n), smallest width. */
static bool cbor_num(sv_out *o, sv_num v)
{
	return v.neg ? CBOR_PUT(o, cbor_encode_negint, v.mag - 1) : CBOR_PUT(o, cbor_encode_uint, v.mag);
}

/* A text string with the same U+FFFD replacement as json_string. */
static bool cbor_text(sv_out *o, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t out_len = 0;

	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(s + i, len - i);

		out_len += k ? k : sizeof(replacement_char);
		i += k ? k : 1;
	}
	if (!CBOR_PUT(o, cbor_encode_string_start, out_len) || !out_reserve(o, out_len))
		return false;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(s + i, len - i);

		if (k) {
			memcpy(o->p + o->len, s + i, k);
			o->len += k;
			i += k;
		} else {
			memcpy(o->p + o->len, replacement_char, sizeof(replacement_char));
			o->len += sizeof(replacement_char);
			i++;
		}
	}
	return true;
}

/* Writes node `n` (and what it holds) as CBOR with definite lengths. */
static int cbor_value(sv_out *o, const sv_node *n)
{
	int rc = 0;
	size_t k = 0;

	switch (n->kind) {
	case SV_NULL:
		if (!out_reserve(o, 1))
			goto nomem;
		o->len += cbor_encode_null(o->p + o->len, o->cap - o->len);
		break;
	case SV_BOOL:
		if (!CBOR_PUT(o, cbor_encode_bool, n->b))
			goto nomem;
		break;
	case SV_UINT:
		if (!cbor_num(o, (sv_num){false, n->u}))
			goto nomem;
		break;
	case SV_INT:
		if (!cbor_num(o, num_signed(n->i)))
			goto nomem;
		break;
	case SV_DOUBLE:
		if (!CBOR_PUT(o, cbor_encode_double, n->d))
			goto nomem;
		break;
	case SV_STRING:
		if (!cbor_text(o, n->str.p, n->str.len))
			goto nomem;
		break;
	case SV_ARRAY:
	case SV_MAP:
		if (!(n->kind == SV_MAP ? CBOR_PUT(o, cbor_encode_map_start, n->list.n)
		                        : CBOR_PUT(o, cbor_encode_array_start, n->list.n)))
			goto nomem;
		for (const sv_node *c = n->list.first; c; c = c->next) {
			if (n->kind == SV_MAP && !cbor_text(o, c->key, strlen(c->key)))
				goto nomem;
			rc = cbor_value(o, c);
			if (rc)
				goto out;
		}
		break;
	case SV_NUMS:
		if (!CBOR_PUT(o, cbor_encode_array_start, n->nums.n))
			goto nomem;
		for (size_t i = 0; i < n->nums.n; i++)
			if (!cbor_num(o, nums_at(n, i)))
				goto nomem;
		break;
	case SV_DENSE:
		if (!CBOR_PUT(o, cbor_encode_array_start, n->dense.len))
			goto nomem;
		for (size_t i = 0; i < n->dense.len; i++)
			if (!CBOR_PUT(o, cbor_encode_uint, dense_at(n, i, &k)))
				goto nomem;
		rc = dense_check(o, n, k);
		break;
	}
out:
	return rc;
nomem:
	return out_no_memory(o);
}

/*
 * Writes the tree rooted at `root` in `format` to `sink` as it goes (a
 * buffer of SV_SINK_CHUNK at most in memory), then flushes it.
 */
int sv_emit_to(FILE *sink, const sv_node *root, tsf_doc_format format, sv_msg msg)
{
	sv_out o = {NULL, 0, 0, msg, sink, 0};
	int rc = format == TSF_DOC_JSON ? json_value(&o, root) : cbor_value(&o, root);

	if (!rc && o.len && fwrite(o.p, 1, o.len, sink) != o.len)
		o.sink_errno = errno ? errno : EIO;
	if (!rc && !o.sink_errno && fflush(sink) != 0)
		o.sink_errno = errno ? errno : EIO;
	if (!rc && o.sink_errno)
		rc = out_no_memory(&o);
	free(o.p);
	return rc;
}

/*
 * Writes the tree rooted at `root` in `format` into a malloc'd buffer
 * (*out, *out_len; JSON also NUL-terminated, the NUL not counted).
 */
int sv_emit(void **out, size_t *out_len, const sv_node *root, tsf_doc_format format,
                   sv_msg msg)
{
	sv_out o = {NULL, 0, 0, msg, NULL, 0};
	unsigned char *shrunk;
	int rc;

	rc = format == TSF_DOC_JSON ? json_value(&o, root) : cbor_value(&o, root);
	if (rc)
		goto out;
	if (format == TSF_DOC_JSON) {
		if (!out_reserve(&o, 1)) {
			rc = out_no_memory(&o);
			goto out;
		}
		o.p[o.len] = '\0';
	}
	shrunk = tsb_realloc(o.p, o.len + 1); /* give back the doubling's slack */
	if (shrunk)
		o.p = shrunk;
	*out = o.p;
	*out_len = o.len;
	o.p = NULL;
out:
	free(o.p);
	return rc;
}
