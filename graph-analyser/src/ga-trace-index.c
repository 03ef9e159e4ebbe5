/*
 * The per-run index of the Execution Trace (ga-trace-index.h).
 *
 * Blocks. A block of tiles is the finest unit the BSP rows keep: about
 * 1,536 blocks per report whatever its size (1 tile per block up to 1,536
 * tiles, 4 on the 5,888-tile large report), so that the fractions of
 * 30,000 compute sets and exchanges stay at about 45 MB.
 */
#include "ga-trace-index.h"

#include <math.h>
#include <string.h>

/* Blocks kept per report at most (see the top). */
#define MAX_BLOCKS 1536

struct GaTraceIndex {
	gatomicrefcount ref;
	size_t run;
	unsigned num_ipus, tiles_per_ipu, num_tiles;
	unsigned tpb, n_blocks;   /* tiles per block, blocks */
	size_t n_steps;
	/* Steps in order of first cycle (order[i] is a step index). */
	guint32 *order;
	uint64_t *from, *to;      /* by step index */
	uint64_t *max_to;         /* by order position: largest `to` of order[0..i] */
	guint8 *state;            /* by step: GA_TILE_COMPUTE, _EXCHANGE or _SYNC */
	gint32 *slot;             /* by step: its compute set / exchange, -1: none */
	size_t n_slots;
	guint32 *ipus;            /* by slot: IPU bit mask (0: no tile has cycles) */
	guint8 *frac;             /* by slot, n_blocks each: busy fraction x 255 */
	tsr_frame *frames;        /* the run's call stacks, or NULL */
	size_t n_frames;
	char *frames_error;       /* why there are none */
};

GaTraceIndex *ga_trace_index_ref(GaTraceIndex *index)
{
	g_atomic_ref_count_inc(&index->ref);
	return index;
}

void ga_trace_index_unref(GaTraceIndex *index)
{
	if (!index || !g_atomic_ref_count_dec(&index->ref))
		return;
	g_free(index->order);
	g_free(index->from);
	g_free(index->to);
	g_free(index->max_to);
	g_free(index->state);
	g_free(index->slot);
	g_free(index->ipus);
	g_free(index->frac);
	g_free(index->frames);
	g_free(index->frames_error);
	g_free(index);
}

size_t ga_trace_index_get_run(GaTraceIndex *index)
{
	return index->run;
}

unsigned ga_trace_index_get_num_ipus(GaTraceIndex *index)
{
	return index->num_ipus;
}

unsigned ga_trace_index_get_num_tiles(GaTraceIndex *index)
{
	return index->num_tiles;
}

unsigned ga_trace_index_get_tiles_per_block(GaTraceIndex *index)
{
	return index->tpb;
}

const tsr_frame *ga_trace_index_get_frames(GaTraceIndex *index, size_t *n, const char **error)
{
	*n = index->n_frames;
	if (error)
		*error = index->frames_error;
	return index->frames;
}

gboolean ga_trace_index_step_on_ipu(GaTraceIndex *index, size_t step, unsigned ipu)
{
	gint32 slot;

	if (step >= index->n_steps || ipu >= 32 || index->state[step] == GA_TILE_SYNC)
		return TRUE;
	slot = index->slot[step];
	/* A step whose blob names no tile is shown on every IPU rather than
	 * on none. */
	return slot < 0 || index->ipus[slot] == 0 || (index->ipus[slot] >> ipu) & 1;
}

/* --- Building ------------------------------------------------------------------------ */

/* Orders step indices by first cycle (`data`: the first cycles). Builds
 * of A's and B's indexes run in threads at once: no global state. */
static gint by_from(gconstpointer a, gconstpointer b, gpointer data)
{
	const uint64_t *from = data;
	uint64_t x = from[*(const guint32 *)a], y = from[*(const guint32 *)b];

	if (x != y)
		return x < y ? -1 : 1;
	return *(const guint32 *)a < *(const guint32 *)b ? -1 : 1;
}

static gboolean fail(GError **error, tsr_report *r, const char *what)
{
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", what,
	            r ? tsr_report_error(r) : tsr_last_error());
	return FALSE;
}

/* Decodes slot `slot` (compute set `cs`, or exchange `ex` of `kind`) into
 * its IPU mask and block fractions; `buf` holds num_tiles values. */
static gboolean decode_slot(GaTraceIndex *ix, tsr_report *r, uint64_t *buf, size_t slot,
                            int64_t cs, int kind, int64_t ex, GError **error)
{
	uint64_t max = 0;
	guint32 mask = 0;
	guint8 *frac = ix->frac + slot * ix->n_blocks;
	int rc = cs >= 0 ? tsr_report_fill_compute_set_cycles_by_tile(buf, ix->num_tiles, r,
	                                                               (size_t)cs, false)
	                 : tsr_report_fill_exchange_cycles_by_tile(buf, ix->num_tiles, r,
	                                                           (tsr_exchange_kind)kind,
	                                                           (size_t)ex);

	if (rc)
		return fail(error, r, "per-tile cycles");
	for (unsigned t = 0; t < ix->num_tiles; t++) {
		if (buf[t] > max)
			max = buf[t];
		if (buf[t] && t / ix->tiles_per_ipu < 32)
			mask |= 1u << (t / ix->tiles_per_ipu);
	}
	ix->ipus[slot] = mask;
	if (!max) {
		memset(frac, 0, ix->n_blocks);
		return TRUE;
	}
	/* This loop is most of the index's time on a large report (30,000
	 * blobs of 5,888 tiles): one multiply per tile, no division. */
	{
		double scale = 255.0 / (double)max;

		for (unsigned b = 0; b < ix->n_blocks; b++) {
			unsigned t0 = b * ix->tpb, t1 = MIN(ix->num_tiles, t0 + ix->tpb);
			double sum = 0;

			for (unsigned t = t0; t < t1; t++)
				sum += (double)buf[t];
			frac[b] = (guint8)MIN(255.0, sum * scale / (t1 - t0) + 0.5);
		}
	}
	return TRUE;
}

static GaTraceIndex *build(const char *path, size_t run, GCancellable *cancellable, GError **error)
{
	g_autoptr(GaTraceIndex) ix = g_new0(GaTraceIndex, 1);
	tsr_report *r = NULL;
	const tsr_target *target;
	const tsr_step *steps;
	const tsr_compute_set *cs;
	const tsr_exchange *ex[TSR_EXCHANGE_KIND_COUNT];
	size_t n_cs, n_ex[TSR_EXCHANGE_KIND_COUNT];
	gint32 *cs_slot = NULL, *ex_slot[TSR_EXCHANGE_KIND_COUNT] = {0};
	int64_t *slot_cs = NULL, *slot_ex = NULL;
	int *slot_kind = NULL;
	uint64_t *buf = NULL;
	gboolean ok = FALSE;

	g_atomic_ref_count_init(&ix->ref);
	ix->run = run;
	if (tsr_report_open(&r, path, NULL))
		return fail(error, NULL, "reopening the report"), NULL;
	target = tsr_report_get_target(r);
	ix->num_ipus = MAX(1, target->num_ipus);
	ix->tiles_per_ipu = MAX(1, target->tiles_per_ipu);
	ix->num_tiles = target->num_tiles;
	ix->tpb = MAX(1, (ix->num_tiles + MAX_BLOCKS - 1) / MAX_BLOCKS);
	ix->n_blocks = (ix->num_tiles + ix->tpb - 1) / ix->tpb;
	if (tsr_report_get_steps(&steps, &ix->n_steps, r, run) ||
	    tsr_report_get_compute_sets(&cs, &n_cs, r)) {
		fail(error, r, "the run's steps");
		goto out;
	}
	for (int k = 0; k < TSR_EXCHANGE_KIND_COUNT; k++) {
		if (tsr_report_get_exchanges(&ex[k], &n_ex[k], r, (tsr_exchange_kind)k)) {
			fail(error, r, "exchanges");
			goto out;
		}
		ex_slot[k] = g_new(gint32, n_ex[k] + 1);
		memset(ex_slot[k], 0xff, (n_ex[k] + 1) * sizeof(gint32));
	}
	cs_slot = g_new(gint32, n_cs + 1);
	memset(cs_slot, 0xff, (n_cs + 1) * sizeof(gint32));
	ix->order = g_new(guint32, ix->n_steps + 1);
	ix->from = g_new(uint64_t, ix->n_steps + 1);
	ix->to = g_new(uint64_t, ix->n_steps + 1);
	ix->max_to = g_new(uint64_t, ix->n_steps + 1);
	ix->state = g_new(guint8, ix->n_steps + 1);
	ix->slot = g_new(gint32, ix->n_steps + 1);
	slot_cs = g_new(int64_t, ix->n_steps + 1);
	slot_ex = g_new(int64_t, ix->n_steps + 1);
	slot_kind = g_new(int, ix->n_steps + 1);
	/* Slots: one per compute set or exchange the run uses. */
	for (size_t i = 0; i < ix->n_steps; i++) {
		const tsr_step *st = &steps[i];
		int kind = st->type == TSR_STEP_DO_EXCHANGE       ? TSR_EXCHANGE_INTERNAL
		           : st->type == TSR_STEP_GLOBAL_EXCHANGE ? TSR_EXCHANGE_EXTERNAL
		           : st->type == TSR_STEP_STREAM_COPY     ? TSR_EXCHANGE_HOST
		                                                  : -1;
		gint32 *s = NULL;

		ix->order[i] = (guint32)i;
		ix->from[i] = st->cycles_from;
		ix->to[i] = MAX(st->cycles_to, st->cycles_from);
		ix->state[i] = st->type == TSR_STEP_SYNC ? GA_TILE_SYNC
		               : kind >= 0               ? GA_TILE_EXCHANGE
		                                         : GA_TILE_COMPUTE;
		if (st->type == TSR_STEP_ON_TILE_EXECUTE && st->compute_set >= 0 &&
		    (size_t)st->compute_set < n_cs)
			s = &cs_slot[st->compute_set];
		else if (kind >= 0 && st->exchange >= 0 && (size_t)st->exchange < n_ex[kind])
			s = &ex_slot[kind][st->exchange];
		if (s && *s < 0) {
			*s = (gint32)ix->n_slots;
			slot_cs[ix->n_slots] = kind < 0 ? st->compute_set : -1;
			slot_ex[ix->n_slots] = kind < 0 ? -1 : st->exchange;
			slot_kind[ix->n_slots] = kind;
			ix->n_slots++;
		}
		ix->slot[i] = s ? *s : -1;
	}
	/* A run's steps come in time order: sorted here only when a file's do
	 * not (the lanes' chart kit sort follows the same rule). */
	for (size_t i = 1; i < ix->n_steps; i++)
		if (ix->from[i - 1] > ix->from[i]) {
			g_qsort_with_data(ix->order, (gint)ix->n_steps, sizeof(*ix->order), by_from, ix->from);
			break;
		}
	for (size_t i = 0; i < ix->n_steps; i++)
		ix->max_to[i] = MAX(i ? ix->max_to[i - 1] : 0, ix->to[ix->order[i]]);
	ix->ipus = g_new0(guint32, ix->n_slots + 1);
	ix->frac = g_try_malloc0((ix->n_slots + 1) * ix->n_blocks);
	buf = g_new(uint64_t, ix->num_tiles + 1);
	if (!ix->frac) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "out of memory for the tile index");
		goto out;
	}
	for (size_t s = 0; s < ix->n_slots; s++) {
		if (g_cancellable_set_error_if_cancelled(cancellable, error))
			goto out;
		if (!decode_slot(ix, r, buf, s, slot_cs[s], slot_kind[s], slot_ex[s], error))
			goto out;
	}
	/* The call stacks: a damaged trace leaves the per-tile part whole. */
	{
		const tsr_frame *fr;
		size_t nf;

		if (tsr_report_get_frames(&fr, &nf, r, run)) {
			ix->frames_error = g_strdup(tsr_report_error(r));
		} else {
			ix->frames = g_memdup2(fr, MAX(1, nf) * sizeof(*fr));
			ix->n_frames = nf;
		}
	}
	ok = TRUE;
out:
	tsr_report_free(r);
	g_free(cs_slot);
	for (int k = 0; k < TSR_EXCHANGE_KIND_COUNT; k++)
		g_free(ex_slot[k]);
	g_free(slot_cs);
	g_free(slot_ex);
	g_free(slot_kind);
	g_free(buf);
	return ok ? g_steal_pointer(&ix) : NULL;
}

GaTraceIndex *ga_trace_index_build(GaDocument *doc, size_t run, GCancellable *cancellable,
                                   GError **error)
{
	g_autofree char *path = g_file_get_path(ga_document_get_file(doc));

	return build(path, run, cancellable, error);
}

typedef struct BuildTask {
	char *path;
	size_t run;
} BuildTask;

static void build_task_free(gpointer data)
{
	BuildTask *t = data;

	g_free(t->path);
	g_free(t);
}

static void build_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	BuildTask *t = data;
	GError *error = NULL;
	GaTraceIndex *ix = build(t->path, t->run, cancellable, &error);

	if (ix)
		g_task_return_pointer(task, ix, (GDestroyNotify)ga_trace_index_unref);
	else
		g_task_return_error(task, error);
}

void ga_trace_index_build_async(GaDocument *doc, size_t run, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
	GTask *task = g_task_new(NULL, cancellable, callback, user_data);
	BuildTask *t = g_new0(BuildTask, 1);

	t->path = g_file_get_path(ga_document_get_file(doc));
	t->run = run;
	g_task_set_task_data(task, t, build_task_free);
	g_task_run_in_thread(task, build_thread);
	g_object_unref(task);
}

GaTraceIndex *ga_trace_index_build_finish(GAsyncResult *result, GError **error)
{
	return g_task_propagate_pointer(G_TASK(result), error);
}

/* --- The BSP picture ----------------------------------------------------------------- */

GdkTexture *ga_trace_index_render_bsp(GaTraceIndex *ix, const ga_bsp_request *req,
                                      guint64 counts[GA_TILE_STATE_COUNT])
{
	int w = MAX(1, req->width), rows = MAX(1, req->rows), row_px = MAX(1, req->row_px);
	int h = rows * row_px;
	unsigned bpr = MAX(1, req->tiles_per_row / ix->tpb);     /* blocks per row */
	unsigned first_block = req->first_tile / ix->tpb;
	double cpp = (req->to - req->from) / w;
	guint8 *pix = g_malloc0((gsize)w * h * 4);
	float *acc = g_new(float, (gsize)rows * GA_TILE_STATE_COUNT);
	/* Each slot's busy fraction per row of this picture (x 255), made on
	 * first use: a compute set runs many times in a view. */
	gint32 *row_off = g_new(gint32, ix->n_slots + 1);
	GByteArray *row_frac = g_byte_array_new();
	guint8 rgba[GA_TILE_STATE_COUNT][4];
	size_t pos = 0;
	GBytes *bytes;
	GdkTexture *tex;

	memset(row_off, 0xff, (ix->n_slots + 1) * sizeof(gint32));
	if (counts)
		memset(counts, 0, sizeof(guint64) * GA_TILE_STATE_COUNT);
	for (int k = 0; k < GA_TILE_STATE_COUNT; k++) {
		rgba[k][0] = (guint8)lround(CLAMP(req->colours[k].red, 0, 1) * 255);
		rgba[k][1] = (guint8)lround(CLAMP(req->colours[k].green, 0, 1) * 255);
		rgba[k][2] = (guint8)lround(CLAMP(req->colours[k].blue, 0, 1) * 255);
		rgba[k][3] = (guint8)lround(CLAMP(req->colours[k].alpha, 0, 1) * 255);
	}
	/* The first step reaching past the view's start. */
	{
		size_t lo = 0, hi = ix->n_steps;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if ((double)ix->max_to[mid] > req->from)
				hi = mid;
			else
				lo = mid + 1;
		}
		pos = lo;
	}
	for (int c = 0; c < w && cpp > 0; c++) {
		double c0 = req->from + c * cpp, c1 = c0 + cpp;
		gboolean any = FALSE;

		while (pos < ix->n_steps && (double)ix->max_to[pos] <= c0)
			pos++;
		memset(acc, 0, sizeof(float) * (gsize)rows * GA_TILE_STATE_COUNT);
		for (size_t i = pos; i < ix->n_steps && (double)ix->from[ix->order[i]] < c1; i++) {
			size_t s = ix->order[i];
			double a = MAX((double)ix->from[s], c0), b = MIN((double)ix->to[s], c1);
			float o = (float)(b - a);
			int k = ix->state[s];
			gint32 slot = ix->slot[s];

			if (b <= a) {
				/* A step of no cycles still happened in this column. */
				if ((double)ix->to[s] < c0 || ix->to[s] != ix->from[s])
					continue;
				o = (float)(cpp * 1e-3);
			}
			any = TRUE;
			if (k == GA_TILE_SYNC || slot < 0) {
				for (int r = 0; r < rows; r++)
					acc[r * GA_TILE_STATE_COUNT + k] += o;
				continue;
			}
			if (row_off[slot] < 0) {
				const guint8 *f = ix->frac + (gsize)slot * ix->n_blocks;

				row_off[slot] = (gint32)row_frac->len;
				g_byte_array_set_size(row_frac, row_frac->len + rows);
				for (int r = 0; r < rows; r++) {
					unsigned b0 = first_block + (unsigned)r * bpr, b1 = MIN(ix->n_blocks, b0 + bpr);
					unsigned sum = 0;

					for (unsigned bl = b0; bl < b1; bl++)
						sum += f[bl];
					row_frac->data[row_off[slot] + r] = (guint8)(b1 > b0 ? sum / (b1 - b0) : 0);
				}
			}
			for (int r = 0; r < rows; r++) {
				float fr = row_frac->data[row_off[slot] + r] / 255.0f;

				acc[r * GA_TILE_STATE_COUNT + k] += o * fr;
				acc[r * GA_TILE_STATE_COUNT + GA_TILE_IDLE] += o * (1 - fr);
			}
		}
		if (!any)
			continue;
		for (int r = 0; r < rows; r++) {
			const float *a = &acc[r * GA_TILE_STATE_COUNT];
			int best = GA_TILE_IDLE;

			if (first_block + (unsigned)r * bpr >= ix->n_blocks)
				break; /* past the last tile */
			for (int k = 0; k < GA_TILE_STATE_COUNT; k++)
				if (a[k] > a[best])
					best = k;
			if (counts)
				counts[best] += row_px;
			for (int y = r * row_px; y < (r + 1) * row_px; y++)
				memcpy(pix + ((gsize)y * w + c) * 4, rgba[best], 4);
		}
	}
	bytes = g_bytes_new_take(pix, (gsize)w * h * 4);
	tex = gdk_memory_texture_new(w, h, GDK_MEMORY_R8G8B8A8, bytes, (gsize)w * 4);
	g_bytes_unref(bytes);
	g_free(acc);
	g_free(row_off);
	g_byte_array_unref(row_frac);
	return tex;
}
