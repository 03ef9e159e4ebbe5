/*
 * Compilation: walks the programs an engine is given, gathers what they
 * reach (programs, executed compute sets, called functions) and checks the
 * graph the way Poplar's compiler does before any code runs, failing with
 * a message that names the offending vertex, field or variable.
 *
 * This is the seam where the compiler model will grow. After the checks
 * below, later phases plug in here in order: lowering of programs to
 * per-tile steps, exchange planning, memory layout (variables, vertex
 * state, code, exchange buffers per tile), liveness, and the cycle
 * simulation that feeds the profiles. Each adds its results to
 * tsi_compiled.
 *
 * Cost: every step is linear in what the programs reach, but for the
 * write-race warning, which sorts each compute set's written stretches.
 * Tile mappings are checked per variable region; a variable is scanned in
 * full at most once and remembered as fully mapped, so a model with ten
 * million elements compiles in milliseconds.
 */
#include "../ipu-private.h"

#include <tilescope/suggest.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Program walk states, one per program of the graph. */
enum { WALK_NEW = 0, WALK_OPEN, WALK_DONE };

/* Mapping check states, one per variable. */
enum { VAR_UNCHECKED = 0, VAR_MAPPED, VAR_PARTIAL };

typedef struct var_check {
	uint8_t state;     /* VAR_* */
	size_t n_unmapped; /* elements without a tile (VAR_PARTIAL) */
} var_check;

/* One open program of the depth-first walk. */
typedef struct walk_frame {
	tsi_program *prog;
	size_t next; /* index of the next child to visit */
} walk_frame;

typedef struct compile_ctx {
	tsi_graph *graph;
	tsi_graph_core *core;
	tsi_compiled *out;
	uint8_t *prog_state; /* core->programs.len entries, WALK_* */
	uint8_t *cs_seen;    /* core->compute_sets.len entries */
	uint8_t *fn_seen;    /* core->functions.len entries */
	var_check *vars;     /* core->vars.len entries */
	walk_frame *stack;
	size_t stack_len;
	size_t stack_cap;
	size_t n_vertices;   /* vertices in the executed compute sets */
} compile_ctx;

/* --- Naming things in messages -------------------------------------------- */

/*
 * Writes a program's name for a message into `buf`: "'name' (Sequence 3)"
 * when the user named it, else "Sequence program 3".
 */
static const char *program_label(char *buf, size_t size, const tsi_program *p)
{
	if (p->name)
		snprintf(buf, size, "'%s' (%s %u)", p->name, tsi_program_kind_name(p->kind), p->id);
	else
		snprintf(buf, size, "%s program %u", tsi_program_kind_name(p->kind), p->id);
	return buf;
}

/* Writes "field 'f' of vertex 3 (type 'T') in compute set 'cs'". */
static const char *field_label(char *buf, size_t size, const tsi_vertex *v, size_t field)
{
	snprintf(buf, size, "field '%s' of vertex %u (type '%s') in compute set '%s'",
	         v->codelet->fields[field].name, v->id, v->type_name, v->cs->name);
	return buf;
}

/* --- The walk -------------------------------------------------------------- */

/*
 * The i-th child slot of `p`, in the order the program runs them. Returns
 * false past the last slot; a slot may hold NULL (an If without else).
 */
static bool program_child(const tsi_program *p, size_t i, tsi_program **child)
{
	*child = NULL;
	switch (p->kind) {
	case TSI_PROG_SEQUENCE:
		if (i >= p->steps.len)
			return false;
		*child = p->steps.items[i];
		return true;
	case TSI_PROG_REPEAT:
		if (i > 0)
			return false;
		*child = p->body;
		return true;
	case TSI_PROG_REPEAT_WHILE_TRUE:
	case TSI_PROG_REPEAT_WHILE_FALSE:
		if (i > 1)
			return false;
		*child = i == 0 ? p->cond : p->body;
		return true;
	case TSI_PROG_IF:
		if (i > 1)
			return false;
		*child = i == 0 ? p->body : p->else_body;
		return true;
	case TSI_PROG_SWITCH:
		if (i > p->case_bodies.len)
			return false;
		*child = i < p->case_bodies.len ? p->case_bodies.items[i] : p->else_body;
		return true;
	case TSI_PROG_CALL:
		if (i > 0)
			return false;
		*child = p->fn ? p->fn->body : NULL;
		return true;
	default:
		return false;
	}
}

/*
 * Checks that `p` is a program of this graph that the walk can index.
 * `parent` (may be NULL) is used in the message.
 */
static int check_program_ref(compile_ctx *ctx, const tsi_program *p, const tsi_program *parent,
                             size_t index)
{
	char label[160];

	if (p->graph && p->graph->core == ctx->core && p->id < ctx->core->programs.len &&
	    ctx->core->programs.items[p->id] == p)
		return TSI_OK;
	if (parent)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "%s contains a program that belongs to another graph",
		                     program_label(label, sizeof(label), parent));
	return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
	                     "program %zu given to the engine belongs to another graph", index);
}

/* Records `p` as reached and opens it on the walk stack. */
static int walk_enter(compile_ctx *ctx, tsi_program *p)
{
	if (ctx->stack_len == ctx->stack_cap) {
		size_t cap = ctx->stack_cap ? ctx->stack_cap * 2 : 32;
		walk_frame *s = realloc(ctx->stack, cap * sizeof(*s));

		if (!s)
			return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory compiling");
		ctx->stack = s;
		ctx->stack_cap = cap;
	}
	if (tsi_vec_push(&ctx->out->programs, p))
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory compiling");
	if (p->kind == TSI_PROG_EXECUTE && p->cs && p->cs->id < ctx->core->compute_sets.len &&
	    !ctx->cs_seen[p->cs->id]) {
		ctx->cs_seen[p->cs->id] = 1;
		if (tsi_vec_push(&ctx->out->compute_sets, p->cs))
			return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory compiling");
		ctx->n_vertices += p->cs->vertices.len;
	}
	if (p->kind == TSI_PROG_CALL && p->fn && p->fn->id < ctx->core->functions.len &&
	    !ctx->fn_seen[p->fn->id]) {
		ctx->fn_seen[p->fn->id] = 1;
		if (tsi_vec_push(&ctx->out->functions, p->fn))
			return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory compiling");
	}
	ctx->prog_state[p->id] = WALK_OPEN;
	ctx->stack[ctx->stack_len].prog = p;
	ctx->stack[ctx->stack_len].next = 0;
	ctx->stack_len++;
	return TSI_OK;
}

/*
 * Walks the tree under `root` depth first with an explicit stack (program
 * trees built by code generators can be very deep), visiting each program
 * once. A program met again while it is still open contains itself,
 * which would never terminate on the device.
 */
static int walk_program(compile_ctx *ctx, tsi_program *root, size_t index)
{
	char label[160], parent_label[160];
	int rc;

	rc = check_program_ref(ctx, root, NULL, index);
	if (rc != TSI_OK || ctx->prog_state[root->id] == WALK_DONE)
		return rc;
	rc = walk_enter(ctx, root);
	while (rc == TSI_OK && ctx->stack_len > 0) {
		walk_frame *top = &ctx->stack[ctx->stack_len - 1];
		tsi_program *child;

		if (!program_child(top->prog, top->next++, &child)) {
			ctx->prog_state[top->prog->id] = WALK_DONE;
			ctx->stack_len--;
			continue;
		}
		if (!child)
			continue;
		rc = check_program_ref(ctx, child, top->prog, index);
		if (rc != TSI_OK)
			break;
		if (ctx->prog_state[child->id] == WALK_DONE)
			continue;
		if (ctx->prog_state[child->id] == WALK_OPEN) {
			if (child == top->prog)
				rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
				                   "program %s contains itself; a program cannot be one of "
				                   "its own steps or bodies",
				                   program_label(label, sizeof(label), child));
			else
				rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
				                   "program %s contains itself (through %s); a program cannot "
				                   "be nested inside itself",
				                   program_label(label, sizeof(label), child),
				                   program_label(parent_label, sizeof(parent_label), top->prog));
			break;
		}
		rc = walk_enter(ctx, child);
	}
	ctx->stack_len = 0;
	return rc;
}

/* --- Vertex checks --------------------------------------------------------- */

/*
 * Writes up to five known vertex type names, comma separated, into `buf`
 * (`size` bytes), whole names only: a name that does not fit is counted
 * in "and N more" instead of being cut, since a cut type name reads as a
 * different type.
 */
static void known_types(char *buf, size_t size, const tsi_graph_core *core)
{
	size_t used = 0, listed = 0, i;

	if (size == 0)
		return;
	buf[0] = '\0';
	if (core->codelets.len == 0) {
		snprintf(buf, size, "none; no codelet has been added");
		return;
	}
	for (i = 0; i < core->codelets.len && i < 5; i++) {
		const tsi_codelet *c = core->codelets.items[i];
		const char *name = c->name;
		/* ", 'name'" plus room for " and NNNNNNNNNN more" after it. */
		size_t need = (listed ? 2 : 0) + strlen(name) + 2;

		if (used + need + 24 >= size)
			break;
		used += (size_t)snprintf(buf + used, size - used, "%s'%s'", listed ? ", " : "", name);
		listed++;
	}
	if (listed < core->codelets.len)
		snprintf(buf + used, size - used, listed ? " and %zu more" : "%zu types",
		         core->codelets.len - listed);
}

/* tsi_set_error keeps messages of up to 1023 bytes (base/src/error.c). */
#define ERROR_MESSAGE_MAX 1023

/*
 * Fails for a vertex whose type has no codelet, suggesting the nearest
 * known type when the name looks like a typo. The bar is stricter than for
 * option names: vertex types share suffixes ("...Vertex"), so a loose bar
 * would suggest unrelated types. The list of known types gets what room
 * the rest of the message leaves, so no name in it is cut.
 */
static int report_unknown_type(const compile_ctx *ctx, const tsi_vertex *v)
{
	const tsi_graph_core *core = ctx->core;
	const char *near = NULL;
	size_t best = SIZE_MAX, limit = strlen(v->type_name) / 4, i;
	char known[ERROR_MESSAGE_MAX + 1] = "";
	int head;

	for (i = 0; i < core->codelets.len; i++) {
		const tsi_codelet *c = core->codelets.items[i];
		size_t d;

		if (strcmp(c->name, v->type_name) == 0)
			return tsi_set_error(TSI_ERR_UNKNOWN_VERTEX_TYPE,
			                     "vertex %u in compute set '%s' has type '%s', whose codelet "
			                     "was added after the vertex; add codelets with "
			                     "tsi_graph_add_codelet before tsi_graph_add_vertex",
			                     v->id, v->cs->name, v->type_name);
		d = tsi_name_distance(v->type_name, c->name);
		if (d < best) {
			best = d;
			near = c->name;
		}
	}
	if (limit < 2)
		limit = 2;
	if (!near || best > limit)
		near = NULL;
	/* The message without the list, to size the list. */
	head = snprintf(NULL, 0,
	                "vertex %u in compute set '%s' has unknown type '%s'; %s%s%sadd its codelet "
	                "with tsi_graph_add_codelet (known types: )",
	                v->id, v->cs->name, v->type_name, near ? "did you mean '" : "",
	                near ? near : "", near ? "'? " : "");
	known_types(known,
	            head >= 0 && (size_t)head < ERROR_MESSAGE_MAX ? ERROR_MESSAGE_MAX - (size_t)head : 0,
	            core);
	return tsi_set_error(TSI_ERR_UNKNOWN_VERTEX_TYPE,
	                     "vertex %u in compute set '%s' has unknown type '%s'; %s%s%sadd its "
	                     "codelet with tsi_graph_add_codelet (known types: %s)",
	                     v->id, v->cs->name, v->type_name, near ? "did you mean '" : "",
	                     near ? near : "", near ? "'? " : "", known);
}

/* Applies `check` to every vertex of every executed compute set, in order. */
static int for_each_vertex(const compile_ctx *ctx,
                           int (*check)(const compile_ctx *ctx, const tsi_vertex *v))
{
	for (size_t c = 0; c < ctx->out->compute_sets.len; c++) {
		const tsi_compute_set *cs = ctx->out->compute_sets.items[c];

		for (size_t i = 0; i < cs->vertices.len; i++) {
			int rc = check(ctx, cs->vertices.items[i]);

			if (rc != TSI_OK)
				return rc;
		}
	}
	return TSI_OK;
}

/* Check 1: the vertex's type has a codelet. */
static int check_type(const compile_ctx *ctx, const tsi_vertex *v)
{
	return v->codelet ? TSI_OK : report_unknown_type(ctx, v);
}

/* Check 2: the vertex is on a tile. */
static int check_vertex_tile(const compile_ctx *ctx, const tsi_vertex *v)
{
	(void)ctx;
	if (v->tile != TSI_NO_TILE)
		return TSI_OK;
	return tsi_set_error(TSI_ERR_UNMAPPED_VERTEX,
	                     "vertex %u (type '%s') in compute set '%s' is not mapped to a tile; "
	                     "place it with tsi_graph_set_vertex_tile",
	                     v->id, v->type_name, v->cs->name);
}

/* Check 3: every field is connected. */
static int check_connected(const compile_ctx *ctx, const tsi_vertex *v)
{
	char label[400];

	(void)ctx;

	for (size_t f = 0; f < v->codelet->n_fields; f++) {
		if (v->fields[f].n > 0)
			continue;
		/* A vector list connected to an empty list is connected, but the
		 * graph cannot tell that from "never connected"; both mean the
		 * vertex has nothing to work on, so both are reported. */
		return tsi_set_error(TSI_ERR_UNCONNECTED_FIELD,
		                     "%s is not connected; connect it with tsi_graph_connect",
		                     field_label(label, sizeof(label), v, f));
	}
	return TSI_OK;
}

/* True when any element of `t` belongs to a constant. */
static bool touches_constant(const compile_ctx *ctx, const tsi_tensor *t)
{
	for (size_t r = 0; r < t->n_regions; r++)
		if (tsi_graph_var(ctx->graph, t->regions[r].var)->is_constant)
			return true;
	return false;
}

/* Check 4: every connected tensor has the field's type and size, and
 * outputs are not constants. */
static int check_field_sizes(const compile_ctx *ctx, const tsi_vertex *v)
{
	char label[400], sub[48];

	for (size_t f = 0; f < v->codelet->n_fields; f++) {
		const tsi_field_def *def = &v->codelet->fields[f];
		const tsi_field_conn *conn = &v->fields[f];

		for (size_t k = 0; k < conn->n; k++) {
			const tsi_tensor *t = conn->tensors[k];

			if (conn->n > 1 || def->shape == TSI_FIELD_VECTOR_LIST)
				snprintf(sub, sizeof(sub), " (sub-vector %zu)", k);
			else
				sub[0] = '\0';
			if (t->type != def->type)
				return tsi_set_error(TSI_ERR_FIELD_SIZE_MISMATCH,
				                     "%s%s holds %s but is connected to tensor %s of type %s",
				                     field_label(label, sizeof(label), v, f), sub,
				                     tsi_type_name(def->type), tsi_tensor_describe(t),
				                     tsi_type_name(t->type));
			if (def->shape == TSI_FIELD_SCALAR && t->numel != 1)
				return tsi_set_error(TSI_ERR_FIELD_SIZE_MISMATCH,
				                     "%s is a scalar but is connected to tensor %s with %zu "
				                     "elements; connect a single element",
				                     field_label(label, sizeof(label), v, f),
				                     tsi_tensor_describe(t), t->numel);
			if (def->shape == TSI_FIELD_VECTOR && def->size != 0 && t->numel != def->size)
				return tsi_set_error(TSI_ERR_FIELD_SIZE_MISMATCH,
				                     "%s needs exactly %zu elements but is connected to "
				                     "tensor %s with %zu elements",
				                     field_label(label, sizeof(label), v, f), def->size,
				                     tsi_tensor_describe(t), t->numel);
			if (def->dir != TSI_FIELD_INPUT && touches_constant(ctx, t))
				return tsi_set_error(TSI_ERR_FIELD_SIZE_MISMATCH,
				                     "%s%s is an %s field but is connected to tensor %s, which "
				                     "is (or contains) a constant; connect a variable",
				                     field_label(label, sizeof(label), v, f), sub,
				                     def->dir == TSI_FIELD_OUTPUT ? "output" : "in/out",
				                     tsi_tensor_describe(t));
		}
	}
	return TSI_OK;
}

/* --- Tensor mapping checks ------------------------------------------------- */

/* Where an unmapped element was found. */
typedef struct unmapped_at {
	uint32_t var;
	size_t element; /* index in the variable */
} unmapped_at;

/*
 * Scans variable `id` in full the first time it is met and caches whether
 * every element has a tile (and how many do not).
 */
static void scan_var(compile_ctx *ctx, uint32_t id)
{
	const tsi_var *var = tsi_graph_var(ctx->graph, id);
	size_t n = 0;

	for (uint32_t r = 0; r < var->n_tile_runs; r++)
		if (var->tile_runs[r].tile == TSI_NO_TILE)
			n += (r + 1 < var->n_tile_runs ? var->tile_runs[r + 1].begin : var->numel) -
			     var->tile_runs[r].begin;
	ctx->vars[id].n_unmapped = n;
	ctx->vars[id].state = n ? VAR_PARTIAL : VAR_MAPPED;
}

/*
 * True when every element of `t` has a tile; otherwise fills `at` with the
 * first unmapped element in the tensor's order. NULL tensors pass.
 */
static bool tensor_mapped(compile_ctx *ctx, const tsi_tensor *t, unmapped_at *at)
{
	if (!t)
		return true;
	for (size_t r = 0; r < t->n_regions; r++) {
		const tsi_region *reg = &t->regions[r];
		const tsi_var *var;

		if (ctx->vars[reg->var].state == VAR_UNCHECKED)
			scan_var(ctx, reg->var);
		if (ctx->vars[reg->var].state == VAR_MAPPED)
			continue;
		var = tsi_graph_var(ctx->graph, reg->var);
		for (size_t i = reg->begin, stop, end = reg->begin + reg->len; i < end; i = stop) {
			if (tsi_var_tile_at(var, i, end, &stop) == TSI_NO_TILE) {
				at->var = reg->var;
				at->element = i;
				return false;
			}
		}
	}
	return true;
}

/* Fails naming the variable, its first unmapped element and `user`. */
static int report_unmapped(const compile_ctx *ctx, const unmapped_at *at, const char *user)
{
	const tsi_var *var = tsi_graph_var(ctx->graph, at->var);

	return tsi_set_error(TSI_ERR_UNMAPPED_TENSOR,
	                     "%s '%s' is %s but %zu of its %zu elements have no tile "
	                     "(first unmapped: element %zu); map it with tsi_graph_set_tile_mapping",
	                     var->is_constant ? "constant" : "variable", var->name, user,
	                     ctx->vars[at->var].n_unmapped, var->numel, at->element);
}

/* Check 5a: tensors connected to vertices of executed compute sets. */
static int check_vertex_tensors(compile_ctx *ctx)
{
	char label[400], user[420];
	unmapped_at at;

	for (size_t c = 0; c < ctx->out->compute_sets.len; c++) {
		const tsi_compute_set *cs = ctx->out->compute_sets.items[c];

		for (size_t i = 0; i < cs->vertices.len; i++) {
			const tsi_vertex *v = cs->vertices.items[i];

			for (size_t f = 0; f < v->codelet->n_fields; f++) {
				const tsi_field_conn *conn = &v->fields[f];

				for (size_t k = 0; k < conn->n; k++) {
					if (!tensor_mapped(ctx, conn->tensors[k], &at)) {
						snprintf(user, sizeof(user), "used by %s",
						         field_label(label, sizeof(label), v, f));
						return report_unmapped(ctx, &at, user);
					}
				}
			}
		}
	}
	return TSI_OK;
}

/* Check 5b: tensors the reached programs copy, test, print or undefine. */
static int check_program_tensors(compile_ctx *ctx)
{
	char label[160], user[220];
	unmapped_at at;

	for (size_t i = 0; i < ctx->out->programs.len; i++) {
		const tsi_program *p = ctx->out->programs.items[i];
		const char *role = NULL;

		if (!tensor_mapped(ctx, p->src, &at))
			role = p->kind == TSI_PROG_PRINT_TENSOR ? "printed by" : "used as the source of";
		else if (!tensor_mapped(ctx, p->dst, &at))
			role = p->kind == TSI_PROG_WRITE_UNDEF ? "undefined by"
			                                       : "used as the destination of";
		else if (!tensor_mapped(ctx, p->pred, &at))
			role = p->kind == TSI_PROG_SWITCH ? "used as the control of"
			       : (p->kind == TSI_PROG_REMOTE_TO_TENSOR || p->kind == TSI_PROG_TENSOR_TO_REMOTE)
			           ? "used as the row offset of"
			           : "used as the predicate of";
		if (role) {
			snprintf(user, sizeof(user), "%s %s", role,
			         program_label(label, sizeof(label), p));
			return report_unmapped(ctx, &at, user);
		}
	}
	return TSI_OK;
}

/* Check 5c: tensors behind host read and write handles. */
static int check_handle_tensors(compile_ctx *ctx)
{
	char user[200];
	unmapped_at at;

	for (size_t i = 0; i < ctx->core->host_handles.len; i++) {
		const tsi_host_handle *h = ctx->core->host_handles.items[i];

		if (!tensor_mapped(ctx, h->tensor, &at)) {
			snprintf(user, sizeof(user), "used by host %s handle '%s'",
			         h->is_write ? "write" : "read", h->name);
			return report_unmapped(ctx, &at, user);
		}
	}
	return TSI_OK;
}

/* --- Write races ------------------------------------------------------------ */

/*
 * The vertices of a compute set run at the same time, so two of them
 * writing the same element is a race on the IPU: which value is kept
 * depends on timing. Poplar's compiler accepts such a graph (the IPU
 * Model's serial order would hide it), so this is a warning on the
 * COMPILE log, not an error; it names both vertices, the compute set, the
 * variable and the elements, as the errors above name what they refuse.
 *
 * Cost: the written stretches of one compute set are sorted by variable
 * and first element and swept once (O(n log n) in the stretches), never
 * compared pairwise.
 */

/* Warnings written per compute set; the rest are counted in one line. */
#define RACES_LISTED_PER_CS 5

/* Elements [begin, end) of variable `var` that field `field` of `v` writes. */
typedef struct write_span {
	uint32_t var;
	uint32_t field;
	size_t begin, end;
	const tsi_vertex *v;
} write_span;

/* One overlap found, merged with the next while they continue it. */
typedef struct write_race {
	const write_span *a, *b; /* a began first (or at the same element) */
	size_t begin, end;       /* elements of a->var both write */
} write_race;

/* Orders stretches by variable, first element, last element, vertex. */
static int span_cmp(const void *pa, const void *pb)
{
	const write_span *a = pa, *b = pb;

	if (a->var != b->var)
		return a->var < b->var ? -1 : 1;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->v->id != b->v->id)
		return a->v->id < b->v->id ? -1 : 1;
	return a->field < b->field ? -1 : a->field > b->field;
}

/* Writes one race as a warning, unless the compute set has had its share. */
static void report_race(const compile_ctx *ctx, const tsi_compute_set *cs, const write_race *r,
                        size_t *n_races)
{
	const tsi_var *var = tsi_graph_var(ctx->graph, r->a->var);
	const tsi_vertex *va = r->a->v, *vb = r->b->v;
	char range[64];

	if ((*n_races)++ >= RACES_LISTED_PER_CS)
		return;
	if (r->end - r->begin == 1)
		snprintf(range, sizeof(range), "element %zu", r->begin);
	else
		snprintf(range, sizeof(range), "elements %zu to %zu (%zu elements)", r->begin,
		         r->end - 1, r->end - r->begin);
	tsi_log(TSI_LOG_WARN, "COMPILE",
	        "vertices %u (type '%s', field '%s') and %u (type '%s', field '%s') in compute set "
	        "'%s' both write %s of %s '%s'; the vertices of a compute set run in parallel, so "
	        "this is a race on the IPU (write each element from one vertex, or split the "
	        "writes into two compute sets)",
	        va->id, va->type_name, va->codelet->fields[r->a->field].name, vb->id, vb->type_name,
	        vb->codelet->fields[r->b->field].name, cs->name, range,
	        var->is_constant ? "constant" : "variable", var->name);
}

/*
 * Finds the races of one compute set in `spans` (n, sorted by span_cmp).
 * Sweeping in order, a stretch overlaps an earlier one of another vertex
 * exactly when it begins before the farthest end reached by another
 * vertex; keeping the farthest-reaching stretch and the farthest one of
 * any other vertex answers that in constant time. Each stretch so names
 * one partner (the pair reported), and a run of overlaps of the same two
 * vertices over touching elements is one warning.
 */
static void sweep_races(const compile_ctx *ctx, const tsi_compute_set *cs,
                        const write_span *spans, size_t n, size_t *n_races)
{
	const write_span *far1 = NULL, *far2 = NULL; /* far2->v != far1->v */
	write_race pending = {0};
	bool have = false;

	for (size_t i = 0; i < n; i++) {
		const write_span *s = &spans[i], *other = NULL;

		if (far1 && far1->var != s->var)
			far1 = far2 = NULL;
		if (far1 && far1->v != s->v && s->begin < far1->end)
			other = far1;
		else if (far2 && s->begin < far2->end)
			other = far2;
		if (other) {
			size_t end = s->end < other->end ? s->end : other->end;
			bool same_pair = have && pending.a->var == s->var &&
			                 ((pending.a->v == other->v && pending.b->v == s->v) ||
			                  (pending.a->v == s->v && pending.b->v == other->v));

			if (same_pair && s->begin <= pending.end) {
				if (end > pending.end)
					pending.end = end;
			} else {
				if (have)
					report_race(ctx, cs, &pending, n_races);
				pending = (write_race){other, s, s->begin, end};
				have = true;
			}
		}
		if (!far1 || s->end > far1->end) {
			if (far1 && far1->v != s->v)
				far2 = far1;
			far1 = s;
		} else if (s->v != far1->v && (!far2 || s->end > far2->end)) {
			far2 = s;
		}
	}
	if (have)
		report_race(ctx, cs, &pending, n_races);
}

/*
 * Warns about vertices of one executed compute set that write the same
 * elements (output and in/out fields). Fails only when out of memory.
 */
static int warn_write_races(const compile_ctx *ctx)
{
	write_span *spans = NULL;
	size_t cap = 0;
	int rc = TSI_OK;

	for (size_t c = 0; c < ctx->out->compute_sets.len; c++) {
		const tsi_compute_set *cs = ctx->out->compute_sets.items[c];
		size_t n = 0, n_races = 0;

		for (size_t i = 0; i < cs->vertices.len; i++) {
			const tsi_vertex *v = cs->vertices.items[i];

			for (size_t f = 0; f < v->codelet->n_fields; f++) {
				if (v->codelet->fields[f].dir == TSI_FIELD_INPUT)
					continue;
				for (size_t k = 0; k < v->fields[f].n; k++) {
					const tsi_tensor *t = v->fields[f].tensors[k];

					for (size_t r = 0; r < t->n_regions; r++) {
						if (!t->regions[r].len)
							continue;
						if (n == cap) {
							size_t ncap = cap ? cap * 2 : 256;
							write_span *ns = realloc(spans, ncap * sizeof(*ns));

							if (!ns) {
								rc = tsi_set_error(TSI_ERR_NO_MEMORY,
								                   "out of host memory compiling");
								goto out;
							}
							spans = ns;
							cap = ncap;
						}
						spans[n++] = (write_span){t->regions[r].var, (uint32_t)f,
						                          t->regions[r].begin,
						                          t->regions[r].begin + t->regions[r].len, v};
					}
				}
			}
		}
		if (n < 2)
			continue;
		/* Operations mostly give vertex i the i-th slice of their
		 * output, so the stretches often come sorted already. */
		size_t i = 1;
		while (i < n && span_cmp(&spans[i - 1], &spans[i]) <= 0)
			i++;
		if (i < n)
			qsort(spans, n, sizeof(*spans), span_cmp);
		sweep_races(ctx, cs, spans, n, &n_races);
		if (n_races > RACES_LISTED_PER_CS)
			tsi_log(TSI_LOG_WARN, "COMPILE",
			        "compute set '%s': %zu more overlapping writes by two vertices not listed",
			        cs->name, n_races - RACES_LISTED_PER_CS);
	}
out:
	free(spans);
	return rc;
}

/* --- Entry points ---------------------------------------------------------- */

/* Frees what a compilation produced. NULL is ignored. */
void tsi_compiled_free(tsi_compiled *compiled)
{
	if (!compiled)
		return;
	tsi_vec_clear(&compiled->programs);
	tsi_vec_clear(&compiled->compute_sets);
	tsi_vec_clear(&compiled->functions);
	tsi_compile_model_free(compiled->model);
	free(compiled);
}

/*
 * Gathers what `programs` reach and checks it: vertex types, vertex tiles,
 * field connections, field sizes and types, then the tile of every tensor
 * element the programs touch. The first problem fails the compilation
 * with its message in the thread-local error; vertices of one compute set
 * writing the same elements are only warned about (warn_write_races).
 * `opts` is for the phases to come (already validated by the engine).
 */
int tsi_compile(tsi_compiled **out, tsi_graph *graph, tsi_program *const *programs,
                size_t n_programs, const tsi_options *opts, const tsi_profile_hook *hook)
{
	compile_ctx ctx;
	int rc = TSI_OK;

	memset(&ctx, 0, sizeof(ctx));
	if (!out || !graph || (n_programs && !programs))
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_compile: missing argument");
	*out = NULL;
	ctx.graph = graph;
	ctx.core = graph->core;
	if (ctx.core->error_code)
		return tsi_set_error(TSI_ERR_INVALID_GRAPH,
		                     "the graph recorded an error while it was built: %s",
		                     ctx.core->error_msg ? ctx.core->error_msg : "(no message)");

	tsi_log(TSI_LOG_INFO, "COMPILE", "Compiling %zu program(s)", n_programs);
	ctx.out = calloc(1, sizeof(*ctx.out));
	ctx.prog_state = calloc(ctx.core->programs.len + 1, 1);
	ctx.cs_seen = calloc(ctx.core->compute_sets.len + 1, 1);
	ctx.fn_seen = calloc(ctx.core->functions.len + 1, 1);
	ctx.vars = calloc(ctx.core->vars.len + 1, sizeof(*ctx.vars));
	if (!ctx.out || !ctx.prog_state || !ctx.cs_seen || !ctx.fn_seen || !ctx.vars) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory compiling");
		goto out;
	}
	ctx.out->n_vars = (uint32_t)ctx.core->vars.len;
	ctx.out->n_vertices = (uint32_t)ctx.core->vertices.len;

	for (size_t i = 0; i < n_programs; i++) {
		if (!programs[i]) {
			rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                   "program %zu given to the engine is NULL (was its constructor "
			                   "given a NULL child?)",
			                   i);
			goto out;
		}
		rc = walk_program(&ctx, programs[i], i);
		if (rc != TSI_OK)
			goto out;
	}
	tsi_log(TSI_LOG_INFO, "COMPILE",
	        "Found %zu programs, %zu compute sets, %zu vertices, %u variables",
	        ctx.out->programs.len, ctx.out->compute_sets.len, ctx.n_vertices, ctx.out->n_vars);

	TSI_TRACE_BEGINF("Graph checks");
	rc = for_each_vertex(&ctx, check_type);
	if (rc == TSI_OK)
		rc = for_each_vertex(&ctx, check_vertex_tile);
	if (rc == TSI_OK)
		rc = for_each_vertex(&ctx, check_connected);
	if (rc == TSI_OK)
		rc = for_each_vertex(&ctx, check_field_sizes);
	if (rc == TSI_OK)
		rc = check_vertex_tensors(&ctx);
	if (rc == TSI_OK)
		rc = check_program_tensors(&ctx);
	if (rc == TSI_OK)
		rc = check_handle_tensors(&ctx);
	if (rc == TSI_OK)
		rc = warn_write_races(&ctx);
	TSI_TRACE_END();
	if (rc == TSI_OK) {
		tsi_log(TSI_LOG_DEBUG, "COMPILE", "Graph checks passed");
		rc = tsi_compile_model(ctx.out, graph, programs, n_programs, opts, hook);
	}
out:
	if (rc != TSI_OK) {
		tsi_log(TSI_LOG_ERR, "COMPILE", "%s", tsi_error_last());
		tsi_compiled_free(ctx.out);
	} else {
		*out = ctx.out;
	}
	free(ctx.prog_state);
	free(ctx.cs_seen);
	free(ctx.fn_seen);
	free(ctx.vars);
	free(ctx.stack);
	return rc;
}
