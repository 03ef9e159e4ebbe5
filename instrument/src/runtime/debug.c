/*
 * Debug contexts (Poplar's DebugContext / DebugInfo): the tree of named
 * scopes that says which operation or model layer made each variable,
 * compute set and program. The contexts and the stack of open ones live in
 * the graph core, so a virtual or replicated graph shares its parent's:
 * an operation on a virtual graph opened inside a layer of the top-level
 * graph is that layer's child. Contexts are never removed; closing one only
 * takes it off the stack, and the compiler copies the whole list into the
 * graph profile (tsi_graph_profile.debug_contexts).
 */
#include "../ipu-private.h"

#include <tilescope/utf8.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A copy of `s` in the arena as well-formed UTF-8: each byte that does
 * not start a well-formed sequence becomes U+FFFD. debug.cbor holds the
 * names as CBOR text strings, which must be UTF-8 (RFC 8949 3.1), and
 * reportlib checks them against profile.pop's: one copy made here keeps
 * the two files equal whatever bytes the model gave.
 */
static char *arena_strdup_utf8(tsi_arena *arena, const char *s)
{
	size_t n = strlen(s), bad = 0, i, len;
	char *out, *o;

	for (i = 0; i < n; i += len ? len : 1) {
		len = tsb_utf8_decode((const unsigned char *)s + i, n - i, NULL);
		bad += !len;
	}
	if (!bad)
		return tsi_arena_strdup(arena, s);
	if (bad > (SIZE_MAX - n - 1) / 2)
		return NULL;
	out = o = tsi_arena_alloc(arena, n + 2 * bad + 1);
	if (!out)
		return NULL;
	for (i = 0; i < n; i += len ? len : 1) {
		len = tsb_utf8_decode((const unsigned char *)s + i, n - i, NULL);
		if (len) {
			memcpy(o, s + i, len);
			o += len;
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Opens a context as a child of the innermost open one and makes it the
 * innermost. The strings are copied into the graph's arena, which lives as
 * long as the graph; ids are handed out in creation order, so a parent's
 * id is always below its child's.
 */
tsi_debug_id tsi_debug_push_api(tsi_graph *graph, /* any graph of the core */
                                const char *name,  /* NULL: "unnamed" */
                                const char *layer, /* NULL: "user" */
                                const char *api)   /* NULL: none */
{
	tsi_graph_core *core;
	tsi_debug_context *ctx;

	if (!graph)
		return 0;
	core = graph->core;
	if (core->debug_contexts.len >= UINT32_MAX - 1)
		goto oom;
	if (core->n_debug_stack == core->cap_debug_stack) {
		size_t cap = core->cap_debug_stack ? core->cap_debug_stack * 2 : 16;
		uint32_t *stack = realloc(core->debug_stack, cap * sizeof(*stack));

		if (!stack)
			goto oom;
		core->debug_stack = stack;
		core->cap_debug_stack = cap;
	}
	ctx = tsi_arena_alloc(&core->arena, sizeof(*ctx));
	if (!ctx)
		goto oom;
	ctx->id = (uint32_t)core->debug_contexts.len + 1;
	ctx->parent = tsi_debug_current(graph);
	ctx->name = arena_strdup_utf8(&core->arena, name ? name : "unnamed");
	ctx->layer = arena_strdup_utf8(&core->arena, layer ? layer : "user");
	ctx->api = api ? arena_strdup_utf8(&core->arena, api) : NULL;
	/* A model's context extends the path; an operation's keeps its
	 * parent's, as operations already put their own name in what they
	 * make ("logits/Partials"). */
	{
		const tsi_debug_context *parent =
		    ctx->parent ? core->debug_contexts.items[ctx->parent - 1] : NULL;
		const char *up = parent ? parent->path : NULL;

		if (api)
			ctx->path = up;
		else if (up)
			ctx->path = tsi_arena_printf(&core->arena, "%s/%s", up, ctx->name);
		else
			ctx->path = ctx->name;
		if (!api && !ctx->path)
			goto oom;
	}
	if (!ctx->name || !ctx->layer || (api && !ctx->api) ||
	    tsi_vec_push(&core->debug_contexts, ctx))
		goto oom;
	core->debug_stack[core->n_debug_stack++] = ctx->id;
	return ctx->id;
oom:
	tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory opening debug context '%s'",
	               name ? name : "unnamed");
	return 0;
}

/* The public form: a model's own context has no API name. */
TSI_API tsi_debug_id tsi_debug_push(tsi_graph *graph, const char *name, const char *layer)
{
	return tsi_debug_push_api(graph, name, layer, NULL);
}

/*
 * Closes the innermost context. Anything else is a bug in the caller
 * (usually a missed pop on an error path); ignoring it keeps the stack
 * matching the contexts that really are open, and the log says which.
 */
TSI_API void tsi_debug_pop(tsi_graph *graph, tsi_debug_id id)
{
	tsi_graph_core *core;
	tsi_debug_id top;

	if (!graph)
		return;
	core = graph->core;
	top = tsi_debug_current(graph);
	if (id == 0 || id != top) {
		const tsi_debug_context *ctx =
		    id && id <= core->debug_contexts.len ? core->debug_contexts.items[id - 1] : NULL;

		tsi_log(TSI_LOG_WARN, "GRAPH",
		        "tsi_debug_pop: debug context %u%s%s%s is not the innermost open one (%u); "
		        "ignored",
		        id, ctx ? " '" : "", ctx ? ctx->name : "", ctx ? "'" : "", top);
		return;
	}
	core->n_debug_stack--;
}

TSI_API tsi_debug_id tsi_debug_current(const tsi_graph *graph)
{
	if (!graph || !graph->core->n_debug_stack)
		return 0;
	return graph->core->debug_stack[graph->core->n_debug_stack - 1];
}

/*
 * The name of something made inside context `id`, with the path of the
 * model's contexts in front, so that reports (step lists, diffs) tell
 * fc1's matmul from fc2's as Poplar's debug names do.
 */
const char *tsi_debug_qualify(tsi_graph *graph, tsi_debug_id id, const char *name)
{
	tsi_graph_core *core;
	const tsi_debug_context *ctx;

	if (!graph || !name)
		return NULL;
	core = graph->core;
	ctx = id && id <= core->debug_contexts.len ? core->debug_contexts.items[id - 1] : NULL;
	if (!ctx || !ctx->path)
		return tsi_arena_strdup(&core->arena, name);
	return tsi_arena_printf(&core->arena, "%s/%s", ctx->path, name);
}

/* The contexts themselves are arena memory, freed with it. */
void tsi_debug_clear(tsi_graph_core *core)
{
	if (!core)
		return;
	tsi_vec_clear(&core->debug_contexts);
	free(core->debug_stack);
	core->debug_stack = NULL;
	core->n_debug_stack = 0;
	core->cap_debug_stack = 0;
}
