/*
 * Liveness: the static step order of the lowered programs, which
 * variables each step reads, writes or undefines, every variable's live
 * interval over that order, and the bytes that are live at each step
 * besides the always-live ones (what memory.c overlaps and the guide's
 * "Variable Storage Liveness" report prints).
 *
 * Step order. Each control program's tree is walked depth first and every
 * node visited becomes a step, structured nodes included: loop bodies
 * once, both branches of an If, every Switch case, and at each Call the
 * called function's Sequence again (so a function called twice appears
 * twice, as the guide's call-stack tree does).
 *
 * Intervals. A variable is always live when it is a constant, has a host
 * read or write handle, or its first access in step order is a read (its
 * value comes from before the program). Otherwise it is live over the
 * hull of its accesses: from its first write to its last access. A read
 * inside a loop with no write or WriteUndef of the variable earlier in
 * that loop's body is live around the back edge, so the interval grows to
 * the whole loop (the outermost loop for which that holds). WriteUndef
 * defines the variable for these rules without making it live: a read
 * after it does not make the variable always live and does not stretch
 * it over the loop, and the interval ends at the last access before it
 * when nothing follows. One interval per variable: a variable used,
 * undefined and used again is live over the hull of both uses.
 *
 * A variable that no program touches (and has no host handle) is live
 * nowhere: live_from = live_to = UINT32_MAX. An always-live variable has
 * live_from = live_to = 0, as profile.h says.
 *
 * Exchange buffers are variables of their own. A receive buffer
 * ("message"; "rearrangement" for a Copy's internal exchange, which
 * receives the source's data laid out for the destination; hostMessage,
 * globalMessage) is live over the steps of its exchange's lowered program
 * (first to last occurrence). The outputs a compute set writes for
 * another tile wait on the writing tile for the exchange that returns
 * them: an "outputEdge" buffer of the post exchange's bytes sent per
 * tile, live from the compute set's first step to the exchange's last.
 *
 * Cost: linear in steps, accesses and variables. Each lowered program's
 * access list is built once (a user compute set's read and write sets
 * once, whatever runs it) and replayed at each of its steps.
 */
#include "compiler-private.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Deepest program tree the walk accepts, and the most steps (a chain of
 * functions each calling the next twice grows exponentially). */
#define MAX_DEPTH (1u << 16)
#define MAX_STEPS (1u << 25)

/* A list of variable ids in the access pool. */
typedef struct var_list {
	uint32_t off;
	uint32_t n;
} var_list;

/* What one lowered program (or user compute set) reads, writes and
 * undefines, built on first use. */
typedef struct access {
	bool done;
	var_list read, write, kill;
} access;

/* One open node of the tree walk. */
typedef struct walk_frame {
	uint32_t program;
	uint32_t step;
	uint32_t next; /* next child slot */
} walk_frame;

typedef struct lv_ctx {
	tsi_profile_builder *b;
	uint32_t n_vars;
	size_t n_programs;

	/* The step order. */
	tsi_liveness_step *steps;
	uint32_t *end;        /* last step of each step's subtree */
	size_t n_steps, cap_steps;

	/* Access lists. */
	access *lp;           /* n_programs */
	access *cs;           /* core->compute_sets.len */
	uint32_t *pool;
	size_t n_pool, cap_pool;
	uint32_t *stamp;      /* n_vars: dedup of the list being built */
	uint32_t cur_stamp;

	/* Per variable. */
	uint32_t *first;      /* step of the first access */
	uint8_t *first_read;  /* the first access was a read */
	uint32_t *lo, *hi;    /* hull of reads and writes */
	uint32_t *last_def;   /* last write or WriteUndef */
	uint8_t *handle;      /* has a host handle */
} lv_ctx;

/* --- The step order ------------------------------------------------------- */

/* Appends a step and sets *out to its index. Returns TSI_OK or a negative
 * code (error set). */
static int lv_emit(lv_ctx *c, uint32_t program, int32_t parent, uint32_t depth, uint32_t *out)
{
	if (c->n_steps >= MAX_STEPS)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "liveness: the programs expand to more than %u steps (functions "
		                     "that call functions many times over?)",
		                     MAX_STEPS);
	if (c->n_steps == c->cap_steps) {
		size_t cap = c->cap_steps ? c->cap_steps * 2 : 256;
		tsi_liveness_step *s = realloc(c->steps, cap * sizeof(*s));
		uint32_t *e;

		if (!s)
			return TSI_ERR_NO_MEMORY;
		c->steps = s;
		e = realloc(c->end, cap * sizeof(*e));
		if (!e)
			return TSI_ERR_NO_MEMORY;
		c->end = e;
		c->cap_steps = cap;
	}
	c->steps[c->n_steps].program = program;
	c->steps[c->n_steps].parent = parent;
	c->steps[c->n_steps].depth = depth;
	c->steps[c->n_steps].not_always_live_bytes = 0;
	c->end[c->n_steps] = (uint32_t)c->n_steps;
	*out = (uint32_t)c->n_steps++;
	return TSI_OK;
}

/* The lowered program in child slot `i` of `p`: its children, then for a
 * Call the called function's Sequence. NONE past the last slot. */
static uint32_t lv_child(const tsi_graph_profile *gp, const tsi_lowered_program *p, uint32_t i)
{
	if (i < p->n_children)
		return p->children[i];
	if (p->type == TSI_LP_CALL && i == p->n_children && p->function >= 0 &&
	    (size_t)p->function < gp->n_function_programs)
		return gp->function_programs[p->function];
	return NONE;
}

/*
 * Walks every control program's tree depth first with an explicit stack
 * and emits one step per node visited. A Call whose function is already
 * open on the stack (recursion, which the device cannot do) fails.
 */
static int lv_walk(lv_ctx *c)
{
	const tsi_graph_profile *gp = &c->b->profile;
	walk_frame *stack = NULL;
	size_t cap = 0, len = 0;
	uint32_t *fn_open = calloc(gp->n_function_programs + 1, sizeof(*fn_open));
	int rc = TSI_OK;

	if (!fn_open) {
		rc = TSI_ERR_NO_MEMORY;
		goto out;
	}
	for (size_t r = 0; r < gp->n_control_programs; r++) {
		uint32_t root = gp->control_programs[r], s;

		if (root >= c->n_programs) {
			rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                   "liveness: control program %zu is out of range", r);
			goto out;
		}
		rc = lv_emit(c, root, -1, 0, &s);
		if (rc)
			goto out;
		len = 0;
		for (uint32_t next = root, step = s;;) {
			const tsi_lowered_program *p;
			uint32_t child;

			if (next != NONE) {
				/* Open `next` (already emitted as `step`). */
				const tsi_lowered_program *np = &gp->programs[next];

				if (len == cap) {
					size_t ncap = cap ? cap * 2 : 64;
					walk_frame *ns = realloc(stack, ncap * sizeof(*ns));
					if (!ns) {
						rc = TSI_ERR_NO_MEMORY;
						goto out;
					}
					stack = ns;
					cap = ncap;
				}
				if (np->type == TSI_LP_CALL && np->function >= 0 &&
				    (size_t)np->function < gp->n_function_programs) {
					if (fn_open[np->function]) {
						rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
						                   "liveness: function %d calls itself; recursion "
						                   "is not possible on the IPU",
						                   np->function);
						goto out;
					}
					fn_open[np->function]++;
				}
				stack[len].program = next;
				stack[len].step = step;
				stack[len].next = 0;
				len++;
			}
			if (len == 0)
				break;
			p = &gp->programs[stack[len - 1].program];
			child = lv_child(gp, p, stack[len - 1].next++);
			if (child == NONE) {
				c->end[stack[len - 1].step] = (uint32_t)c->n_steps - 1;
				if (p->type == TSI_LP_CALL && p->function >= 0 &&
				    (size_t)p->function < gp->n_function_programs)
					fn_open[p->function]--;
				len--;
				next = NONE;
				continue;
			}
			if (child >= c->n_programs) {
				rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
				                   "liveness: lowered program %u has a child out of range",
				                   stack[len - 1].program);
				goto out;
			}
			if (len >= MAX_DEPTH) {
				rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
				                   "liveness: programs nest deeper than %u levels", MAX_DEPTH);
				goto out;
			}
			rc = lv_emit(c, child, (int32_t)stack[len - 1].step, (uint32_t)len, &step);
			if (rc)
				goto out;
			next = child;
		}
	}
out:
	free(stack);
	free(fn_open);
	return rc;
}

/* --- Access lists ----------------------------------------------------------- */

/* Starts a new deduplicated list at the end of the pool. */
static var_list lv_list_begin(lv_ctx *c)
{
	var_list l = {(uint32_t)c->n_pool, 0};

	c->cur_stamp++;
	if (c->cur_stamp == 0) { /* wrapped: clear the stamps */
		memset(c->stamp, 0, (size_t)c->n_vars * sizeof(*c->stamp));
		c->cur_stamp = 1;
	}
	return l;
}

/* Adds the variables of `t` to list `l` (once each). */
static int lv_list_add(lv_ctx *c, var_list *l, const tsi_tensor *t)
{
	if (!t)
		return TSI_OK;
	for (size_t r = 0; r < t->n_regions; r++) {
		uint32_t v = t->regions[r].var;

		if (v >= c->n_vars || c->stamp[v] == c->cur_stamp)
			continue;
		c->stamp[v] = c->cur_stamp;
		if (c->n_pool == c->cap_pool) {
			size_t cap = c->cap_pool ? c->cap_pool * 2 : 1024;
			uint32_t *p = realloc(c->pool, cap * sizeof(*p));
			if (!p)
				return TSI_ERR_NO_MEMORY;
			c->pool = p;
			c->cap_pool = cap;
		}
		c->pool[c->n_pool++] = v;
		l->n++;
	}
	return TSI_OK;
}

/* The read and write sets of user compute set `id` (its vertices' input
 * and output fields), built once. */
static int lv_cs_access(lv_ctx *c, uint32_t id, const access **out)
{
	access *a = &c->cs[id];
	const tsi_compute_set *cs = c->b->core->compute_sets.items[id];
	int rc = TSI_OK;

	*out = a;
	if (a->done)
		return TSI_OK;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		var_list l = lv_list_begin(c);

		for (size_t i = 0; i < cs->vertices.len && !rc; i++) {
			const tsi_vertex *v = cs->vertices.items[i];

			if (v->id >= c->b->compiled->n_vertices || !v->codelet)
				continue;
			for (size_t f = 0; f < v->codelet->n_fields && !rc; f++) {
				tsi_field_dir dir = v->codelet->fields[f].dir;

				if (pass == 0 ? dir == TSI_FIELD_OUTPUT : dir == TSI_FIELD_INPUT)
					continue;
				for (size_t k = 0; k < v->fields[f].n && !rc; k++)
					rc = lv_list_add(c, &l, v->fields[f].tensors[k]);
			}
		}
		if (pass == 0)
			a->read = l;
		else
			a->write = l;
	}
	a->done = !rc;
	return rc;
}

/* Fills `a` with reads of `r1`, `r2` and writes of `w` (any may be NULL). */
static int lv_simple(lv_ctx *c, access *a, const tsi_tensor *r1, const tsi_tensor *r2,
                     const tsi_tensor *w)
{
	int rc;

	a->read = lv_list_begin(c);
	rc = lv_list_add(c, &a->read, r1);
	if (!rc)
		rc = lv_list_add(c, &a->read, r2);
	a->write = lv_list_begin(c);
	if (!rc)
		rc = lv_list_add(c, &a->write, w);
	return rc;
}

/* The accesses of a transfer run for user program `src` (a copy, stream
 * or remote copy, print, a collective, or a Switch's control broadcast). */
static int lv_transfer(lv_ctx *c, access *a, const tsi_program *src)
{
	switch (src->kind) {
	case TSI_PROG_COPY:
	case TSI_PROG_COLLECTIVE:
		return lv_simple(c, a, src->src, NULL, src->dst);
	case TSI_PROG_STREAM_TO_TENSOR:
	case TSI_PROG_REMOTE_TO_TENSOR:
		return lv_simple(c, a, src->pred, NULL, src->dst);
	case TSI_PROG_TENSOR_TO_STREAM:
	case TSI_PROG_TENSOR_TO_REMOTE:
	case TSI_PROG_PRINT_TENSOR:
		return lv_simple(c, a, src->src, src->pred, NULL);
	case TSI_PROG_SWITCH:
	case TSI_PROG_IF:
	case TSI_PROG_REPEAT_WHILE_TRUE:
	case TSI_PROG_REPEAT_WHILE_FALSE:
		return lv_simple(c, a, src->pred, NULL, NULL);
	default:
		return TSI_OK;
	}
}

/* The accesses of lowered program `id`, built once. */
static int lv_access(lv_ctx *c, uint32_t id, const access **out)
{
	tsi_profile_builder *b = c->b;
	const tsi_lowered_program *lp = &b->profile.programs[id];
	const tsi_program *src = b->lp_source ? b->lp_source[id] : NULL;
	int role = b->lp_role ? b->lp_role[id] : TSI_XR_NONE;
	access *a = &c->lp[id];
	const access *cs;
	int rc = TSI_OK;

	*out = a;
	if (a->done)
		return TSI_OK;
	switch (lp->type) {
	case TSI_LP_ON_TILE_EXECUTE:
		if (lp->compute_set >= 0 && (size_t)lp->compute_set < b->core->compute_sets.len) {
			rc = lv_cs_access(c, (uint32_t)lp->compute_set, &cs);
			if (!rc) {
				a->read = cs->read;
				a->write = cs->write;
			}
		} else if (src) {
			rc = lv_transfer(c, a, src); /* a generated copy */
		}
		break;
	case TSI_LP_DO_EXCHANGE:
	case TSI_LP_GLOBAL_EXCHANGE:
	case TSI_LP_STREAM_COPY:
		if (!src)
			break;
		if ((role == TSI_XR_EXECUTE_PRE || role == TSI_XR_EXECUTE_POST) && src->cs &&
		    src->cs->id < b->core->compute_sets.len) {
			rc = lv_cs_access(c, src->cs->id, &cs);
			if (!rc && role == TSI_XR_EXECUTE_PRE)
				a->read = cs->read;
			else if (!rc)
				a->write = cs->write;
		} else {
			rc = lv_transfer(c, a, src);
		}
		break;
	case TSI_LP_SET_LOCAL_CONSENSUS:
		if (src)
			rc = lv_simple(c, a, src->pred, NULL, NULL);
		break;
	case TSI_LP_WRITE_UNDEF:
		if (src) {
			a->kill = lv_list_begin(c);
			rc = lv_list_add(c, &a->kill, src->dst);
		}
		break;
	default:
		break;
	}
	a->done = !rc;
	return rc;
}

/* --- The sweep --------------------------------------------------------------- */

/* True for the loop nodes whose body runs again after its end. */
static bool is_loop(tsi_lowered_type t)
{
	return t == TSI_LP_REPEAT || t == TSI_LP_REPEAT_WHILE_TRUE ||
	       t == TSI_LP_REPEAT_WHILE_FALSE;
}

/* Widens variable v's hull to [from, to]. */
static void lv_hull(lv_ctx *c, uint32_t v, uint32_t from, uint32_t to)
{
	if (c->lo[v] == NONE || from < c->lo[v])
		c->lo[v] = from;
	if (c->hi[v] == NONE || to > c->hi[v])
		c->hi[v] = to;
}

/*
 * Replays every step's accesses in order. `loops` (capacity: steps) holds
 * the open loop steps, outermost first, so their step indexes ascend.
 * Also records each lowered program's first and last step.
 */
static int lv_sweep(lv_ctx *c, uint32_t *occ_first, uint32_t *occ_last)
{
	const tsi_graph_profile *gp = &c->b->profile;
	uint32_t *loops = malloc((c->n_steps + 1) * sizeof(*loops));
	size_t n_loops = 0;
	int rc = TSI_OK;

	if (!loops)
		return TSI_ERR_NO_MEMORY;
	for (uint32_t s = 0; s < c->n_steps; s++) {
		uint32_t id = c->steps[s].program;
		const access *a;

		while (n_loops && c->end[loops[n_loops - 1]] < s)
			n_loops--;
		if (is_loop(gp->programs[id].type))
			loops[n_loops++] = s;
		if (occ_first[id] == NONE)
			occ_first[id] = s;
		occ_last[id] = s;

		rc = lv_access(c, id, &a);
		if (rc)
			break;
		for (uint32_t i = 0; i < a->read.n; i++) {
			uint32_t v = c->pool[a->read.off + i];
			size_t lo = 0, hi = n_loops;

			if (c->first[v] == NONE) {
				c->first[v] = s;
				c->first_read[v] = 1;
			}
			lv_hull(c, v, s, s);
			/* The outermost open loop that starts after the variable's
			 * last definition: read before written in its body. */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (c->last_def[v] != NONE && loops[mid] <= c->last_def[v])
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n_loops)
				lv_hull(c, v, loops[lo], c->end[loops[lo]]);
		}
		for (uint32_t i = 0; i < a->write.n; i++) {
			uint32_t v = c->pool[a->write.off + i];

			if (c->first[v] == NONE)
				c->first[v] = s;
			lv_hull(c, v, s, s);
			c->last_def[v] = s;
		}
		for (uint32_t i = 0; i < a->kill.n; i++) {
			uint32_t v = c->pool[a->kill.off + i];

			if (c->first[v] == NONE)
				c->first[v] = s;
			c->last_def[v] = s;
		}
	}
	free(loops);
	return rc;
}

/* --- Results ------------------------------------------------------------------ */

/* Marks the variables behind host read and write handles. */
static void lv_mark_handles(lv_ctx *c)
{
	const tsi_graph_core *core = c->b->core;

	for (size_t i = 0; i < core->host_handles.len; i++) {
		const tsi_host_handle *h = core->host_handles.items[i];

		for (size_t r = 0; h->tensor && r < h->tensor->n_regions; r++)
			if (h->tensor->regions[r].var < c->n_vars)
				c->handle[h->tensor->regions[r].var] = 1;
	}
}

/* Bytes of variable `var` per tile. */
static int lv_var_tiles(lv_ctx *c, tsi_tile_acc *acc, const tsi_var *var,
                        tsi_tile_values *out)
{
	uint64_t size = tsi_type_size(var->type);

	for (uint32_t r = 0; r < var->n_tile_runs; r++) {
		const tsi_tile_run *run = &var->tile_runs[r];
		size_t end = r + 1 < var->n_tile_runs ? var->tile_runs[r + 1].begin : var->numel;

		if (run->tile != TSI_NO_TILE)
			tsi_tile_acc_add(acc, run->tile, (uint64_t)(end - run->begin) * size);
	}
	return tsi_tile_acc_take(acc, &c->b->arena, out);
}

/* The receive buffer category of an exchange: a Copy's internal exchange
 * receives the source's data laid out for the destination (a rearranged
 * version of tensor data: "rearrangement"), other internal exchanges
 * receive messages; host and IPU-to-IPU exchanges their own kinds. */
static tsi_mem_category message_category(const tsi_exchange_plan *plan)
{
	if (plan->kind == TSI_EXCHANGE_EXTERNAL)
		return TSI_MEM_GLOBAL_MESSAGE;
	if (plan->kind == TSI_EXCHANGE_HOST)
		return TSI_MEM_HOST_MESSAGE;
	if (plan->role == TSI_XR_COPY)
		return TSI_MEM_REARRANGEMENT;
	return TSI_MEM_MESSAGE;
}

/* The sending tiles' bytes of an exchange that returns a compute set's
 * outputs (TSI_XR_EXECUTE_POST): the vertices write those outputs on
 * their own tile, where they wait for the exchange ("outputEdge"). NULL
 * for any other exchange. */
static const tsi_tile_values *output_edge_bytes(const tsi_profile_builder *b,
                                                const tsi_exchange_plan *plan)
{
	const tsi_graph_profile *gp = &b->profile;

	if (plan->role != TSI_XR_EXECUTE_POST || plan->kind >= TSI_EXCHANGE_KIND_COUNT ||
	    plan->index >= gp->n_exchanges[plan->kind])
		return NULL;
	const tsi_tile_values *tv = &gp->exchanges[plan->kind][plan->index].bytes_sent;
	return tv->n ? tv : NULL;
}

/* The OnTileExecute whose outputs a post exchange returns: the nearest
 * one lowered before it from the same Execute. UINT32_MAX when none. */
static uint32_t post_exchange_compute(const tsi_profile_builder *b,
                                      const tsi_exchange_plan *plan)
{
	for (uint32_t i = plan->lowered; i-- > 0;) {
		if (b->lp_source[i] != plan->source)
			break;
		if (b->programs[i].type == TSI_LP_ON_TILE_EXECUTE)
			return i;
	}
	return NONE;
}

/*
 * One compiler buffer of an exchange plan as a variable: `kind` names it
 * ("<message:X>", "<outputEdge:X>"), `bytes` per tile in category `cat`.
 * A receive buffer is live over the steps of its exchange (first to last
 * occurrence); an output edge buffer from the compute set that writes it
 * to the end of its exchange. Adds its bytes to the not-always-live
 * difference array `diff`.
 */
static int lv_buffer(lv_ctx *c, tsi_variable_profile *vp, const tsi_exchange_plan *plan,
                     const char *kind, tsi_mem_category cat, const tsi_tile_values *bytes,
                     const char *xname, const uint32_t *occ_first, const uint32_t *occ_last,
                     int64_t *diff)
{
	tsi_profile_builder *b = c->b;
	size_t *shape;

	vp->name = tsi_arena_printf(&b->arena, "<%s:%s>", kind, xname ? xname : "anon");
	shape = tsi_arena_alloc(&b->arena, sizeof(*shape));
	if (!vp->name || !shape)
		return TSI_ERR_NO_MEMORY;
	vp->category = cat;
	vp->type = TSI_UNSIGNED_CHAR;
	vp->bytes = tsi_tile_values_sum(bytes);
	shape[0] = (size_t)vp->bytes;
	vp->rank = 1;
	vp->shape = shape;
	vp->bytes_by_tile = *bytes;
	vp->debug_context = plan->source ? plan->source->debug_id : 0; /* its exchange's */
	vp->always_live = false;
	vp->live_from = vp->live_to = NONE;
	if (plan->lowered >= c->n_programs || occ_first[plan->lowered] == NONE)
		return TSI_OK;
	vp->live_from = occ_first[plan->lowered];
	vp->live_to = occ_last[plan->lowered];
	if (cat == TSI_MEM_OUTPUT_EDGE) {
		uint32_t ote = post_exchange_compute(b, plan);
		if (ote < c->n_programs && occ_first[ote] != NONE && occ_first[ote] < vp->live_from)
			vp->live_from = occ_first[ote];
	}
	diff[vp->live_from] += (int64_t)vp->bytes;
	diff[(size_t)vp->live_to + 1] -= (int64_t)vp->bytes;
	return TSI_OK;
}

/*
 * Fills profile.variables: the user variables (by id) then, per exchange
 * plan, its receive buffer when it has one and its output edge buffer
 * when it returns a compute set's outputs; and the not-always-live bytes of
 * every step by a difference array over the intervals.
 */
static int lv_results(lv_ctx *c, const uint32_t *occ_first, const uint32_t *occ_last)
{
	tsi_profile_builder *b = c->b;
	tsi_graph_profile *gp = &b->profile;
	size_t n_msg = 0, n_out;
	tsi_variable_profile *vars;
	int64_t *diff = calloc(c->n_steps + 2, sizeof(*diff));
	tsi_tile_acc acc;
	uint64_t always = 0;
	int rc;

	memset(&acc, 0, sizeof(acc));
	if (!diff)
		return TSI_ERR_NO_MEMORY;
	rc = tsi_tile_acc_init(&acc, b->core->target.num_tiles);
	if (rc)
		goto out;
	for (size_t p = 0; p < b->n_plans; p++)
		n_msg += (b->plans[p].message_bytes.n > 0) +
		         (output_edge_bytes(b, &b->plans[p]) != NULL);
	n_out = c->n_vars + n_msg;
	vars = tsi_arena_alloc(&b->arena, (n_out + 1) * sizeof(*vars));
	if (!vars) {
		rc = TSI_ERR_NO_MEMORY;
		goto out;
	}
	for (uint32_t i = 0; i < c->n_vars; i++) {
		const tsi_var *var = b->core->vars.items[i];
		tsi_variable_profile *vp = &vars[i];
		size_t *shape = tsi_arena_alloc(&b->arena, (var->rank + 1) * sizeof(*shape));

		if (!shape) {
			rc = TSI_ERR_NO_MEMORY;
			goto out;
		}
		memcpy(shape, var->shape, var->rank * sizeof(*shape));
		vp->name = var->name;
		vp->category = var->is_constant ? TSI_MEM_CONSTANT : TSI_MEM_VARIABLE;
		vp->type = var->type;
		vp->bytes = (uint64_t)var->numel * tsi_type_size(var->type);
		vp->rank = var->rank;
		vp->shape = shape;
		vp->debug_context = var->debug_id;
		rc = lv_var_tiles(c, &acc, var, &vp->bytes_by_tile);
		if (rc)
			goto out;
		vp->always_live = var->is_constant || c->handle[i] ||
		                  (c->first[i] != NONE && c->first_read[i]);
		if (vp->always_live) {
			always += vp->bytes;
		} else if (c->lo[i] == NONE) {
			vp->live_from = vp->live_to = NONE;
		} else {
			vp->live_from = c->lo[i];
			vp->live_to = c->hi[i];
			diff[c->lo[i]] += (int64_t)vp->bytes;
			diff[(size_t)c->hi[i] + 1] -= (int64_t)vp->bytes;
		}
	}
	n_out = c->n_vars;
	for (size_t p = 0; p < b->n_plans; p++) {
		const tsi_exchange_plan *plan = &b->plans[p];
		const tsi_tile_values *edge = output_edge_bytes(b, plan);
		const char *xname = NULL;

		if (plan->kind < TSI_EXCHANGE_KIND_COUNT && plan->index < gp->n_exchanges[plan->kind])
			xname = gp->exchanges[plan->kind][plan->index].name;
		if (plan->message_bytes.n &&
		    (rc = lv_buffer(c, &vars[n_out++], plan, "message", message_category(plan),
		                    &plan->message_bytes, xname, occ_first, occ_last, diff)))
			goto out;
		if (edge && (rc = lv_buffer(c, &vars[n_out++], plan, "outputEdge",
		                            TSI_MEM_OUTPUT_EDGE, edge, xname, occ_first, occ_last,
		                            diff)))
			goto out;
	}
	{
		int64_t live = 0;

		for (size_t s = 0; s < c->n_steps; s++) {
			live += diff[s];
			c->steps[s].not_always_live_bytes = (uint64_t)live;
		}
	}
	gp->variables = vars;
	gp->n_variables = n_out;
	gp->always_live_bytes = always;
out:
	tsi_tile_acc_free(&acc);
	free(diff);
	return rc;
}

/* Frees the working arrays. */
static void lv_free(lv_ctx *c)
{
	free(c->steps);
	free(c->end);
	free(c->lp);
	free(c->cs);
	free(c->pool);
	free(c->stamp);
	free(c->first);
	free(c->first_read);
	free(c->lo);
	free(c->hi);
	free(c->last_def);
	free(c->handle);
}

/*
 * Builds the static step order, every variable's live interval and the
 * not-always-live bytes per step into the profile (see the file
 * comment). Linear in steps, accesses and variables.
 */
int tsi_liveness_compute(tsi_profile_builder *b)
{
	lv_ctx c;
	uint32_t *occ_first = NULL, *occ_last = NULL;
	tsi_liveness_step *steps;
	size_t nv;
	int rc;

	memset(&c, 0, sizeof(c));
	c.b = b;
	c.n_vars = b->compiled->n_vars;
	if (c.n_vars > b->core->vars.len)
		c.n_vars = (uint32_t)b->core->vars.len;
	c.n_programs = b->profile.n_programs;
	nv = (size_t)c.n_vars + 1;
	c.lp = calloc(c.n_programs + 1, sizeof(*c.lp));
	c.cs = calloc(b->core->compute_sets.len + 1, sizeof(*c.cs));
	c.stamp = calloc(nv, sizeof(*c.stamp));
	c.first = malloc(nv * sizeof(*c.first));
	c.first_read = calloc(nv, 1);
	c.lo = malloc(nv * sizeof(*c.lo));
	c.hi = malloc(nv * sizeof(*c.hi));
	c.last_def = malloc(nv * sizeof(*c.last_def));
	c.handle = calloc(nv, 1);
	occ_first = malloc((c.n_programs + 1) * sizeof(*occ_first));
	occ_last = malloc((c.n_programs + 1) * sizeof(*occ_last));
	if (!c.lp || !c.cs || !c.stamp || !c.first || !c.first_read || !c.lo || !c.hi ||
	    !c.last_def || !c.handle || !occ_first || !occ_last) {
		rc = TSI_ERR_NO_MEMORY;
		goto out;
	}
	memset(c.first, 0xff, nv * sizeof(*c.first));
	memset(c.lo, 0xff, nv * sizeof(*c.lo));
	memset(c.hi, 0xff, nv * sizeof(*c.hi));
	memset(c.last_def, 0xff, nv * sizeof(*c.last_def));
	memset(occ_first, 0xff, (c.n_programs + 1) * sizeof(*occ_first));
	memset(occ_last, 0xff, (c.n_programs + 1) * sizeof(*occ_last));

	rc = lv_walk(&c);
	if (!rc)
		rc = lv_sweep(&c, occ_first, occ_last);
	if (!rc) {
		lv_mark_handles(&c);
		rc = lv_results(&c, occ_first, occ_last);
	}
	if (rc)
		goto out;
	steps = tsi_arena_alloc(&b->arena, (c.n_steps + 1) * sizeof(*steps));
	if (!steps) {
		rc = TSI_ERR_NO_MEMORY;
		goto out;
	}
	if (c.n_steps)
		memcpy(steps, c.steps, c.n_steps * sizeof(*steps));
	b->profile.liveness = steps;
	b->profile.n_liveness = c.n_steps;
out:
	if (rc == TSI_ERR_NO_MEMORY)
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory computing liveness");
	free(occ_first);
	free(occ_last);
	lv_free(&c);
	return rc;
}
