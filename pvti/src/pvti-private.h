/*
 * Internals of system tracing (pvti.h), shared by the files of
 * pvti/src and by the white-box test test_pvti_writer.
 *
 *   pvti.c          the registries (channels, strings, graphs, threads),
 *                   the tracepoint hot path, open / close
 *   pvti-options.c  PVTI_OPTIONS parsing
 *   pvti-clock.c    the time stamp counter and its calibration
 *   pvti-chunk.c    the packed event encoding (documented in pvti.sql)
 *   pvti-writer.c   the trace file and its background writer thread
 *
 * Data path. A tracing thread owns a pvti_thread: its stack of open spans
 * and a chain of fixed-size blocks of 32-byte records. It appends a record
 * and publishes it with a release store of the block's count; when a
 * block is full it links a fresh one (from a shared pool, the only lock
 * on the path, once per PVTI_BLOCK_RECS records). The writer thread
 * follows each chain behind its producer, returns drained blocks to the
 * pool, encodes spans into chunks, and commits everything of one pass in
 * one transaction. Rare, variable-size things (metadata, heatmap samples)
 * go through a mutex-protected message queue instead.
 *
 * Lifetimes. Channels, strings, graphs, series and heatmaps are
 * process-wide (ids stable across traces) and never freed. A pvti_thread
 * lives until its thread has exited and a writer has drained it. Each
 * trace has a generation number; a thread that sees a new generation
 * resets its span stack, and a writer ignores records older than its
 * trace's origin (stragglers of a closed trace).
 */
#pragma once

#define PVTI_BUILDING_LIBRARY 1
#include "tilescope/pvti.h"

#include "tilescope/log.h" /* libtilescope-base, as tsi_set_error */

#include <pthread.h>
#include <stdatomic.h>
#include <sqlite3.h>

/* --- Clock (pvti-clock.c) ------------------------------------------------- */

/* True when tracepoints time-stamp with rdtsc (x86-64 with an invariant
 * TSC); else with CLOCK_MONOTONIC in ns. Decided once at load. */
extern bool pvti_use_tsc;
/* Sets pvti_use_tsc; called once when the library loads. */
void pvti_clock_init(void);

/* CLOCK_MONOTONIC in ns. */
uint64_t pvti_mono_ns(void);
/* CLOCK_REALTIME in ns since the epoch. */
uint64_t pvti_wall_ns(void);

/* The current tick: rdtsc or monotonic ns, see pvti_use_tsc. */
static inline uint64_t pvti_ticks(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(pvti_use_tsc, 1)) {
		uint32_t lo, hi;
		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
#endif
	return pvti_mono_ns();
}

/* Maps ticks of one trace onto ns since its origin. */
typedef struct pvti_clock {
	bool tsc;          /* ticks are TSC counts (else monotonic ns) */
	uint64_t tick0;    /* ticks at the origin */
	uint64_t mono0_ns; /* CLOCK_MONOTONIC at the origin */
	uint64_t wall0_ns; /* CLOCK_REALTIME at the origin */
	uint64_t mult;     /* ns per tick, 32.32 fixed point */
	double ticks_per_s;/* measured frequency (tsc), else 1e9 */
	bool calibrated;   /* mult is final */
} pvti_clock;

/* Takes the origin of a trace. */
void pvti_clock_start(pvti_clock *clock);
/* The least time between pvti_clock_start and pvti_clock_calibrate (ns):
 * what bounds the calibration error (about 50 ppm here, far less later). */
#define PVTI_CALIBRATION_NS 20000000ull
/* Measures the tick rate against CLOCK_MONOTONIC over the time since the
 * origin, sleeping first if less than PVTI_CALIBRATION_NS has passed.
 * Called once per trace, before the first tick is converted. */
void pvti_clock_calibrate(pvti_clock *clock);
/* (a * m) >> 32 without losing the high bits of the product. */
static inline uint64_t pvti_mul_shift32(uint64_t a, uint64_t m)
{
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	return (uint64_t)(((u128)a * m) >> 32);
#else
	uint64_t alo = a & 0xffffffffu;
	return (a >> 32) * m + ((alo * (m & 0xffffffffu)) >> 32) + alo * (m >> 32);
#endif
}

/* ns since the origin of `ticks` (negative before the origin). */
static inline int64_t pvti_clock_ns(const pvti_clock *clock, uint64_t ticks)
{
	if (ticks >= clock->tick0)
		return (int64_t)pvti_mul_shift32(ticks - clock->tick0, clock->mult);
	return -(int64_t)pvti_mul_shift32(clock->tick0 - ticks, clock->mult);
}

/* --- Chunk codec: the format library's (db-schema/event-chunk.h) --- */

#include "event-chunk.h"

/* --- Records and per-thread buffers (pvti.c) ---------------------------- */

enum {
	PVTI_REC_SPAN = 1,    /* a span that ended */
	PVTI_REC_INSTANT = 2, /* an instant event */
	PVTI_REC_SAMPLE = 3,  /* a value added to a series */
};

/* One record: 32 bytes, written by its thread, read by the writer. */
typedef struct pvti_rec {
	uint64_t start;   /* ticks: span begin, instant or sample time */
	uint64_t end;     /* ticks: span end; SAMPLE: the value's bits (double) */
	uint32_t seq;     /* SPAN: its begin ordinal in the thread */
	uint32_t parent;  /* SPAN, INSTANT: innermost enclosing span's seq + 1; 0: none */
	uint32_t name;    /* string id; SAMPLE: series id */
	uint16_t channel; /* channel id */
	uint8_t depth;    /* SPAN, INSTANT: enclosing open spans */
	uint8_t kind;     /* PVTI_REC_* */
} pvti_rec;

#define PVTI_BLOCK_RECS 2048u
/* The most nesting recorded; deeper spans are counted and skipped. */
#define PVTI_MAX_DEPTH 250u
/* The most memory held in blocks (all threads) before producers wait. */
#define PVTI_MAX_BUFFERED_BYTES (128u << 20)

typedef struct pvti_block {
	struct pvti_block *_Atomic next; /* set by the producer once this is full */
	_Atomic uint32_t count;          /* records published */
	pvti_rec recs[PVTI_BLOCK_RECS];
} pvti_block;

/* An open span. */
typedef struct pvti_frame {
	uint64_t start;   /* ticks */
	uint32_t seq;
	uint32_t name;    /* string id */
	uint16_t channel; /* channel id */
} pvti_frame;

/* Per-thread cache of name pointer -> string id (a name may be a reused
 * buffer, so a hit also compares the text). */
#define PVTI_NAME_CACHE 64u
typedef struct pvti_name_slot {
	const char *ptr;   /* the caller's pointer last seen in this slot */
	const char *text;  /* the interned copy */
	uint32_t id;
} pvti_name_slot;

typedef struct pvti_thread pvti_thread;
struct pvti_thread {
	/* Written only by the owning thread. */
	pvti_block *cur;      /* block being filled */
	uint32_t pos;         /* records in cur */
	_Atomic uint32_t gen; /* trace generation the stack belongs to */
	uint32_t next_seq;    /* seq of the next begin */
	uint32_t too_deep;    /* begins skipped past PVTI_MAX_DEPTH, not yet ended */
	_Atomic uint32_t depth;           /* open spans in stack (read at close) */
	_Atomic uint64_t unbalanced;      /* ends with no open span on their channel */
	_Atomic uint64_t dropped;         /* records lost (no memory) */
	_Atomic uint64_t skipped_deep;    /* spans skipped past PVTI_MAX_DEPTH */
	pvti_frame stack[PVTI_MAX_DEPTH];
	pvti_name_slot names[PVTI_NAME_CACHE];

	/* Set once, before the thread is listed. */
	uint32_t id;          /* thread.id in the file (>= 1) */
	int tid;              /* OS thread id */

	/* Under pvti_lock. */
	char name[64];        /* trace name of the thread */
	uint32_t name_version;/* bumped by pvti_thread_set_name */
	pvti_thread *next;    /* the registry's list */
	_Atomic bool exited;  /* the thread has ended (release by the thread) */

	/* The writer's alone. */
	pvti_block *rd;       /* block being drained */
	uint32_t rd_pos;      /* records of rd already read */
};

/* --- Shared registries (pvti.c) ----------------------------------------- */

/* Guards the registries, the thread list and the message queue. Held
 * only for short copies, never during SQLite work. */
extern pthread_mutex_t pvti_lock;

struct pvti_channel {
	uint16_t id;            /* index in the channel table */
	const char *name;       /* static for built-ins, else malloc'd */
	_Atomic bool enabled;
};

struct pvti_graph {
	uint32_t id;
	char *name, *unit;
};

struct pvti_series {
	uint32_t id;
	pvti_graph *graph;
	char *name;
};

struct pvti_heatmap {
	uint32_t id;
	char *name, *unit;
	double *edges;
	size_t n_edges;
};

/* A snapshot of the registries, taken under pvti_lock by the writer: the
 * arrays are the registries' own (they only grow; items never move),
 * valid to read up to the counts given. */
typedef struct pvti_registry_view {
	const char *const *strings;   /* by string id */
	size_t n_strings;
	pvti_channel *const *channels;/* by channel id */
	size_t n_channels;
	pvti_graph *const *graphs;
	size_t n_graphs;
	pvti_series *const *series;
	size_t n_series;
	pvti_heatmap *const *heatmaps;
	size_t n_heatmaps;
} pvti_registry_view;

/* Fills *view; the caller holds pvti_lock. The arrays pointed to may be
 * reallocated after the lock is released, so the writer copies what it
 * needs while holding it. */
void pvti_registry_view_locked(pvti_registry_view *view);

/* Interns `text`: its process-wide string id. The caller holds no lock. */
int pvti_intern(uint32_t *out, const char *text);

/* Messages from the slow calls to the writer. */
typedef enum pvti_msg_kind {
	PVTI_MSG_EVENT_METADATA = 1, /* thread, seq, text */
	PVTI_MSG_TRACE_METADATA,     /* key, text */
	PVTI_MSG_HEATMAP,            /* id, ticks, counts[n] */
} pvti_msg_kind;

typedef struct pvti_msg {
	struct pvti_msg *next;
	pvti_msg_kind kind;
	uint32_t thread, id;
	uint64_t seq;
	uint64_t ticks;
	char *key, *text;
	uint64_t *counts;
	size_t n;
} pvti_msg;

void pvti_msg_free(pvti_msg *msg);

/* Bumped (under pvti_lock) by every slow call the writer must act on
 * that is not a record: a queued message, a thread renamed. */
extern _Atomic uint64_t pvti_changes_;

/* Takes every queued message, oldest first (the caller frees them). */
pvti_msg *pvti_take_messages(void);
/* The first listed thread; the list only grows at its head, so a writer
 * may walk it from a head read under pvti_lock without the lock. */
pvti_thread *pvti_threads_head_locked(void);
/* Removes and frees threads that have exited and been drained; the
 * writer calls it between passes (takes pvti_lock). */
void pvti_threads_prune(void);
/* Returns a drained block to the pool. */
void pvti_block_release(pvti_block *block);

/* --- Options (pvti-options.c) -------------------------------------------- */

/* The options as JSON text (malloc'd, for trace_metadata), or NULL. */
char *pvti_options_to_json(const pvti_options *opts);

/* --- The trace and its writer (pvti-writer.c) ------------------------------ */

typedef struct pvti_trace pvti_trace;

/* Creates the file in opts->directory (made if missing), writes the
 * schema and the process row, and starts the writer thread. `warning`
 * (may be NULL) goes into trace_metadata; `gen` is the trace generation
 * (threads of other generations are not counted in its summary). On
 * failure returns a negative code with tsi_error_last() set and *out
 * NULL. */
int pvti_trace_new(pvti_trace **out, const pvti_options *opts, const char *warning,
                   uint32_t gen);
/* The file's path (owned by the trace). */
const char *pvti_trace_path(const pvti_trace *trace);
/* The trace's clock (its origin is what straggling records are compared with). */
const pvti_clock *pvti_trace_clock(const pvti_trace *trace);
/* Waits for a writer pass that starts after the call. */
int pvti_trace_flush(pvti_trace *trace);
/* Stops the writer after a last pass, writes the summaries, closes the
 * file and frees the trace. Returns TSI_OK or the first write error. */
int pvti_trace_finish(pvti_trace *trace);

/* Non-zero while the writer sleeps for want of work (pvti-writer.c). A
 * producer reads it, without a fence, after publishing a record or a
 * change, and calls pvti_writer_wake() when set. */
extern _Atomic int pvti_writer_idle_;
/* Wakes a writer that sleeps for want of work (cheap when it does not). */
void pvti_writer_wake_slow(void);
static inline void pvti_writer_wake(void)
{
	if (__builtin_expect(atomic_load_explicit(&pvti_writer_idle_, memory_order_relaxed), 0))
		pvti_writer_wake_slow();
}

/* The recording flag (pvti.c), cleared by the writer when the duration
 * runs out. */
void pvti_set_recording(bool on);

/* Writes the name "<date>_<time>_<TZ>_<pid>.pvti" for wall time `wall_s`
 * (local time) into buf; returns its length or -1 when it does not fit. */
int pvti_file_base_name(char *buf, size_t size, int64_t wall_s, int pid);
