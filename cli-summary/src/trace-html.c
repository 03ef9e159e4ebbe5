/*
 * The page of `tilescope trace --format=html` (html.h's writer): the
 * view's spans by label (a sortable table and a bar chart), its call
 * tree (nested <details>, readable without JavaScript), its threads, and
 * a timeline of each thread.
 *
 * Every figure shown is a figure of the embedded document (the JSON of
 * `--format=json --call-tree` for the same arguments) and points into it
 * with data-json; times are shown as that document has them, exact
 * nanoseconds, the call tree adds them in ms / us beside. The timeline
 * reads its spans through reportlib's level of detail
 * (tsr_trace_list_events at the width of one chart column), so a thread
 * of millions of spans costs a few thousand items, never a walk of the
 * trace: a run of narrow spans comes back as one item that says how many
 * it stands for.
 */
#include "cli.h"
#include "html.h"
#include "trace-view.h"

#include <tilescope/numfmt.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows of the labels and threads tables, and paths of the call tree,
 * shown at most; the rest are in the embedded document (the page says
 * so). */
#define MAX_ROWS 2000
#define MAX_TREE_NODES 1000
/* Labels in the bar chart of total time. */
#define MAX_BARS 20
/* Columns the timeline asks reportlib for: one item per column and
 * depth at most, where the spans are narrower than a column. The lanes
 * chart (html-chart.c) folds what is narrower than one of its 600
 * columns into a mark counting the items it was given; an item that
 * stands for many spans is made a column wide so that it stays a mark of
 * its own, saying how many. */
#define TIMELINE_COLUMNS 600

/* A JSON pointer being built: "/call_tree/roots/0/children/2", grown and
 * cut back as the call tree is walked. */
typedef struct pointer {
	char *s;
	size_t len, cap;
	bool failed; /* out of memory: pointers are left off */
} pointer;

/* Appends "/KEY/INDEX" (index SIZE_MAX: "/KEY" only) to `p`. */
static void pointer_push(pointer *p, const char *key, size_t index)
{
	char part[64];
	int n = index == SIZE_MAX ? snprintf(part, sizeof(part), "/%s", key)
	                          : snprintf(part, sizeof(part), "/%s/%zu", key, index);

	if (p->failed)
		return;
	if (p->len + (size_t)n + 1 > p->cap) {
		size_t cap = (p->len + (size_t)n + 1) * 2;
		char *s = realloc(p->s, cap);

		if (!s) {
			p->failed = true;
			return;
		}
		p->s = s;
		p->cap = cap;
	}
	memcpy(p->s + p->len, part, (size_t)n + 1);
	p->len += (size_t)n;
}

/* `p` with "/FIELD" added, in buf (NULL when it does not fit). */
static const char *pointer_field(char *buf, size_t size, const pointer *p, const char *field)
{
	if (p->failed || (size_t)snprintf(buf, size, "%s/%s", p->s, field) >= size)
		return NULL;
	return buf;
}

/* <span data-json="POINTER">TEXT</span>, both escaped (the pointer is
 * made of keys and indexes, the text may be a name from the file). */
static void put_figure(cli_html *h, const char *ptr, const char *text)
{
	if (ptr) {
		cli_html_raw(h, "<span data-json=\"");
		cli_html_textf(h, "%s", ptr);
		cli_html_raw(h, "\">");
	} else {
		cli_html_raw(h, "<span>");
	}
	cli_html_textf(h, "%s", text ? text : "?");
	cli_html_raw(h, "</span>");
}

/* The name of channel index `c` ("?" past the end), as the JSON has it. */
static const char *channel_name(const trace_view *v, uint32_t c)
{
	return c < v->n_channels ? v->channels[c].name : "?";
}

/* The window the view covers on the trace's axis: --from / --to, or the
 * whole trace. */
static void view_window(const trace_view *v, int64_t *from, int64_t *to)
{
	*from = v->windowed && v->from_ns != INT64_MIN ? v->from_ns : v->info->start_ns;
	/* The end is inclusive: a span of no length at the end is in. */
	*to = v->windowed && v->to_ns != INT64_MAX ? v->to_ns : v->info->end_ns + 1;
	if (*to <= *from)
		*to = *from + 1;
}

/* --- Labels -------------------------------------------------------------------------- */

/* A time of the document's in ns in a table cell, exact, pointing at it. */
static void cell_ns(cli_html *h, uint64_t ns, size_t i, const char *field)
{
	char ptr[64];

	snprintf(ptr, sizeof(ptr), "/labels/%zu/%s", i, field);
	cli_html_cell_u64(h, ns, ptr);
}

/* The table of the labels the document lists (the first MAX_ROWS), and
 * a bar chart of the total time of the first MAX_BARS. */
static void labels_section(cli_html *h, const trace_view *v, size_t shown, const char *sort)
{
	static const char *const headers[] = {"channel", "name", "count", "total (ns)",
	                                      "self (ns)", "mean (ns)", "median (ns)", "min (ns)",
	                                      "max (ns)"};
	static const bool numeric[] = {false, false, true, true, true, true, true, true, true};
	const char *bar_labels[MAX_BARS];
	double bar_values[MAX_BARS];
	char caption[160], ptr[64], num[TSB_NUMBER_MAX], nb[TSB_NUMBER_MAX];
	size_t rows = shown < MAX_ROWS ? shown : MAX_ROWS, bars = shown < MAX_BARS ? shown : MAX_BARS;

	cli_html_section_begin(h, "labels", "Spans by label");
	cli_html_textf(h, "%s spans in the view, %zu labels, by %s", tsb_format_u64(nb, sizeof(nb), v->totals->spans), v->n_labels, sort);
	for (size_t i = 0; i < bars; i++) {
		bar_labels[i] = tsr_trace_get_name(v->trace, v->labels[i].name);
		bar_values[i] = (double)v->labels[i].total_ns;
	}
	if (bars > 0) {
		snprintf(caption, sizeof(caption), "Total time of the first %zu labels by %s", bars,
		         sort);
		cli_html_chart_bars(h, "label-totals", caption,
		                    "The total time of the spans of each label, the labels in the "
		                    "table's order.",
		                    CLI_HTML_NS, bar_labels, bar_values, bars);
	}
	snprintf(caption, sizeof(caption), "Spans by label (by %s)", sort);
	cli_html_table_begin(h, caption, 9, headers, numeric);
	for (size_t i = 0; i < rows; i++) {
		const tsr_trace_label_stat *s = &v->labels[i];

		cli_html_row_begin(h);
		snprintf(ptr, sizeof(ptr), "/labels/%zu/channel", i);
		cli_html_cell(h, channel_name(v, s->channel), ptr);
		snprintf(ptr, sizeof(ptr), "/labels/%zu/name", i);
		cli_html_cell(h, tsr_trace_get_name(v->trace, s->name), ptr);
		snprintf(ptr, sizeof(ptr), "/labels/%zu/count", i);
		cli_html_cell_u64(h, s->count, ptr);
		cell_ns(h, s->total_ns, i, "total_ns");
		cell_ns(h, s->self_ns, i, "self_ns");
		snprintf(ptr, sizeof(ptr), "/labels/%zu/mean_ns", i);
		/* A whole mean is an integer in the document (cJSON writes it so). */
		cli_html_cell_num(h, s->mean_ns == floor(s->mean_ns) && s->mean_ns < 1e18
		                         ? tsb_format_u64(num, sizeof(num), (uint64_t)s->mean_ns)
		                         : tsb_format_tenths(num, sizeof(num), s->mean_ns),
		                  s->mean_ns, ptr);
		if (v->median)
			cell_ns(h, s->median_ns, i, "median_ns");
		else
			cli_html_cell_num(h, "-", 0, NULL);
		cell_ns(h, s->min_ns, i, "min_ns");
		cell_ns(h, s->max_ns, i, "max_ns");
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	if (rows < shown)
		cli_html_textf(h, "The first %zu of %zu labels; the embedded document has them all.",
		               rows, shown);
	cli_html_section_end(h);
}

/* --- Call tree ----------------------------------------------------------------------- */

/* Node `i` of the call tree as an <li>, its children in a <ul> under a
 * <details> (open for the first two levels), while *left nodes may be
 * shown. `p` is the node's pointer; it comes back as it was. */
static void tree_node(cli_html *h, const trace_view *v, size_t i, pointer *p, size_t *left)
{
	const tsr_trace_call_node *nd = &v->tree->nodes[i];
	char ptr[4096], num[TSB_NUMBER_MAX], dur[32];
	size_t len = p->len;

	(*left)--;
	cli_html_raw(h, nd->n_children ? (nd->depth < 2 ? "<li><details open><summary>"
	                                                : "<li><details><summary>")
	                                : "<li>");
	cli_html_raw(h, "<strong>");
	put_figure(h, pointer_field(ptr, sizeof(ptr), p, "name"),
	           tsr_trace_get_name(v->trace, nd->name));
	cli_html_raw(h, "</strong> ");
	put_figure(h, pointer_field(ptr, sizeof(ptr), p, "inclusive_ns"),
	           tsb_format_u64(num, sizeof(num), nd->inclusive_ns));
	cli_html_textf(h, " ns (%s) inclusive, ",
	               tsb_format_duration(dur, sizeof(dur), (double)nd->inclusive_ns,
	                                   TSB_DURATION_MICRO));
	put_figure(h, pointer_field(ptr, sizeof(ptr), p, "exclusive_ns"),
	           tsb_format_u64(num, sizeof(num), nd->exclusive_ns));
	cli_html_textf(h, " ns (%s) self, ",
	               tsb_format_duration(dur, sizeof(dur), (double)nd->exclusive_ns,
	                                   TSB_DURATION_MICRO));
	put_figure(h, pointer_field(ptr, sizeof(ptr), p, "count"),
	           tsb_format_u64(num, sizeof(num), nd->count));
	cli_html_textf(h, " span%s, channel ", nd->count == 1 ? "" : "s");
	put_figure(h, pointer_field(ptr, sizeof(ptr), p, "channel"), channel_name(v, nd->channel));
	if (nd->n_children) {
		cli_html_raw(h, "</summary><ul>");
		for (size_t k = 0; k < nd->n_children && *left > 0; k++) {
			pointer_push(p, "children", k);
			tree_node(h, v, nd->first_child + k, p, left);
			p->len = len;
			if (!p->failed)
				p->s[len] = '\0';
		}
		cli_html_raw(h, "</ul></details>");
	}
	cli_html_raw(h, "</li>\n");
}

/* The call tree: its first MAX_TREE_NODES paths depth first. */
static void tree_section(cli_html *h, const trace_view *v)
{
	pointer p = {0};
	size_t left = MAX_TREE_NODES;
	char a[TSB_NUMBER_MAX], b[TSB_NUMBER_MAX];

	cli_html_section_begin(h, "call-tree", "Call tree");
	cli_html_textf(h, "%s spans on %s paths of nested labels, by inclusive time.",
	               tsb_format_u64(a, sizeof(a), v->tree->spans),
	               tsb_format_u64(b, sizeof(b), v->tree->n_nodes));
	cli_html_raw(h, "<ul>");
	for (size_t r = 0; r < v->tree->n_roots && left > 0; r++) {
		p.len = 0;
		pointer_push(&p, "call_tree", SIZE_MAX);
		pointer_push(&p, "roots", r);
		tree_node(h, v, r, &p, &left);
	}
	cli_html_raw(h, "</ul>");
	if (v->tree->n_nodes > MAX_TREE_NODES)
		cli_html_textf(h, "The first %d of %zu paths, depth first; the embedded document has "
		               "them all.", MAX_TREE_NODES, v->tree->n_nodes);
	free(p.s);
	cli_html_section_end(h);
}

/* --- Threads ------------------------------------------------------------------------- */

/* The threads of the view (the document's "threads"). */
static void threads_section(cli_html *h, const trace_view *v)
{
	static const char *const headers[] = {"index", "process", "thread", "tid", "spans",
	                                      "busy (ns)", "first (ns)", "last (ns)"};
	static const bool numeric[] = {true, false, false, true, true, true, true, true};
	char ptr[64];
	size_t k = 0;

	cli_html_section_begin(h, "threads", "Threads");
	cli_html_table_begin(h, "Spans and busy time by thread", 8, headers, numeric);
	for (size_t t = 0; t < v->n_threads && k < MAX_ROWS; t++) {
		const tsr_trace_thread *th = &v->threads[t];
		bool any = th->events > 0 || th->first_ns != th->last_ns;

		if (v->thread >= 0 && (size_t)v->thread != t)
			continue;
		cli_html_row_begin(h);
		snprintf(ptr, sizeof(ptr), "/threads/%zu/thread", k);
		cli_html_cell_u64(h, t, ptr);
		snprintf(ptr, sizeof(ptr), "/processes/%zu/name", th->process);
		cli_html_cell(h, th->process < v->n_procs ? v->procs[th->process].name : "?",
		              th->process < v->n_procs && v->procs[th->process].name ? ptr : NULL);
		snprintf(ptr, sizeof(ptr), "/threads/%zu/name", k);
		cli_html_cell(h, th->name, th->name ? ptr : NULL);
		snprintf(ptr, sizeof(ptr), "/threads/%zu/tid", k);
		cli_html_cell_i64(h, th->tid, ptr);
		snprintf(ptr, sizeof(ptr), "/threads/%zu/spans", k);
		cli_html_cell_u64(h, v->totals->threads[t].spans, ptr);
		snprintf(ptr, sizeof(ptr), "/threads/%zu/busy_ns", k);
		cli_html_cell_u64(h, v->totals->threads[t].busy_ns, ptr);
		if (any) {
			snprintf(ptr, sizeof(ptr), "/threads/%zu/first_ns", k);
			cli_html_cell_i64(h, th->first_ns, ptr);
			snprintf(ptr, sizeof(ptr), "/threads/%zu/last_ns", k);
			cli_html_cell_i64(h, th->last_ns, ptr);
		} else {
			cli_html_cell_num(h, "-", 0, NULL);
			cli_html_cell_num(h, "-", 0, NULL);
		}
		cli_html_row_end(h);
		k++;
	}
	cli_html_table_end(h);
	cli_html_section_end(h);
}

/* --- Timeline ------------------------------------------------------------------------ */

/* What the timeline draws: its lanes and spans, and the strings made
 * for them (owned here). */
typedef struct lanes {
	cli_html_span *spans;
	size_t n, cap;
	const char **names; /* per lane */
	size_t n_lanes, cap_lanes;
	char **owned;
	size_t n_owned, cap_owned;
} lanes;

/* Array `a` of *cap elements of `size` bytes, grown to hold n + 1: the
 * array (maybe moved), or NULL when out of memory (`a` kept). */
static void *grow(void *a, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;

	if (n < *cap)
		return a;
	if (!(a = realloc(a, c * size)))
		return NULL;
	*cap = c;
	return a;
}

/* Keeps `s` (may be NULL: out of memory) to free with the lanes;
 * returns it, or NULL (s freed) when out of memory. */
static char *lanes_own(lanes *l, char *s)
{
	char **owned = s ? grow(l->owned, &l->cap_owned, l->n_owned, sizeof(*owned)) : NULL;

	if (!owned) {
		free(s);
		return NULL;
	}
	l->owned = owned;
	return owned[l->n_owned++] = s;
}

static void lanes_free(lanes *l)
{
	for (size_t i = 0; i < l->n_owned; i++)
		free(l->owned[i]);
	free(l->owned);
	free(l->spans);
	free(l->names);
}

/* a, b and c joined into a malloc'd string; NULL when out of memory. */
static char *join3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = malloc(la + lb + lc + 1);

	if (s) {
		memcpy(s, a, la);
		memcpy(s + la, b, lb);
		memcpy(s + la + lb, c, lc + 1);
	}
	return s;
}

/* The label of an item narrower than a column, which the timeline
 * widens: one span's name and its own duration, or how many spans the
 * item stands for and the name reportlib gives it (the longest's, or the
 * one covering most time). */
static char *narrow_label(const trace_view *v, const tsr_trace_item *it)
{
	const char *name = it->name == TSR_TRACE_NO_NAME ? NULL : tsr_trace_get_name(v->trace, it->name);
	char count[TSB_NUMBER_MAX], head[TSB_NUMBER_MAX + 8], dur[32];

	if (it->count == 1)
		return join3(name ? name : "?", ", ",
		             tsb_format_duration(dur, sizeof(dur), (double)(it->end_ns - it->start_ns),
		                                 TSB_DURATION_MICRO));
	snprintf(head, sizeof(head), "%s spans", tsb_format_u64(count, sizeof(count), it->count));
	return join3(head, name ? ", mostly " : "", name ? name : "");
}

/* Lanes a thread's spans take at most: one per depth, the last also
 * for the deeper ones. */
#define MAX_DEPTH_LANES 4

/* The lanes of thread `t` for the depths its `items` have: the thread's
 * name for the outermost spans, then "depth N of NAME" for each nested
 * depth there is (the last "depth N+ of NAME"), in lane_of[depth]. False
 * when out of memory. */
static bool thread_lanes(lanes *l, const trace_view *v, size_t t, const tsr_trace_item *items,
                         size_t n, uint32_t lane_of[MAX_DEPTH_LANES])
{
	const char *name = v->threads[t].name ? v->threads[t].name : "?";
	bool present[MAX_DEPTH_LANES] = {true};
	const char **names;

	for (size_t i = 0; i < n; i++)
		present[items[i].depth < MAX_DEPTH_LANES ? items[i].depth : MAX_DEPTH_LANES - 1] = true;
	for (uint32_t d = 0; d < MAX_DEPTH_LANES; d++) {
		char head[32];
		const char *lane = name;

		if (!present[d])
			continue;
		if (d > 0) {
			snprintf(head, sizeof(head), "depth %u%s of ", d, d == MAX_DEPTH_LANES - 1 ? "+" : "");
			if (!(lane = lanes_own(l, join3(head, name, ""))))
				return false;
		}
		if (!(names = grow(l->names, &l->cap_lanes, l->n_lanes, sizeof(*names))))
			return false;
		l->names = names;
		lane_of[d] = (uint32_t)l->n_lanes;
		l->names[l->n_lanes++] = lane;
	}
	return true;
}

/*
 * Joins each run of level-of-detail buckets (SUMMARY items, in time
 * order) with gaps narrower than `resolution` into one item, as
 * reportlib joins narrow decoded spans into a MERGED run: the counts
 * summed, the name of the bucket with the most busy time. A busy thread
 * is then a few marks, not one per column. Returns the items kept.
 */
static size_t join_buckets(tsr_trace_item *items, size_t n, uint64_t resolution)
{
	size_t k = 0;
	uint64_t named = 0; /* busy time of the bucket whose name the run has */

	for (size_t i = 0; i < n; i++) {
		tsr_trace_item *run = k ? &items[k - 1] : NULL;

		if (run && run->kind == TSR_TRACE_ITEM_SUMMARY &&
		    items[i].kind == TSR_TRACE_ITEM_SUMMARY &&
		    items[i].start_ns - run->end_ns < (int64_t)resolution) {
			if (items[i].busy_ns > named) {
				run->name = items[i].name;
				named = items[i].busy_ns;
			}
			run->end_ns = items[i].end_ns > run->end_ns ? items[i].end_ns : run->end_ns;
			run->count += items[i].count;
			run->busy_ns += items[i].busy_ns;
		} else {
			items[k++] = items[i];
			named = items[i].busy_ns;
		}
	}
	return k;
}

/* Spans the timeline decodes one by one at most, over all its threads;
 * past that a thread is read from the level of detail. reportlib's
 * default per call, so one thread costs what it costs the System
 * Analyser, and 64 threads of 156,000 spans each do not decode 10 M. */
#define TIMELINE_DECODE_BUDGET 262144

/* Reads the items of each thread of the view at the timeline's
 * resolution into `l`, a lane per thread and depth. Errors are printed. */
static int timeline_items(lanes *l, const trace_view *v, int64_t from, int64_t to)
{
	uint64_t resolution = (uint64_t)(to - from) / TIMELINE_COLUMNS;
	size_t threads = v->thread >= 0 ? 1 : v->n_threads;

	resolution = resolution ? resolution : 1;
	if (tsr_trace_set_decode_budget(v->trace, threads > 64 ? TIMELINE_DECODE_BUDGET / 64
	                                          : TIMELINE_DECODE_BUDGET / (threads ? threads : 1)) !=
	    TSR_OK)
		return cli_trace_fail(v->trace);
	for (size_t t = 0; t < v->n_threads; t++) {
		tsr_trace_item *items = NULL;
		size_t n = 0;
		uint32_t lane_of[MAX_DEPTH_LANES];
		cli_html_span *spans;

		if (v->thread >= 0 && (size_t)v->thread != t)
			continue;
		if (tsr_trace_list_events(&items, &n, v->trace, t, from, to, resolution) != TSR_OK)
			return cli_trace_fail(v->trace);
		n = join_buckets(items, n, resolution);
		if (!thread_lanes(l, v, t, items, n, lane_of)) {
			free(items);
			return cli_error("out of memory");
		}
		for (size_t i = 0; i < n; i++) {
			const tsr_trace_item *it = &items[i];
			/* Within the window, so that the chart's columns are no wider
			 * than the resolution. */
			int64_t start = it->start_ns > from ? it->start_ns : from;
			int64_t end = it->end_ns < to ? it->end_ns : to;
			cli_html_span s = {0, 0, NULL, lane_of[it->depth < MAX_DEPTH_LANES
			                                           ? it->depth
			                                           : MAX_DEPTH_LANES - 1], NULL};

			if (end < start)
				end = start;
			if (it->kind == TSR_TRACE_ITEM_EVENT && (uint64_t)(end - start) >= resolution) {
				s.label = tsr_trace_get_name(v->trace, it->name);
				s.label = s.label ? s.label : "?";
			} else {
				s.label = lanes_own(l, narrow_label(v, it));
				if ((uint64_t)(end - start) < resolution) {
					end = start + (int64_t)resolution;
					if (end > to) {
						end = to;
						start = to - (int64_t)resolution;
					}
				}
			}
			s.start = (double)(start - v->info->start_ns);
			s.end = (double)(end - v->info->start_ns);
			if (!s.label) {
				free(items);
				return cli_error("out of memory");
			}
			if (!(spans = grow(l->spans, &l->cap, l->n, sizeof(*spans)))) {
				free(items);
				return cli_error("out of memory");
			}
			l->spans = spans;
			spans[l->n++] = s;
		}
		free(items);
	}
	return CLI_EXIT_OK;
}

/* The timeline of each thread of the view. */
static int timeline_section(cli_html *h, const trace_view *v)
{
	lanes l = {0};
	int64_t from, to;
	int status;

	view_window(v, &from, &to);
	status = timeline_items(&l, v, from, to);
	if (status == CLI_EXIT_OK) {
		cli_html_section_begin(h, "timeline", "Timeline");
		cli_html_chart_lanes(h, "timeline", "Spans of each thread over time",
		                     "One lane per thread for its outermost spans, one under it per "
		                     "depth of nested spans; time after the trace's first event. Where "
		                     "spans are narrower than a column, one mark says how many there "
		                     "are.",
		                     CLI_HTML_NS, l.names, l.n_lanes, l.spans, l.n);
		cli_html_section_end(h);
	}
	lanes_free(&l);
	return status;
}

/* --- The page ------------------------------------------------------------------------ */

/* The overview: what the trace holds and what the view takes. */
static void overview_section(cli_html *h, const trace_view *v)
{
	char num[TSB_NUMBER_MAX], ptr[64];

	cli_html_figures_begin(h, "Trace");
	cli_html_figure(h, "Files", tsb_format_u64(num, sizeof(num), v->n_procs), "/trace/files");
	cli_html_figure(h, "Threads", tsb_format_u64(num, sizeof(num), v->n_threads),
	                "/trace/threads");
	cli_html_figure(h, "Spans", tsb_format_u64(num, sizeof(num), v->info->events),
	                "/trace/spans");
	cli_html_figure(h, "Spans in the statistics", tsb_format_u64(num, sizeof(num),
	                v->totals->spans), "/spans");
	cli_html_figure(h, "Start (ns)", tsb_format_i64(num, sizeof(num), v->info->start_ns),
	                "/trace/start_ns");
	cli_html_figure(h, "End (ns)", tsb_format_i64(num, sizeof(num), v->info->end_ns),
	                "/trace/end_ns");
	for (size_t p = 0; p < v->n_procs && p < MAX_ROWS; p++) {
		snprintf(ptr, sizeof(ptr), "/processes/%zu/path", p);
		cli_html_figure(h, "File", v->procs[p].path, ptr);
	}
	cli_html_figures_end(h);
}

int cli_trace_html(FILE *out, trace_view *v, const char *json, const char *sort, size_t top)
{
	char title[256], subtitle[512], dur[32], a[32], b[32];
	size_t shown = top && top < v->n_labels ? top : v->n_labels;
	cli_html *h;
	int status;

	snprintf(title, sizeof(title), "Trace of %s",
	         v->n_procs > 0 && v->procs[0].name ? v->procs[0].name : "?");
	tsb_format_duration(dur, sizeof(dur), (double)(v->info->end_ns - v->info->start_ns),
	                    TSB_DURATION_MICRO);
	if (v->windowed)
		snprintf(subtitle, sizeof(subtitle),
		         "%zu file%s, %zu thread%s, %s; statistics of the spans starting from %s to %s "
		         "after the first event",
		         v->n_procs, v->n_procs == 1 ? "" : "s", v->n_threads,
		         v->n_threads == 1 ? "" : "s", dur,
		         tsb_format_duration(a, sizeof(a),
		                             v->from_ns == INT64_MIN
		                                 ? 0.0
		                                 : (double)(v->from_ns - v->info->start_ns),
		                             TSB_DURATION_MICRO),
		         v->to_ns == INT64_MAX
		             ? "the end"
		             : tsb_format_duration(b, sizeof(b), (double)(v->to_ns - v->info->start_ns),
		                                   TSB_DURATION_MICRO));
	else
		snprintf(subtitle, sizeof(subtitle), "%zu file%s, %zu thread%s, %s", v->n_procs,
		         v->n_procs == 1 ? "" : "s", v->n_threads, v->n_threads == 1 ? "" : "s", dur);
	if (v->thread >= 0)
		snprintf(subtitle + strlen(subtitle), sizeof(subtitle) - strlen(subtitle),
		         "; thread %" PRId64 " (%s)", v->thread,
		         v->threads[v->thread].name ? v->threads[v->thread].name : "?");
	h = cli_html_begin(out, title, subtitle);
	if (!h)
		return cli_error("out of memory");
	overview_section(h, v);
	labels_section(h, v, shown, sort);
	tree_section(h, v);
	threads_section(h, v);
	status = timeline_section(h, v);
	if (cli_html_end(h, json) != 0 && status == CLI_EXIT_OK)
		status = cli_error("%s: the page could not be written (out of memory or a failed write)",
		                   "--format=html");
	return status;
}
