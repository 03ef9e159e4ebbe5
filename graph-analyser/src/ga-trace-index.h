/*
 * What the Execution Trace needs from the per-tile blobs of one run: on
 * which IPUs each step ran (a tsr_step names no IPU; its compute set's or
 * exchange's cycles by tile say), and how busy each group of tiles is
 * during a step, for the BSP view's per-tile rows.
 *
 * The blobs are decoded once per compute set and exchange the run uses
 * (never per step: a compute set runs many times), in a worker thread on
 * a reportlib handle of its own (which also follows the run's call
 * stacks for the Flame mode), so that the UI never waits on them (the
 * large report has 30,000 of them of 5,888 tiles). What is kept is small:
 * per compute set / exchange an IPU mask and the busy fraction of each
 * block of tiles_per_block tiles as a byte (0: idle throughout the step,
 * 255: busy throughout).
 *
 * The BSP picture (ga_trace_index_render_bsp) is a pure function of the
 * index and a view, so the view builds it in a thread too and a test can
 * check its pixels.
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct GaTraceIndex GaTraceIndex;

/* The states a tile is in during a step. */
typedef enum ga_tile_state {
	GA_TILE_COMPUTE = 0,
	GA_TILE_EXCHANGE,
	GA_TILE_SYNC,
	GA_TILE_IDLE,   /* inside a step but done with its share of it */
	GA_TILE_STATE_COUNT
} ga_tile_state;

GaTraceIndex *ga_trace_index_ref(GaTraceIndex *index);
void ga_trace_index_unref(GaTraceIndex *index);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GaTraceIndex, ga_trace_index_unref)

/* Builds the index of run `run` of `doc` in a worker thread (its own
 * reportlib handle on the document's file). */
void ga_trace_index_build_async(GaDocument *doc, size_t run, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data);
GaTraceIndex *ga_trace_index_build_finish(GAsyncResult *result, GError **error);
/* The same on the calling thread (tests, benchmarks). */
GaTraceIndex *ga_trace_index_build(GaDocument *doc, size_t run, GCancellable *cancellable,
                                   GError **error);

size_t ga_trace_index_get_run(GaTraceIndex *index);
unsigned ga_trace_index_get_num_ipus(GaTraceIndex *index);
unsigned ga_trace_index_get_num_tiles(GaTraceIndex *index);
/* Tiles per block of the busy fractions: the finest rows of the BSP view. */
unsigned ga_trace_index_get_tiles_per_block(GaTraceIndex *index);
/* Whether step `step` ran on IPU `ipu` (sync steps run on every IPU). */
gboolean ga_trace_index_step_on_ipu(GaTraceIndex *index, size_t step, unsigned ipu);
/* The run's call stacks (tsr_report_get_frames), followed in the same
 * worker so that the Flame mode never walks the trace on the main
 * thread: NULL with *error the reason when the file's programs and trace
 * disagree. Valid as long as the index. */
const tsr_frame *ga_trace_index_get_frames(GaTraceIndex *index, size_t *n, const char **error);

/* A BSP picture to draw: cycles [from, to) over `width` pixel columns,
 * `rows` rows of `tiles_per_row` tiles (a multiple of tiles_per_block)
 * from tile `first_tile`, each row `row_px` pixels tall. */
typedef struct ga_bsp_request {
	double from, to;
	int width;
	int rows, row_px;
	unsigned first_tile, tiles_per_row;
	GdkRGBA colours[GA_TILE_STATE_COUNT];
} ga_bsp_request;

/*
 * Renders the request into a texture of width x (rows * row_px) pixels.
 * A pixel holds the state that takes most of that row's tile-cycles in
 * that column: each step overlapping the column adds its overlap in
 * cycles, split for each row between its kind (the row's busy fraction of
 * the step) and idle (the rest); a sync step is sync on every tile. So a
 * column that any step touches is never blank however narrow its steps;
 * only cycles no step covers are transparent. `counts` (may be NULL)
 * receives the number of pixels of each state.
 */
GdkTexture *ga_trace_index_render_bsp(GaTraceIndex *index, const ga_bsp_request *req,
                                      guint64 counts[GA_TILE_STATE_COUNT]);

G_END_DECLS
