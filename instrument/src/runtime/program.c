/*
 * Program constructors. Each checks what can be checked on its own (types
 * and sizes of copies, scalar predicates, stream directions) and records a
 * building error naming the tensors otherwise. The engine interprets the
 * resulting tree; compiler/graph-checks.c walks it.
 */
#include "../ipu-private.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TSI_PROG_KIND_COUNT] = {
	[TSI_PROG_SEQUENCE] = "Sequence",
	[TSI_PROG_EXECUTE] = "Execute",
	[TSI_PROG_REPEAT] = "Repeat",
	[TSI_PROG_REPEAT_WHILE_TRUE] = "RepeatWhileTrue",
	[TSI_PROG_REPEAT_WHILE_FALSE] = "RepeatWhileFalse",
	[TSI_PROG_IF] = "If",
	[TSI_PROG_SWITCH] = "Switch",
	[TSI_PROG_COPY] = "Copy",
	[TSI_PROG_STREAM_TO_TENSOR] = "StreamCopy",
	[TSI_PROG_TENSOR_TO_STREAM] = "StreamCopy",
	[TSI_PROG_REMOTE_TO_TENSOR] = "RemoteBufferCopy",
	[TSI_PROG_TENSOR_TO_REMOTE] = "RemoteBufferCopy",
	[TSI_PROG_CALL] = "Call",
	[TSI_PROG_SYNC] = "Sync",
	[TSI_PROG_WRITE_UNDEF] = "WriteUndef",
	[TSI_PROG_PRINT_TENSOR] = "PrintTensor",
	[TSI_PROG_COLLECTIVE] = "Collective",
};

TSI_API const char *tsi_program_kind_name(tsi_program_kind kind)
{
	return (unsigned)kind < TSI_PROG_KIND_COUNT ? kind_names[kind] : "Unknown";
}

/* Allocates a program node of `kind` owned by the graph. The tensors a
 * program holds are stored as tsi_tensor_keep() of what it was given: a
 * scratch view would be freed under it (NULL when keeping ran out of
 * memory, which the graph records, so the program never compiles). */
static tsi_program *new_prog(tsi_graph *graph, tsi_program_kind kind)
{
	tsi_program *p = tsi_arena_alloc(&graph->core->arena, sizeof(*p));

	if (!p || tsi_vec_push(&graph->core->programs, p)) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding a %s program",
		               kind_names[kind]);
		return NULL;
	}
	p->id = (uint32_t)graph->core->programs.len - 1;
	p->kind = kind;
	p->graph = graph;
	p->debug_id = tsi_debug_current(graph);
	return p;
}

/* Checks that a tensor given to a program belongs to the graph. */
static bool tensor_ok(tsi_graph *graph, const tsi_tensor *t, const char *what)
{
	if (!t)
		return false;
	if (t->graph->core != graph->core) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s: tensor %s belongs to another graph",
		               what, tsi_tensor_describe(t));
		return false;
	}
	return true;
}

/* Checks that `t` is a one-element tensor usable as a condition. */
static bool scalar_ok(tsi_graph *graph, const tsi_tensor *t, const char *what, bool integer)
{
	if (!tensor_ok(graph, t, what))
		return false;
	if (t->numel != 1) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s needs a scalar tensor, but %s has %zu elements", what,
		               tsi_tensor_describe(t), t->numel);
		return false;
	}
	if (integer && (t->type == TSI_FLOAT || t->type == TSI_HALF)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s needs an integer tensor, not %s (%s)",
		               what, tsi_tensor_describe(t), tsi_type_name(t->type));
		return false;
	}
	return true;
}

/* Checks that a copy moves like for like. */
static bool same_layout(tsi_graph *graph, tsi_type src_type, size_t src_n, const char *src_what,
                        tsi_type dst_type, size_t dst_n, const char *dst_what)
{
	if (src_type != dst_type || src_n != dst_n) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "cannot copy %s (%zu x %s) to %s (%zu x %s): copies need the same type "
		               "and number of elements",
		               src_what, src_n, tsi_type_name(src_type), dst_what, dst_n,
		               tsi_type_name(dst_type));
		return false;
	}
	return true;
}

/* Rejects writes into constants. */
static bool writable(tsi_graph *graph, const tsi_tensor *t, const char *what)
{
	if (tsi_tensor_is_constant(t)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s: destination %s is a constant", what,
		               tsi_tensor_describe(t));
		return false;
	}
	return true;
}

TSI_API tsi_program *tsi_prog_sequence(tsi_graph *graph, const char *name)
{
	tsi_program *p;

	if (!graph)
		return NULL;
	p = new_prog(graph, TSI_PROG_SEQUENCE);
	if (p && name)
		tsi_program_set_name(p, name);
	return p;
}

TSI_API int tsi_sequence_add(tsi_program *seq, tsi_program *step)
{
	if (!seq)
		return TSI_ERR_INVALID_ARGUMENT;
	if (!step)
		return TSI_ERR_INVALID_GRAPH;
	if (seq->kind != TSI_PROG_SEQUENCE)
		return tsi_graph_fail(seq->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "tsi_sequence_add: program %u is a %s, not a Sequence", seq->id,
		                      kind_names[seq->kind]);
	if (step->graph->core != seq->graph->core)
		return tsi_graph_fail(seq->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "tsi_sequence_add: the step belongs to another graph");
	if (tsi_vec_push(&seq->steps, step))
		return tsi_graph_fail(seq->graph, TSI_ERR_NO_MEMORY, "out of host memory");
	return TSI_OK;
}

TSI_API tsi_program *tsi_prog_execute(tsi_graph *graph, tsi_compute_set *cs)
{
	tsi_program *p;

	if (!graph || !cs)
		return NULL;
	p = new_prog(graph, TSI_PROG_EXECUTE);
	if (p)
		p->cs = cs;
	/* A compute set made outside any debug context belongs to the one
	 * its first execution is built in. */
	if (p && !cs->debug_id)
		cs->debug_id = p->debug_id;
	return p;
}

TSI_API tsi_program *tsi_prog_repeat(tsi_graph *graph, uint64_t count, tsi_program *body)
{
	tsi_program *p;

	if (!graph || !body)
		return NULL;
	p = new_prog(graph, TSI_PROG_REPEAT);
	if (p) {
		p->count = count;
		p->body = body;
	}
	return p;
}

/* RepeatWhileTrue / RepeatWhileFalse share everything but the kind. */
static tsi_program *repeat_while(tsi_graph *graph, tsi_program_kind kind, tsi_program *cond,
                                 const tsi_tensor *predicate, tsi_program *body)
{
	tsi_program *p;

	if (!graph || !cond || !body || !scalar_ok(graph, predicate, kind_names[kind], false))
		return NULL;
	p = new_prog(graph, kind);
	if (p) {
		p->cond = cond;
		p->pred = tsi_tensor_keep(predicate);
		p->body = body;
	}
	return p;
}

TSI_API tsi_program *tsi_prog_repeat_while_true(tsi_graph *graph, tsi_program *cond,
                                                const tsi_tensor *predicate, tsi_program *body)
{
	return repeat_while(graph, TSI_PROG_REPEAT_WHILE_TRUE, cond, predicate, body);
}

TSI_API tsi_program *tsi_prog_repeat_while_false(tsi_graph *graph, tsi_program *cond,
                                                 const tsi_tensor *predicate, tsi_program *body)
{
	return repeat_while(graph, TSI_PROG_REPEAT_WHILE_FALSE, cond, predicate, body);
}

TSI_API tsi_program *tsi_prog_if(tsi_graph *graph, const tsi_tensor *predicate,
                                 tsi_program *then_body, tsi_program *else_body)
{
	tsi_program *p;

	if (!graph || !then_body || !scalar_ok(graph, predicate, "If", false))
		return NULL;
	p = new_prog(graph, TSI_PROG_IF);
	if (p) {
		p->pred = tsi_tensor_keep(predicate);
		p->body = then_body;
		p->else_body = else_body;
	}
	return p;
}

TSI_API tsi_program *tsi_prog_switch(tsi_graph *graph, const tsi_tensor *control,
                                     tsi_program *default_body)
{
	tsi_program *p;

	if (!graph || !scalar_ok(graph, control, "Switch", true))
		return NULL;
	p = new_prog(graph, TSI_PROG_SWITCH);
	if (p) {
		p->pred = tsi_tensor_keep(control);
		p->else_body = default_body;
	}
	return p;
}

TSI_API int tsi_switch_add_case(tsi_program *sw, int64_t value, tsi_program *body)
{
	int64_t *values;

	if (!sw)
		return TSI_ERR_INVALID_ARGUMENT;
	if (!body)
		return TSI_ERR_INVALID_GRAPH;
	if (sw->kind != TSI_PROG_SWITCH)
		return tsi_graph_fail(sw->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "tsi_switch_add_case: program %u is a %s, not a Switch", sw->id,
		                      kind_names[sw->kind]);
	for (size_t i = 0; i < sw->case_bodies.len; i++)
		if (sw->case_values[i] == value)
			return tsi_graph_fail(sw->graph, TSI_ERR_INVALID_ARGUMENT,
			                      "Switch program %u already has a case %lld", sw->id,
			                      (long long)value);
	values = realloc(sw->case_values, (sw->case_bodies.len + 1) * sizeof(*values));
	if (!values)
		return tsi_graph_fail(sw->graph, TSI_ERR_NO_MEMORY, "out of host memory");
	sw->case_values = values;
	values[sw->case_bodies.len] = value;
	if (tsi_vec_push(&sw->case_bodies, body))
		return tsi_graph_fail(sw->graph, TSI_ERR_NO_MEMORY, "out of host memory");
	return TSI_OK;
}

TSI_API tsi_program *tsi_prog_copy(tsi_graph *graph, const tsi_tensor *src, const tsi_tensor *dst)
{
	tsi_program *p;

	if (!graph || !tensor_ok(graph, src, "Copy") || !tensor_ok(graph, dst, "Copy") ||
	    !same_layout(graph, src->type, src->numel, tsi_tensor_describe(src), dst->type,
	                 dst->numel, tsi_tensor_describe(dst)) ||
	    !writable(graph, dst, "Copy"))
		return NULL;
	p = new_prog(graph, TSI_PROG_COPY);
	if (p) {
		p->src = tsi_tensor_keep(src);
		p->dst = tsi_tensor_keep(dst);
	}
	return p;
}

/* Checks a stream copy's direction and layout. */
static bool stream_ok(tsi_graph *graph, const tsi_stream *s, const tsi_tensor *t, bool to_device)
{
	if (!s || !tensor_ok(graph, t, "stream copy"))
		return false;
	if (s->to_device != to_device) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "stream '%s' is a %s stream; it cannot be copied %s the device", s->name,
		               s->to_device ? "host-to-device" : "device-to-host",
		               to_device ? "to" : "from");
		return false;
	}
	const char *what = tsi_arena_printf(&graph->core->arena, "stream '%s'", s->name);
	if (to_device)
		return same_layout(graph, s->type, s->numel, what, t->type, t->numel,
		                   tsi_tensor_describe(t)) &&
		       writable(graph, t, "stream copy");
	return same_layout(graph, t->type, t->numel, tsi_tensor_describe(t), s->type, s->numel, what);
}

TSI_API tsi_program *tsi_prog_copy_from_stream(tsi_graph *graph, tsi_stream *stream,
                                               const tsi_tensor *dst)
{
	tsi_program *p;

	if (!graph || !stream_ok(graph, stream, dst, true))
		return NULL;
	p = new_prog(graph, TSI_PROG_STREAM_TO_TENSOR);
	if (p) {
		p->stream = stream;
		p->dst = tsi_tensor_keep(dst);
	}
	return p;
}

TSI_API tsi_program *tsi_prog_copy_to_stream(tsi_graph *graph, const tsi_tensor *src,
                                             tsi_stream *stream)
{
	tsi_program *p;

	if (!graph || !stream_ok(graph, stream, src, false))
		return NULL;
	p = new_prog(graph, TSI_PROG_TENSOR_TO_STREAM);
	if (p) {
		p->stream = stream;
		p->src = tsi_tensor_keep(src);
	}
	return p;
}

/* Checks a remote-buffer copy's layout and row offset. */
static bool remote_ok(tsi_graph *graph, const tsi_remote_buffer *rb, const tsi_tensor *t,
                      const tsi_tensor *offset, bool to_tensor)
{
	if (!rb || !tensor_ok(graph, t, "remote buffer copy"))
		return false;
	if (offset && !scalar_ok(graph, offset, "remote buffer offset", true))
		return false;
	const char *what = tsi_arena_printf(&graph->core->arena, "remote buffer '%s' row", rb->name);
	if (to_tensor)
		return same_layout(graph, rb->type, rb->numel, what, t->type, t->numel,
		                   tsi_tensor_describe(t)) &&
		       writable(graph, t, "remote buffer copy");
	return same_layout(graph, t->type, t->numel, tsi_tensor_describe(t), rb->type, rb->numel, what);
}

TSI_API tsi_program *tsi_prog_copy_from_remote(tsi_graph *graph, tsi_remote_buffer *buffer,
                                               const tsi_tensor *dst, const tsi_tensor *offset)
{
	tsi_program *p;

	if (!graph || !remote_ok(graph, buffer, dst, offset, true))
		return NULL;
	p = new_prog(graph, TSI_PROG_REMOTE_TO_TENSOR);
	if (p) {
		p->remote = buffer;
		p->dst = tsi_tensor_keep(dst);
		p->pred = tsi_tensor_keep(offset);
	}
	return p;
}

TSI_API tsi_program *tsi_prog_copy_to_remote(tsi_graph *graph, const tsi_tensor *src,
                                             tsi_remote_buffer *buffer, const tsi_tensor *offset)
{
	tsi_program *p;

	if (!graph || !remote_ok(graph, buffer, src, offset, false))
		return NULL;
	p = new_prog(graph, TSI_PROG_TENSOR_TO_REMOTE);
	if (p) {
		p->remote = buffer;
		p->src = tsi_tensor_keep(src);
		p->pred = tsi_tensor_keep(offset);
	}
	return p;
}

TSI_API tsi_function *tsi_graph_add_function(tsi_graph *graph, tsi_program *body)
{
	tsi_function *fn;

	if (!graph || !body)
		return NULL;
	fn = tsi_arena_alloc(&graph->core->arena, sizeof(*fn));
	if (!fn || tsi_vec_push(&graph->core->functions, fn)) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding a function");
		return NULL;
	}
	fn->id = (uint32_t)graph->core->functions.len - 1;
	fn->body = body;
	return fn;
}

TSI_API tsi_program *tsi_prog_call(tsi_graph *graph, tsi_function *fn)
{
	tsi_program *p;

	if (!graph || !fn)
		return NULL;
	p = new_prog(graph, TSI_PROG_CALL);
	if (p)
		p->fn = fn;
	return p;
}

TSI_API tsi_program *tsi_prog_sync(tsi_graph *graph, tsi_sync_type type)
{
	tsi_program *p;

	if (!graph)
		return NULL;
	if ((unsigned)type > TSI_SYNC_GLOBAL) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "unknown sync type %d", (int)type);
		return NULL;
	}
	p = new_prog(graph, TSI_PROG_SYNC);
	if (p)
		p->sync = type;
	return p;
}

TSI_API tsi_program *tsi_prog_write_undef(tsi_graph *graph, const tsi_tensor *t)
{
	tsi_program *p;

	if (!graph || !tensor_ok(graph, t, "WriteUndef"))
		return NULL;
	p = new_prog(graph, TSI_PROG_WRITE_UNDEF);
	if (p)
		p->dst = tsi_tensor_keep(t);
	return p;
}

TSI_API tsi_program *tsi_prog_print_tensor(tsi_graph *graph, const char *title,
                                           const tsi_tensor *t)
{
	tsi_program *p;

	if (!graph || !tensor_ok(graph, t, "PrintTensor"))
		return NULL;
	p = new_prog(graph, TSI_PROG_PRINT_TENSOR);
	if (!p)
		return NULL;
	p->src = tsi_tensor_keep(t);
	p->title = tsi_arena_strdup(&graph->core->arena, title ? title : "");
	if (!p->title) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory");
		return NULL;
	}
	return p;
}

tsi_program *tsi_prog_collective(tsi_graph *graph, const tsi_tensor *src, const tsi_tensor *dst,
                                 const tsi_collective *coll)
{
	tsi_program *p;

	if (!graph || !coll || !tensor_ok(graph, src, "collective") ||
	    !tensor_ok(graph, dst, "collective") || !writable(graph, dst, "collective"))
		return NULL;
	p = new_prog(graph, TSI_PROG_COLLECTIVE);
	if (p) {
		p->src = tsi_tensor_keep(src);
		p->dst = tsi_tensor_keep(dst);
		p->collective = coll;
	}
	return p;
}

TSI_API tsi_program *tsi_program_set_name(tsi_program *prog, const char *name)
{
	if (prog && name)
		prog->name = tsi_debug_qualify(prog->graph, prog->debug_id, name);
	return prog;
}

TSI_API const char *tsi_program_name(const tsi_program *prog)
{
	return prog ? prog->name : NULL;
}

TSI_API tsi_program_kind tsi_program_get_kind(const tsi_program *prog)
{
	return prog ? prog->kind : TSI_PROG_KIND_COUNT;
}
