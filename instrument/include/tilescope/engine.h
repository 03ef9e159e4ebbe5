/*
 * Engine options and the engine: compiles a graph and its programs for a
 * target, loads onto a device, runs programs by index, and moves data
 * between host and device (host handles, streams, remote buffers).
 */
#pragma once

#include "program.h"

#include <stdio.h>

TSB_BEGIN_DECLS

/* --- Option flags (Poplar's OptionFlags) -------------------------------- */

typedef struct tsi_options tsi_options;

/* An empty set of options. The caller frees with tsi_options_free(). */
TSI_API tsi_options *tsi_options_new(void);
TSI_API void tsi_options_free(tsi_options *opts);
/* Sets `name` to `value` (both copied); a later set replaces. */
TSI_API int tsi_options_set(tsi_options *opts, const char *name, const char *value);
/* The value of `name`, or NULL when it is not set (not an error).
 * Borrowed until the next set or free. */
TSI_API const char *tsi_options_lookup(const tsi_options *opts, const char *name);
TSI_API size_t tsi_options_count(const tsi_options *opts);
/* The i-th option in insertion order, into *name and *value (either may
 * be NULL; both borrowed until the next set or free). */
TSI_API int tsi_options_at(const char **name, const char **value, const tsi_options *opts,
                           size_t i);

/* The table of every engine option Tilescope knows (Poplar's documented
 * options plus their types and defaults), for tools and documentation. */
typedef struct tsi_option_info {
	const char *name;          /* "autoReport.all" */
	const char *type;          /* "bool", "integer", "decimal", "string" or "enum" */
	const char *default_value; /* as text; "" when there is none */
	const char *accepted;      /* enum: values separated by '|'; else a phrase */
	bool modelled;             /* false: accepted and logged, not acted on */
	const char *description;   /* one line */
} tsi_option_info;

/* How many options the table holds. */
TSI_API size_t tsi_engine_option_count(void);
/* Row `i` of the table (borrowed, static), or NULL past the end. */
TSI_API const tsi_option_info *tsi_engine_option_info(size_t i);

/* --- The engine ---------------------------------------------------------- */

typedef struct tsi_engine tsi_engine;

/* Compiles `graph` with `programs[0..n)` (run later by index). `opts` may
 * be NULL. Compilation checks that every tensor used is mapped, every
 * vertex is mapped, has a known type and connected fields of the right
 * size. On failure returns a negative code (TSI_ERR_UNMAPPED_TENSOR ...),
 * *out is NULL, and tsi_error_last() names the tensor, vertex or field.
 * The caller frees with tsi_engine_free(). The graph must outlive the
 * engine.
 *
 * Options come from `opts` and from the environment variable
 * POPLAR_ENGINE_OPTIONS (a JSON object, as for Poplar), which wins. A bad
 * option fails with TSI_ERR_BAD_OPTION. autoReport options make the engine
 * write profile.pop (graph profile from the end of compilation, even for a
 * program that does not fit; runs as they are kept) and debug.cbor into
 * autoReport.directory; a directory the report cannot be created in fails
 * the call with TSI_ERR_IO. The graph profile's files are filled by a
 * thread of their own while the program loads and runs (in place when the
 * program does not fit); profile.pop appears, the graph profile alone,
 * as soon as that thread has written it. They are complete once the first
 * run's profile is added, once tsi_engine_wait_reports() returns, when the
 * engine is freed and when the program exits (exit() or returning from
 * main); a failure to fill them fails the call that waits. */
TSI_API int tsi_engine_new(tsi_engine **out, tsi_graph *graph,
                           tsi_program *const *programs, size_t n_programs,
                           const tsi_options *opts);
/* As tsi_engine_new, with a name (Poplar's Engine debug name): it names the
 * engine in logs and reports, and names its autoReport subdirectory when
 * one process makes several engines. `name` may be NULL. */
TSI_API int tsi_engine_new_named(tsi_engine **out, tsi_graph *graph,
                                 tsi_program *const *programs, size_t n_programs,
                                 const tsi_options *opts, const char *name);
TSI_API void tsi_engine_free(tsi_engine *engine);
/* Waits until the autoReport files being written in the background are
 * complete. Returns TSI_OK (also without autoReport) or the error that
 * writing them met (message in tsi_error_last()). */
TSI_API int tsi_engine_wait_reports(tsi_engine *engine);
/* Message of the engine's last failure (never NULL; "" when none). */
TSI_API const char *tsi_engine_error(const tsi_engine *engine);

/* Loads the compiled graph onto `device` (which must outlive the engine).
 * An ON_DEMAND device is attached here. A NEVER device cannot be loaded
 * (TSI_ERR_NOT_ATTACHED). Constants are written and variables zeroed. */
TSI_API int tsi_engine_load(tsi_engine *engine, tsi_device *device);
/* Runs program `index`. Fails with TSI_ERR_NOT_ATTACHED when not loaded.
 * On a PRE_COMPILE device it executes nothing and succeeds. */
TSI_API int tsi_engine_run(tsi_engine *engine, size_t index);
TSI_API size_t tsi_engine_num_programs(const tsi_engine *engine);

/* Host handles. `bytes` must equal the tensor's size in bytes. Writing
 * sets every replica; reading reads replica 0. */
TSI_API int tsi_engine_write_tensor(tsi_engine *engine, const char *handle,
                                    const void *buf, size_t bytes);
TSI_API int tsi_engine_read_tensor(tsi_engine *engine, const char *handle, void *buf,
                                   size_t bytes);
TSI_API int tsi_engine_write_tensor_replica(tsi_engine *engine, const char *handle,
                                            unsigned replica, const void *buf, size_t bytes);
TSI_API int tsi_engine_read_tensor_replica(tsi_engine *engine, const char *handle,
                                           unsigned replica, void *buf, size_t bytes);

/* Connects stream `name` to the host memory [begin, end), used as a
 * circular buffer: each copy takes (or gives) the stream's size in bytes
 * from where the last one stopped, wrapping at `end`. For every replica
 * (a PER_REPLICA stream then feeds each replica the same data). */
TSI_API int tsi_engine_connect_stream(tsi_engine *engine, const char *name, void *begin,
                                      void *end);
TSI_API int tsi_engine_connect_stream_replica(tsi_engine *engine, const char *name,
                                              unsigned replica, void *begin, void *end);

/* Called with the stream's buffer and its size: before the transfer of a
 * host-to-device stream (fill it), after that of a device-to-host one. */
typedef void (*tsi_stream_cb)(void *buf, size_t bytes, void *user_data);
TSI_API int tsi_engine_connect_stream_cb(tsi_engine *engine, const char *name,
                                         tsi_stream_cb cb, void *user_data);
TSI_API int tsi_engine_connect_stream_cb_replica(tsi_engine *engine, const char *name,
                                                 unsigned replica, tsi_stream_cb cb,
                                                 void *user_data);

/* Whole remote buffer contents of one replica, row-major (rows * numel). */
TSI_API int tsi_engine_write_remote(tsi_engine *engine, const char *name, unsigned replica,
                                    const void *buf, size_t bytes);
TSI_API int tsi_engine_read_remote(tsi_engine *engine, const char *name, unsigned replica,
                                   void *buf, size_t bytes);

/* Where PrintTensor writes (default stdout). */
TSI_API void tsi_engine_set_print_stream(tsi_engine *engine, FILE *out);

TSB_END_DECLS
