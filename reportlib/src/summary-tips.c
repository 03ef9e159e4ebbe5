/*
 * tsr_summary_figures_list_tips: the Insights' tips, written once here for
 * the Graph Analyser's Insights view and the summary page. A tip is
 * offered only when the report supports it, and always with the figure
 * it rests on. "The fullest" tile is the one with the most bytes in use
 * (excluding gaps, the lowest of tiles that tie), the ranking the
 * Insights view names everywhere; whether a tile fits is judged including
 * gaps (report.h's one gaps rule).
 */
#include <tilescope/alloc.h>
#include <tilescope/numfmt.h>
#include "summary-private.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Always-live variables named, at most. */
#define ALWAYS_LIVE_TIPS 3
/* One of each kind, ALWAYS_LIVE_TIPS of the always-live kind. */
#define MAX_TIPS (3 + ALWAYS_LIVE_TIPS)

typedef struct tips {
	tsr_summary_tip tip[MAX_TIPS];
	char *text[MAX_TIPS];          /* tsb_asprintf'd */
	size_t n;
	bool no_memory;                /* an allocation of this file failed */
} tips;

static void add(tips *t, tsr_tip_kind kind, uint64_t saving, char *text)
{
	if (!text) {
		t->no_memory = true;
		return;
	}
	t->tip[t->n] = (tsr_summary_tip){kind, saving, NULL};
	t->text[t->n++] = text;
}

/* Whether an always-live entry is a category's bytes (code, stack ...)
 * rather than a variable one could recompute. */
static bool is_category(const char *name)
{
	for (size_t c = 0; c < tsr_category_count(); c++)
		if (name && strcmp(tsr_category_name((tsr_mem_category)c), name) == 0)
			return true;
	return false;
}

/* What the out-of-memory tiles need past their memory, summed. */
static void tip_oom(tips *t, const tsr_summary_figures *s, const tsr_tile_memory *tiles,
                    size_t n_tiles)
{
	const tsr_summary_memory *all = &s->memory[0];
	uint64_t excess = 0, per_tile = s->target->bytes_per_tile;
	char e[TSB_NUMBER_MAX], n[TSB_NUMBER_MAX];

	if (!all->n_oom_tiles || !per_tile)
		return;
	for (size_t i = 0; i < all->n_oom_tiles; i++) {
		uint32_t tile = all->oom_tiles[i];
		uint64_t need = tile < n_tiles ? tsr_tile_memory_get_bytes(&tiles[tile], true) : 0;

		if (need > per_tile)
			excess += need - per_tile;
	}
	if (excess)
		add(t, TSR_TIP_OUT_OF_MEMORY, excess,
		    tsb_asprintf("To fit, move or save %s B on the %s out-of-memory tiles (the sum "
		                 "of their excesses): spread the largest tensors over more tiles, or "
		                 "split the largest operations.",
		                 tsb_format_u64(e, sizeof(e), excess),
		                 tsb_format_u64(n, sizeof(n), all->n_oom_tiles)));
}

/* The largest always-live variables first, then by name. */
static int named_desc(const void *a, const void *b)
{
	const tsr_summary_named_bytes *x = *(const tsr_summary_named_bytes *const *)a;
	const tsr_summary_named_bytes *y = *(const tsr_summary_named_bytes *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/* A large always-live variable: recomputing it instead of keeping it
 * would free its bytes for the whole program. */
static void tip_always_live(tips *t, const tsr_summary_figures *s)
{
	const tsr_summary_named_bytes **vars;
	size_t n = 0;

	if (!s->n_always_live || !s->always_live_bytes)
		return;
	vars = tsb_calloc(s->n_always_live, sizeof(*vars));
	if (!vars) {
		t->no_memory = true;
		return;
	}
	for (size_t i = 0; i < s->n_always_live; i++)
		if (!is_category(s->always_live[i].name))
			vars[n++] = &s->always_live[i];
	qsort(vars, n, sizeof(*vars), named_desc);
	for (size_t i = 0; i < n && i < ALWAYS_LIVE_TIPS; i++) {
		double share = (double)vars[i]->bytes / (double)s->always_live_bytes;
		char *name;
		char b[TSB_NUMBER_MAX], p[TSB_NUMBER_MAX];

		if (share < 0.05)
			break;
		name = tsr_summary_clean_dup(vars[i]->name);
		add(t, TSR_TIP_ALWAYS_LIVE, vars[i]->bytes,
		    name ? tsb_asprintf("\u201c%s\u201d is live throughout the program: recomputing "
		                        "it where it is needed instead of keeping it would save up to "
		                        "%s B (%s of the always-live bytes).",
		                        name, tsb_format_u64(b, sizeof(b), vars[i]->bytes),
		                        tsb_format_percent(p, sizeof(p), share))
		         : NULL);
		free(name);
	}
	free(vars);
}

/* Exchange code dominating the fullest tile. Returns the report's
 * failure. */
static int tip_exchange_code(tips *t, tsr_report *report, const tsr_tile_memory *tiles,
                             size_t n_tiles)
{
	uint32_t *fullest = NULL;
	uint64_t *code = NULL;
	size_t n_fullest = 0;
	int rc = tsr_report_list_largest_tiles(&fullest, &n_fullest, report, -1, false, 1);

	if (rc || !n_fullest || fullest[0] >= n_tiles)
		goto out;
	code = tsb_calloc(n_tiles, sizeof(*code));
	if (!code) {
		t->no_memory = true;
		goto out;
	}
	rc = tsr_report_fill_category_by_tile(code, n_tiles, report,
	                                      TSR_MEM_INTERNAL_EXCHANGE_CODE);
	if (!rc) {
		uint32_t tile = fullest[0];
		uint64_t total = tiles[tile].total;
		double share = total ? (double)code[tile] / (double)total : 0;
		char c[TSB_NUMBER_MAX], tt[TSB_NUMBER_MAX], p[TSB_NUMBER_MAX];

		if (share >= 0.2)
			add(t, TSR_TIP_EXCHANGE_CODE, code[tile],
			    tsb_asprintf("On tile %" PRIu32 ", the fullest by bytes in use (excluding "
			                 "gaps), internal exchange code takes %s B of its %s B in use "
			                 "(%s): fewer, larger exchanges, or a tensor layout that moves "
			                 "less data to this tile, would shrink it.",
			                 tile, tsb_format_u64(c, sizeof(c), code[tile]),
			                 tsb_format_u64(tt, sizeof(tt), total),
			                 tsb_format_percent(p, sizeof(p), share)));
	}
out:
	free(fullest);
	free(code);
	return rc;
}

/* Tile imbalance: balanced perfectly, a step would take its tiles' mean
 * cycles, its cycles times its tile balance. */
static void tip_imbalance(tips *t, const tsr_summary_figures *s)
{
	const tsr_summary_step *worst = NULL;
	uint64_t best = 0;
	char *name;
	char c[TSB_NUMBER_MAX], b[TSB_NUMBER_MAX], sv[TSB_NUMBER_MAX], p[TSB_NUMBER_MAX];

	if (!s->has_run || !s->activity.cycles)
		return;
	for (size_t i = 0; i < s->n_steps; i++) {
		const tsr_step *st = s->steps[i].step;
		uint64_t saving;

		if (st->type != TSR_STEP_ON_TILE_EXECUTE || !isfinite(st->tile_balance) ||
		    st->tile_balance < 0 || st->tile_balance > 1)
			continue;
		saving = (uint64_t)((double)st->cycles * (1.0 - st->tile_balance));
		if (saving > best) {
			best = saving;
			worst = &s->steps[i];
		}
	}
	if (!worst || (double)best / (double)s->activity.cycles < 0.05)
		return;
	name = tsr_summary_clean_dup(worst->name);
	add(t, TSR_TIP_IMBALANCE, best,
	    name ? tsb_asprintf("Compute set \u201c%s\u201d takes %s cycles at %s tile balance: "
	                        "spreading its work evenly over its tiles would save up to %s "
	                        "cycles (%s of the run).",
	                        name, tsb_format_u64(c, sizeof(c), worst->step->cycles),
	                        tsb_format_percent(b, sizeof(b), worst->step->tile_balance),
	                        tsb_format_u64(sv, sizeof(sv), best),
	                        tsb_format_percent(p, sizeof(p),
	                                           (double)best / (double)s->activity.cycles))
	         : NULL);
	free(name);
}

int tsr_summary_figures_list_tips(tsr_summary_tip **out, size_t *n,
                                  const tsr_summary_figures *figures)
{
	tips t = {0};
	tsr_report *report;
	const tsr_tile_memory *tiles;
	size_t n_tiles, size = 0;
	char *block, *text;
	int rc;

	if (!out || !n || !figures)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tips: no %s",
		                          figures ? "output pointer" : "figures");
	*out = NULL;
	*n = 0;
	report = tsr_summary_get_report(figures);
	rc = tsr_report_get_tile_memory(&tiles, &n_tiles, report);
	if (!rc && figures->n_memory)
		tip_oom(&t, figures, tiles, n_tiles);
	if (!rc)
		tip_always_live(&t, figures);
	if (!rc)
		rc = tip_exchange_code(&t, report, tiles, n_tiles);
	if (!rc)
		tip_imbalance(&t, figures);
	/* One block: the tips, then their texts. */
	for (size_t i = 0; i < t.n; i++)
		size += strlen(t.text[i]) + 1;
	block = rc || t.no_memory || !t.n ? NULL
	                                  : tsb_malloc(t.n * sizeof(tsr_summary_tip) + size);
	if (!rc && t.n && !block)
		t.no_memory = true;
	if (block) {
		text = block + t.n * sizeof(tsr_summary_tip);
		for (size_t i = 0; i < t.n; i++) {
			size_t len = strlen(t.text[i]) + 1;

			memcpy(text, t.text[i], len);
			t.tip[i].text = text;
			text += len;
		}
		memcpy(block, t.tip, t.n * sizeof(tsr_summary_tip));
		*out = (tsr_summary_tip *)(void *)block;
		*n = t.n;
	}
	for (size_t i = 0; i < t.n; i++)
		free(t.text[i]);
	if (!rc && t.no_memory)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "tips: out of memory");
	return rc;
}
