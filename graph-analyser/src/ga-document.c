/*
 * Loading a report for the Graph Analyser (ga-document.h): reportlib's
 * open with its progress callback, then the figures every view shows, all
 * in one worker (tsd-load.h); the main thread gets a finished document or
 * reportlib's one-line message.
 */
#include "ga-document.h"

#include <tilescope/tsd-load.h>

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>

/* One malloc arena for the process, set before main() so that no thread
 * has made its own yet. glibc gives each thread an arena of its own and
 * a worker's (Insights' scope jobs, the trace's tile index, Liveness'
 * curves) keeps its pages once the job frees them, where neither the
 * main thread nor the next worker reuses them: on the large model's
 * report the peak RSS after every view read 423 MB, 392 MB in one arena
 * (malloc_trim after each job did not lower it: what stays is live data
 * and part-used pages spread over the arenas). */
__attribute__((constructor)) static void one_arena(void)
{
	mallopt(M_ARENA_MAX, 1);
}
#endif

/* Allocated with g_atomic_rc_box_new0: the box holds the reference count. */
struct _GaDocument {
	GFile *file;                  /* the profile.pop */
	char *title;
	tsr_report *report;
	tsr_summary_figures *figures;
	const tsr_tile_memory *tiles; /* borrowed from the report */
	size_t n_tiles;
	uint64_t **category_by_tile;  /* tsr_category_count() rows of n_tiles, NULL rows: empty */
	size_t n_categories;
	uint64_t *always_live_by_tile; /* n_tiles */
	ga_program_cost **program_costs; /* n_runs rows of the programs' count */
	size_t n_runs;
	tsr_operation **operations;   /* n_runs + 1 lists: without costs, then run 0 ... */
	size_t n_operations;
	ga_operation_extra *operation_extras; /* n_operations */
	double load_seconds;
	tsr_comparison *comparison;   /* with the base it is compared to, or NULL */
};

G_DEFINE_BOXED_TYPE(GaDocument, ga_document, ga_document_ref, ga_document_unref)

GaDocument *ga_document_ref(GaDocument *doc)
{
	return g_atomic_rc_box_acquire(doc);
}

/* What the document holds, freed with its last reference. */
static void clear(gpointer data)
{
	GaDocument *doc = data;

	for (size_t i = 0; doc->category_by_tile && i < doc->n_categories; i++)
		g_free(doc->category_by_tile[i]);
	g_free(doc->category_by_tile);
	g_free(doc->always_live_by_tile);
	for (size_t i = 0; doc->program_costs && i < doc->n_runs; i++)
		g_free(doc->program_costs[i]);
	g_free(doc->program_costs);
	for (size_t i = 0; doc->operations && i <= doc->n_runs; i++)
		free(doc->operations[i]);
	g_free(doc->operations);
	g_free(doc->operation_extras);
	tsr_comparison_free(doc->comparison);
	tsr_summary_figures_free(doc->figures);
	tsr_report_free(doc->report);
	g_clear_object(&doc->file);
	g_free(doc->title);
}

void ga_document_unref(GaDocument *doc)
{
	if (doc)
		g_atomic_rc_box_release_full(doc, clear);
}

/* --- The load ------------------------------------------------------------------- */


/* The title: an autoReport directory's name, or the file's. */
static char *make_title(GFile *file, const char *opened)
{
	g_autoptr(GFile) pop = g_file_new_for_path(opened);
	g_autofree char *base = g_file_get_basename(pop);

	if (g_strcmp0(base, "profile.pop") == 0) {
		g_autoptr(GFile) dir = g_file_get_parent(pop);

		if (dir)
			return g_file_get_basename(dir);
	}
	(void)file;
	return g_steal_pointer(&base);
}

/* The program ids below program `p`: its children, then a Call's function
 * body; *n of them in `buf` (grown as needed). Ids past the programs'
 * count are left out. */
static const uint32_t *below(const tsr_program *p, const uint32_t *funcs, size_t n_funcs,
                             size_t n_programs, GArray *buf, size_t *n)
{
	g_array_set_size(buf, 0);
	for (size_t i = 0; i < p->n_children; i++)
		if (p->children[i] < n_programs)
			g_array_append_val(buf, p->children[i]);
	if (p->function >= 0 && (size_t)p->function < n_funcs && funcs[p->function] < n_programs)
		g_array_append_val(buf, funcs[p->function]);
	*n = buf->len;
	return (const uint32_t *)(void *)buf->data;
}

/* The cost of every program in one run: each step's cycles on its
 * program, then every program's subtree summed with an explicit stack (a
 * hostile file may nest deeply or make a cycle: a program met again on
 * its own path adds nothing). */
static int fill_program_costs(ga_program_cost *cost, tsr_report *r, size_t run)
{
	const tsr_program *progs;
	const tsr_step *steps;
	const uint32_t *funcs;
	size_t n_progs, n_steps, n_funcs, n;
	g_autofree uint8_t *state = NULL;   /* 0: not seen, 1: on the stack, 2: done */
	g_autofree ga_program_cost *own = NULL;
	g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_autoptr(GArray) buf = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	int rc;

	if ((rc = tsr_report_get_programs(&progs, &n_progs, r)) ||
	    (rc = tsr_report_get_function_programs(&funcs, &n_funcs, r)) ||
	    (rc = tsr_report_get_steps(&steps, &n_steps, r, run)))
		return rc;
	own = g_new0(ga_program_cost, n_progs ? n_progs : 1);
	state = g_new0(uint8_t, n_progs ? n_progs : 1);
	for (size_t i = 0; i < n_steps; i++)
		if (steps[i].program < n_progs) {
			own[steps[i].program].cycles += steps[i].cycles;
			own[steps[i].program].steps++;
		}
	for (uint32_t root = 0; root < n_progs; root++) {
		if (state[root])
			continue;
		g_array_append_val(stack, root);
		while (stack->len) {
			uint32_t p = g_array_index(stack, uint32_t, stack->len - 1);
			const uint32_t *kids = below(&progs[p], funcs, n_funcs, n_progs, buf, &n);

			if (state[p] == 0) {
				state[p] = 1;
				for (size_t k = 0; k < n; k++)
					if (state[kids[k]] == 0)
						g_array_append_val(stack, kids[k]);
				continue;
			}
			g_array_set_size(stack, stack->len - 1);
			if (state[p] == 2)
				continue;
			cost[p] = own[p];
			for (size_t k = 0; k < n; k++)
				if (state[kids[k]] == 2) {
					cost[p].cycles += cost[kids[k]].cycles;
					cost[p].steps += cost[kids[k]].steps;
				}
			state[p] = 2;
		}
	}
	return TSR_OK;
}

/*
 * The operations without costs and with each run's (listing them scans a
 * run's steps: 90 ms for a 20,000-compute-set report, too long for the
 * main thread at every switch of run), and the figures tsr_operation
 * does not hold, from the compute sets and exchange programs each debug
 * context made, then added up into the ancestors (a parent's id is lower
 * than its child's, so one pass from the last id up suffices).
 */
static int fill_operations(GaDocument *doc)
{
	tsr_report *r = doc->report;
	const tsr_compute_set *cs;
	const tsr_program *progs;
	size_t n_cs, n_progs, n;
	int rc;

	doc->operations = g_new0(tsr_operation *, doc->n_runs + 1);
	for (size_t i = 0; i <= doc->n_runs; i++) {
		size_t n_run;

		rc = tsr_report_list_operations(&doc->operations[i], &n_run, r,
		                                i ? (int64_t)(i - 1) : -1);
		if (rc)
			return rc;
		/* reportlib lists the same contexts for every run; the least
		 * count keeps every list's reads in bounds regardless. */
		if (i == 0 || n_run < doc->n_operations)
			doc->n_operations = n_run;
	}
	n = doc->n_operations;
	doc->operation_extras = g_new0(ga_operation_extra, n ? n : 1);
	if ((rc = tsr_report_get_compute_sets(&cs, &n_cs, r)) ||
	    (rc = tsr_report_get_programs(&progs, &n_progs, r)))
		return rc;
	for (size_t i = 0; i < n_cs; i++)
		if (cs[i].debug_context >= 1 && (uint64_t)cs[i].debug_context <= n)
			doc->operation_extras[cs[i].debug_context - 1].vertices += cs[i].vertices;
	for (int k = 0; k < TSR_EXCHANGE_KIND_COUNT; k++) {
		const tsr_exchange *ex;
		size_t n_ex;

		if ((rc = tsr_report_get_exchanges(&ex, &n_ex, r, (tsr_exchange_kind)k)))
			return rc;
		for (size_t i = 0; i < n_progs; i++) {
			const tsr_program *p = &progs[i];

			if (p->exchange < 0 || (int)p->exchange_kind != k || (size_t)p->exchange >= n_ex ||
			    p->debug_context < 1 || (uint64_t)p->debug_context > n)
				continue;
			doc->operation_extras[p->debug_context - 1].exchange_bytes +=
			    ex[p->exchange].bytes_received;
		}
	}
	for (size_t i = n; i-- > 0;) {
		uint32_t parent = doc->operations[0][i].parent;

		if (parent >= 1 && parent <= i) {
			doc->operation_extras[parent - 1].vertices += doc->operation_extras[i].vertices;
			doc->operation_extras[parent - 1].exchange_bytes +=
			    doc->operation_extras[i].exchange_bytes;
		}
	}
	return TSR_OK;
}

/* Opens `data` (a GFile) and gathers the figures, on the worker
 * (TsdLoadFunc). */
static gpointer load(gpointer data, TsdProgress *relay, GError **error)
{
	GFile *file = data;
	GCancellable *cancellable = tsd_progress_get_cancellable(relay);
	tsr_open_options opts = TSR_OPEN_OPTIONS_INIT;
	tsr_summary_options sopts = TSR_SUMMARY_OPTIONS_INIT;
	g_autofree char *path = g_file_get_path(file);
	gint64 start = g_get_monotonic_time();
	GaDocument *doc;
	size_t num_tiles;
	int rc;

	if (!path) {
		g_set_error(error, GA_DOCUMENT_ERROR, -TSR_ERR_NOT_FOUND,
		            "'%s' is not a local file", g_file_peek_path(file));
		return NULL;
	}
	opts.progress = tsd_progress_report_cb;
	opts.progress_data = relay;
	doc = g_atomic_rc_box_new0(GaDocument);
	rc = tsr_report_open(&doc->report, path, &opts);
	if (rc) {
		tsd_load_set_error(error, rc, tsr_last_error());
		goto fail;
	}
	doc->file = g_file_new_for_path(tsr_report_get_path(doc->report));
	doc->title = make_title(file, tsr_report_get_path(doc->report));
	/* Every figure the views show is gathered here, off the main thread:
	 * switching views must never wait for the file. */
	sopts.show_per_ipu_memory = true;
	sopts.show_var_storage = true;
	/* The Insights view ranks the run's steps by tile balance. */
	sopts.show_execution_steps = true;
	sopts.colours = TSR_COLOURS_NEVER;
	tsd_progress_report_cb(0.92, "Gathering the summary", relay);
	rc = tsr_summary_figures_new(&doc->figures, doc->report, &sopts);
	if (!rc)
		rc = tsr_report_get_tile_memory(&doc->tiles, &doc->n_tiles, doc->report);
	num_tiles = doc->n_tiles;
	doc->n_categories = tsr_category_count();
	doc->category_by_tile = g_new0(uint64_t *, doc->n_categories);
	for (size_t c = 0; !rc && c < doc->n_categories; c++) {
		if (g_cancellable_is_cancelled(cancellable)) {
			rc = TSR_ERR_CANCELLED;
			break;
		}
		tsd_progress_report_cb(0.95 + 0.05 * (double)c / (double)doc->n_categories,
		                       "Reading memory by category", relay);
		doc->category_by_tile[c] = g_new0(uint64_t, num_tiles ? num_tiles : 1);
		rc = tsr_report_fill_category_by_tile(doc->category_by_tile[c], num_tiles, doc->report,
		                                      c);
	}
	if (!rc) {
		doc->always_live_by_tile = g_new0(uint64_t, num_tiles ? num_tiles : 1);
		rc = tsr_report_fill_always_live_by_tile(doc->always_live_by_tile, num_tiles,
		                                         doc->report);
	}
	if (!rc) {
		const tsr_run *runs;
		size_t n_progs;
		const tsr_program *progs;

		tsd_progress_report_cb(0.99, "Adding up the programs' cycles", relay);
		rc = tsr_report_get_runs(&runs, &doc->n_runs, doc->report);
		if (!rc)
			rc = tsr_report_get_programs(&progs, &n_progs, doc->report);
		doc->program_costs = g_new0(ga_program_cost *, doc->n_runs ? doc->n_runs : 1);
		for (size_t i = 0; !rc && i < doc->n_runs; i++) {
			doc->program_costs[i] = g_new0(ga_program_cost, n_progs ? n_progs : 1);
			rc = fill_program_costs(doc->program_costs[i], doc->report, i);
		}
	}
	if (!rc) {
		tsd_progress_report_cb(0.995, "Adding up the operations", relay);
		rc = fill_operations(doc);
	}
	if (rc) {
		tsd_load_set_error(error, rc, tsr_report_error(doc->report));
		goto fail;
	}
	doc->load_seconds = (double)(g_get_monotonic_time() - start) / 1e6;
	/* The load's callback and its state end with the load: a later call
	 * that reports (tsr_report_get_frames) must not reach a finished
	 * load's cancellable, which is cancelled when the window moves on. */
	tsr_report_set_progress(doc->report, NULL, NULL);
	return doc;
fail:
	ga_document_unref(doc);
	return NULL;
}

void ga_document_load_async(GFile *file, GCancellable *cancellable,
                            GaLoadProgressFunc progress, gpointer progress_data,
                            GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                            gpointer user_data)
{
	tsd_load_async(tsd_progress_new(progress, progress_data, progress_destroy, cancellable), load,
	               g_object_ref(file), g_object_unref, (GDestroyNotify)ga_document_unref,
	               ga_document_load_async, callback, user_data);
}

GaDocument *ga_document_load_finish(GAsyncResult *result, GError **error)
{
	return tsd_load_finish(result, ga_document_load_async, error);
}

GaDocument *ga_document_load(GFile *file, GCancellable *cancellable, GError **error)
{
	return tsd_load_run(load, file, cancellable, error);
}

/* --- Comparing ------------------------------------------------------------------ */

/* The two documents a comparison reads (refs while it runs in a worker). */
typedef struct compare_state {
	GaDocument *base, *new_doc;
} compare_state;

static void compare_state_free(gpointer data)
{
	compare_state *cs = data;

	ga_document_unref(cs->base);
	ga_document_unref(cs->new_doc);
	g_free(cs);
}

/* tsr_compare_programs (TsdLoadFunc); it reports through the base's
 * progress callback, borrowed for the call and given back after. */
static gpointer compare(gpointer data, TsdProgress *relay, GError **error)
{
	compare_state *cs = data;
	tsr_comparison *cmp = NULL;
	int rc;

	tsr_report_set_progress(cs->base->report, tsd_progress_report_cb, relay);
	rc = tsr_compare_programs(&cmp, cs->base->report, cs->new_doc->report, NULL);
	tsr_report_set_progress(cs->base->report, NULL, NULL);
	if (rc) {
		tsd_load_set_error(error, rc, tsr_report_error(cs->base->report));
		return NULL;
	}
	return cmp;
}

void ga_document_compare_async(GaDocument *base, GaDocument *new_doc, GCancellable *cancellable,
                               GaLoadProgressFunc progress, gpointer progress_data,
                               GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                               gpointer user_data)
{
	compare_state *cs = g_new0(compare_state, 1);

	cs->base = ga_document_ref(base);
	cs->new_doc = ga_document_ref(new_doc);
	tsd_load_async(tsd_progress_new(progress, progress_data, progress_destroy, cancellable),
	               compare, cs, compare_state_free, (GDestroyNotify)tsr_comparison_free,
	               ga_document_compare_async, callback, user_data);
}

tsr_comparison *ga_document_compare_finish(GAsyncResult *result, GError **error)
{
	return tsd_load_finish(result, ga_document_compare_async, error);
}

tsr_comparison *ga_document_compare(GaDocument *base, GaDocument *new_doc, GError **error)
{
	compare_state cs = {base, new_doc};

	return tsd_load_run(compare, &cs, NULL, error);
}

void ga_document_set_comparison(GaDocument *doc, tsr_comparison *cmp)
{
	if (doc->comparison != cmp)
		tsr_comparison_free(doc->comparison);
	doc->comparison = cmp;
}

const tsr_comparison *ga_document_get_comparison(GaDocument *doc)
{
	return doc ? doc->comparison : NULL;
}

/* --- Getters ------------------------------------------------------------------- */

GFile *ga_document_get_file(GaDocument *doc)
{
	return doc->file;
}

const char *ga_document_get_title(GaDocument *doc)
{
	return doc->title;
}

tsr_report *ga_document_get_report(GaDocument *doc)
{
	return doc->report;
}

const tsr_summary_figures *ga_document_get_figures(GaDocument *doc)
{
	return doc->figures;
}

const tsr_tile_memory *ga_document_get_tiles(GaDocument *doc, size_t *n)
{
	*n = doc->n_tiles;
	return doc->tiles;
}

const uint64_t *ga_document_get_category_by_tile(GaDocument *doc, size_t category)
{
	return category < doc->n_categories ? doc->category_by_tile[category] : NULL;
}

const uint64_t *ga_document_get_always_live_by_tile(GaDocument *doc)
{
	return doc->always_live_by_tile;
}

const ga_program_cost *ga_document_get_program_costs(GaDocument *doc, size_t run)
{
	return run < doc->n_runs ? doc->program_costs[run] : NULL;
}

size_t ga_document_get_n_runs(GaDocument *doc)
{
	return doc->n_runs;
}

const uint32_t *ga_document_get_program_below(GaDocument *doc, uint32_t program, GArray *buf,
                                              size_t *n)
{
	const tsr_program *progs;
	const uint32_t *funcs;
	size_t n_progs, n_funcs;

	*n = 0;
	if (tsr_report_get_programs(&progs, &n_progs, doc->report) ||
	    tsr_report_get_function_programs(&funcs, &n_funcs, doc->report) || program >= n_progs)
		return NULL;
	return below(&progs[program], funcs, n_funcs, n_progs, buf, n);
}

const tsr_operation *ga_document_get_operations(GaDocument *doc, gint64 run, size_t *n)
{
	*n = 0;
	if (!doc->operations || run < -1 || run >= (gint64)doc->n_runs)
		return NULL;
	*n = doc->n_operations;
	return doc->operations[run + 1];
}

const ga_operation_extra *ga_document_get_operation_extras(GaDocument *doc)
{
	return doc->operation_extras;
}

double ga_document_get_load_seconds(GaDocument *doc)
{
	return doc->load_seconds;
}
