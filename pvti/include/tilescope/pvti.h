/*
 * System tracing (the PopVision trace instrumentation, "PVTI"): what the
 * host did over time. Code marks spans with tracepoints on named
 * channels, drops instant markers, attaches JSON metadata, and plots
 * series of values (loss per step, host memory) and heatmaps; the
 * library writes them to one SQLite file per process,
 * <directory>/<date>_<time>_<TZ>_<pid>.pvti, whose schema is
 * db-schema/pvti.sql.
 *
 * Turning it on. PVTI_OPTIONS, read when the library is loaded, holds a
 * JSON object:
 *   enable     true or "true" (the default when the key is absent) or false
 *   directory  where the file goes (default "."; created when missing)
 *   channels   names of the channels to record (absent or []: all)
 *   duration   seconds after which recording stops (absent or 0: never)
 * e.g. PVTI_OPTIONS='{"enable":"true","directory":"./trace"}'. When the
 * variable is unset or empty nothing is written and every tracepoint
 * costs one well-predicted branch on a global flag (the functions below
 * are inline). A value that cannot be parsed turns tracing on with the
 * defaults and logs a warning (component "PVTI", see log.h) that is also
 * kept in the trace's metadata. Programs and tests may instead call
 * pvti_open() / pvti_open_from_env() and pvti_close() themselves; the
 * library closes an open trace when the process exits normally.
 *
 * Cost and safety. A tracepoint takes the time stamp counter (rdtsc,
 * calibrated once per trace against CLOCK_MONOTONIC; CLOCK_MONOTONIC
 * itself where there is no invariant TSC) and appends a record to a
 * buffer owned by the calling thread, with no lock. A background thread
 * writes what was recorded in one transaction within 100 ms (and on
 * pvti_flush()), so a process that crashes loses at most the last
 * interval and leaves a file any SQLite reader can open (WAL journal);
 * while nothing is recorded it sleeps.
 * If the writer falls far behind (128 MiB of buffered records), tracing
 * threads wait for it rather than lose events.
 *
 * Spans: pvti_begin(ch, "name") ... pvti_end(ch) on the same thread,
 * properly nested; PVTI_SCOPE(ch, "name") ends the span when the
 * enclosing C block exits. An end with no open span on that channel is
 * counted, reported at close (a warning and the trace metadata key
 * "pvti.unbalanced_ends") and otherwise ignored.
 *
 * Names passed to the tracing calls are copied (interned) during the
 * call: a name may live in a reused stack buffer.
 *
 * Everything here is thread-safe. Channels, graphs, series and heatmaps
 * are owned by the library and live until the process exits; they do
 * not depend on a trace being open and may be made before one is.
 *
 * Conventions (those of libtilescope-instrument, tilescope/ipu.h): calls
 * that can fail return TSI_OK or a negative TSI_ERR_* code with the
 * message in tsi_error_last() ("" when there has been no failure, never
 * NULL); out-parameters come first (pvti_options_parse); lookup_ may find
 * nothing and returns NULL quietly (pvti_channel_lookup); dup_ returns a
 * copy the caller frees (pvti_dup_file_name). Nothing here has an id
 * field, so there is no "none" marker.
 *
 * The runtime traces itself on the "Poplar" channel (graph construction,
 * compile phases, engine load, runs, stream callbacks); models trace
 * their own loops on "Framework":
 *   PVTI_SCOPE(pvti_channel_framework(), "epoch");
 */
#pragma once

#include <tilescope/error.h> /* TSI_OK, TSI_ERR_*, tsi_error_last() (libtilescope-base) */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

#if defined(PVTI_BUILDING_LIBRARY)
#define PVTI_API __attribute__((visibility("default")))
#else
#define PVTI_API
#endif

/* --- Channels ------------------------------------------------------------ */

/* A named group of tracepoints that can be switched on and off. */
typedef struct pvti_channel pvti_channel;

/* The built-in channels. The calls are free (they return the address of a
 * static object) and marked const, so `pvti_begin(pvti_channel_poplar(),
 * ...)` costs nothing more when tracing is off. */
PVTI_API pvti_channel *pvti_channel_drivers(void) __attribute__((const));
PVTI_API pvti_channel *pvti_channel_poplar(void) __attribute__((const));
PVTI_API pvti_channel *pvti_channel_framework(void) __attribute__((const));

/* The channel called `name`, made on first use (a built-in one for
 * "Drivers", "Poplar" and "Framework"). A new channel is enabled when the
 * open trace's channel list is empty or names it. Returns NULL (see
 * tsi_error_last()) for a NULL or empty name or when the process already
 * has PVTI_MAX_CHANNELS channels. */
PVTI_API pvti_channel *pvti_channel_new(const char *name);
/* The channel called `name`, or NULL when there is none. */
PVTI_API pvti_channel *pvti_channel_lookup(const char *name);
/* The channel's name (borrowed, lives as long as the process). */
PVTI_API const char *pvti_channel_name(const pvti_channel *channel);
/* Switches recording of one channel on or off until the next pvti_open()
 * applies its channel list. NULL is ignored. */
PVTI_API void pvti_channel_enable(pvti_channel *channel);
PVTI_API void pvti_channel_disable(pvti_channel *channel);
/* True when tracepoints on `channel` would be recorded by an open trace. */
PVTI_API bool pvti_channel_is_enabled(const pvti_channel *channel);
/* Every channel of the process, built-in ones first: pvti_channel_at(i)
 * for i < pvti_channel_count(); NULL past the end. */
PVTI_API size_t pvti_channel_count(void);
PVTI_API pvti_channel *pvti_channel_at(size_t i);

#define PVTI_MAX_CHANNELS 1024

/* --- Graphs and heatmaps ------------------------------------------------- */

/* A graph holds series of values over time, drawn on one chart. */
typedef struct pvti_graph pvti_graph;
typedef struct pvti_series pvti_series;
/* A heatmap records, at each call, how many values fell in each bucket. */
typedef struct pvti_heatmap pvti_heatmap;

/* The graph called `name` (made on first use), with the unit of its
 * values ("%", "bytes"; may be NULL). NULL on a NULL name or no memory. */
PVTI_API pvti_graph *pvti_graph_new(const char *name, const char *unit);
/* The series called `name` in `graph` (made on first use), or NULL. */
PVTI_API pvti_series *pvti_graph_add_series(pvti_graph *graph, const char *name);
/* The heatmap called `name` with bucket edges edges[0..n_edges) (finite,
 * strictly ascending, 1 to 4096 of them): bucket 0 holds values below edges[0], bucket i
 * values in [edges[i-1], edges[i]), bucket n_edges values from
 * edges[n_edges-1] up. A second call with the same name returns the first
 * heatmap and ignores the edges. NULL on bad arguments or no memory. */
PVTI_API pvti_heatmap *pvti_heatmap_new(const char *name, const char *unit,
                                       const double *edges, size_t n_edges);
/* Adds one sample of values[0..n) to the heatmap, time-stamped now.
 * Returns TSI_OK (also when not recording) or TSI_ERR_INVALID_ARGUMENT. */
PVTI_API int pvti_heatmap_add(pvti_heatmap *heatmap, const double *values, size_t n);

/* --- Metadata, threads ----------------------------------------------------- */

/* Attaches a JSON value to the calling thread's innermost open tracepoint.
 * Returns TSI_OK (also when not recording), or TSI_ERR_INVALID_ARGUMENT
 * when `json` is not valid JSON or no tracepoint is open on this thread. */
PVTI_API int pvti_event_metadata(const char *json);
/* Sets `key` of the trace's metadata to a JSON value (a later call with the
 * same key replaces it). Keys starting "pvti." are the library's own and
 * refused. Returns TSI_OK (also when no trace is open; the value is then
 * dropped) or TSI_ERR_INVALID_ARGUMENT. */
PVTI_API int pvti_trace_metadata(const char *key, const char *json);
/* Names the calling thread in traces (the OS name is left alone; by
 * default a thread is named after it). Returns TSI_OK or an error. */
PVTI_API int pvti_thread_set_name(const char *name);

/* --- The trace ------------------------------------------------------------- */

#define PVTI_OPTIONS_VERSION 1

/* What to record; the fields mirror PVTI_OPTIONS. */
typedef struct pvti_options {
	unsigned version;            /* PVTI_OPTIONS_VERSION */
	bool enable;                 /* false: pvti_open() records nothing */
	const char *directory;       /* where the .pvti goes; NULL: "." */
	const char *const *channels; /* channel names to record; n_channels 0: all */
	size_t n_channels;
	double duration;             /* seconds; > 0: recording stops after it */
} pvti_options;

#define PVTI_OPTIONS_INIT {PVTI_OPTIONS_VERSION, true, NULL, NULL, 0, 0.0}

/* Parses a PVTI_OPTIONS value into *out (the caller frees it with
 * pvti_options_free). Returns TSI_OK for a valid value. When the text is
 * not a JSON object, or a key has a value of the wrong kind, returns
 * TSI_ERR_BAD_OPTION with the reason in tsi_error_last() and still sets
 * *out to what PVTI_OPTIONS means in that case: the defaults (tracing on)
 * plus the keys that could be read. Unknown keys are ignored. Returns
 * TSI_ERR_NO_MEMORY (and *out NULL) when out of memory. */
PVTI_API int pvti_options_parse(pvti_options **out, const char *text);
PVTI_API void pvti_options_free(pvti_options *opts);

/* Starts a trace: creates the directory and the file, applies the channel
 * list, starts the writer thread. `opts` NULL means the defaults; with
 * enable false nothing happens. Fails with TSI_ERR_INVALID_ARGUMENT when
 * a trace is already open, or a negative code (and tsi_error_last())
 * when the file cannot be made. */
PVTI_API int pvti_open(const pvti_options *opts);
/* Reads PVTI_OPTIONS as at load time and opens a trace when it asks for
 * one (closing the open trace first). Unset or empty: returns TSI_OK and
 * leaves tracing off. Unparseable: logs a warning and traces with the
 * defaults. */
PVTI_API int pvti_open_from_env(void);
/* True while tracepoints are being recorded (a trace is open and its
 * duration has not run out). */
PVTI_API bool pvti_is_recording(void);
/* The open trace's file name (a path in its directory; the caller frees
 * it), or NULL when none is open. */
PVTI_API char *pvti_dup_file_name(void);
/* Blocks until everything recorded before the call, by every thread, is
 * committed to the file. TSI_OK when no trace is open. */
PVTI_API int pvti_flush(void);
/* Stops recording, writes what is buffered and the summary tables
 * (statistics per tracepoint name, timeline level of detail), and closes
 * the file. Tracepoints other threads make meanwhile are dropped. TSI_OK
 * when no trace is open; a negative code when writing failed (the file
 * then holds what was flushed before). */
PVTI_API int pvti_close(void);

/* --- Tracepoints ---------------------------------------------------------- */

/* Private: set while recording; read only through the inline calls. */
PVTI_API extern unsigned char pvti_recording_flag_;
/* Private: the out-of-line halves of the inline calls below. */
PVTI_API void pvti_begin_impl_(pvti_channel *channel, const char *name);
PVTI_API void pvti_end_impl_(pvti_channel *channel);
PVTI_API void pvti_instant_impl_(pvti_channel *channel, const char *name);
PVTI_API void pvti_series_add_impl_(pvti_series *series, double value);
PVTI_API pvti_channel *pvti_scope_begin_impl_(pvti_channel *channel, const char *name);

/* One relaxed load: the flag is switched by other threads (open, close,
 * the duration running out) and must be read at every call. */
static inline bool pvti_recording_(void)
{
	return __builtin_expect(__atomic_load_n(&pvti_recording_flag_, __ATOMIC_RELAXED), 0);
}

/* Opens a span called `name` on `channel` in the calling thread. */
static inline void pvti_begin(pvti_channel *channel, const char *name)
{
	if (pvti_recording_())
		pvti_begin_impl_(channel, name);
}

/* Closes the calling thread's innermost open span, which must be on
 * `channel` (else the end is counted as unbalanced and ignored). */
static inline void pvti_end(pvti_channel *channel)
{
	if (pvti_recording_())
		pvti_end_impl_(channel);
}

/* Records a point in time called `name` on `channel`. */
static inline void pvti_instant(pvti_channel *channel, const char *name)
{
	if (pvti_recording_())
		pvti_instant_impl_(channel, name);
}

/* Adds `value` to `series`, time-stamped now. */
static inline void pvti_series_add(pvti_series *series, double value)
{
	if (pvti_recording_())
		pvti_series_add_impl_(series, value);
}

/* PVTI_SCOPE's halves: begin returns the channel when a span was opened. */
static inline pvti_channel *pvti_scope_begin_(pvti_channel *channel, const char *name)
{
	return pvti_recording_() ? pvti_scope_begin_impl_(channel, name) : NULL;
}
static inline void pvti_scope_end_(pvti_channel **opened)
{
	if (__builtin_expect(*opened != NULL, 0))
		pvti_end_impl_(*opened);
}

#define PVTI_CONCAT2_(a, b) a##b
#define PVTI_CONCAT_(a, b) PVTI_CONCAT2_(a, b)
/* Opens a span that ends when the enclosing block exits (return, break,
 * goto and falling off the end alike). A statement; GCC and Clang. */
#define PVTI_SCOPE(channel, name)                                              \
	pvti_channel *PVTI_CONCAT_(pvti_scope_, __COUNTER__)                       \
	    __attribute__((cleanup(pvti_scope_end_), unused)) =                    \
	        pvti_scope_begin_((channel), (name))

TSB_END_DECLS
