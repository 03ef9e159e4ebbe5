/*
 * The error convention shared by the runtime (libtilescope-instrument)
 * and its tracer (libtilescope-pvti), from libtilescope-base (their
 * export macro, TSI_API, is tsb-api.h's): the codes every tsi_ and pvti_
 * call returns, and the thread-local message of the last failure of a
 * call that has no handle to keep one in. "" means no message; a message
 * is valid until the next failing call on the same thread, whichever of
 * the two libraries made it.
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stdarg.h>

TSB_BEGIN_DECLS

/* Error codes. 0 is success; every failure is negative. A message that
 * names the offending object is kept beside the code (see
 * tsi_error_last(), tsi_graph_get_error(), tsi_engine_error()). */
typedef enum tsi_error_code {
	TSI_OK = 0,
	TSI_ERR_INVALID_ARGUMENT = -1,   /* a bad argument from the caller */
	TSI_ERR_NO_MEMORY = -2,          /* the host ran out of memory */
	TSI_ERR_UNMAPPED_TENSOR = -3,    /* a tensor element has no tile */
	TSI_ERR_UNMAPPED_VERTEX = -4,    /* a vertex has no tile */
	TSI_ERR_UNCONNECTED_FIELD = -5,  /* a vertex field was never connected */
	TSI_ERR_FIELD_SIZE_MISMATCH = -6,/* a field's tensor has the wrong size or type */
	TSI_ERR_UNKNOWN_VERTEX_TYPE = -7,/* no codelet of that name */
	TSI_ERR_STREAM_NOT_CONNECTED = -8,/* a stream copy ran with no host buffer */
	TSI_ERR_NOT_ATTACHED = -9,       /* the device cannot run (NEVER, not loaded) */
	TSI_ERR_UNKNOWN_HANDLE = -10,    /* no host read/write handle or stream of that name */
	TSI_ERR_VERTEX_FAILED = -11,     /* a vertex's compute function returned false */
	TSI_ERR_BAD_OPTION = -12,        /* an engine option is unknown or has a bad value */
	TSI_ERR_INVALID_GRAPH = -13,     /* graph construction recorded an error earlier */
	TSI_ERR_OUT_OF_RANGE = -14,      /* a run-time index (switch, remote offset) is out of range */
	TSI_ERR_OUT_OF_MEMORY = -15,     /* tiles need more memory than they have */
	TSI_ERR_IO = -16                 /* a report or trace file could not be written */
} tsi_error_code;

/* The message of the last failure of a call that has no handle to keep it
 * (tsi_engine_new, tsi_device_new_*); valid until the next failing call on
 * this thread. "" on a thread that has had no failure; never NULL. */
TSI_API const char *tsi_error_last(void);

/* For Tilescope's own libraries: formats the message of a failure with
 * `code` into the calling thread's buffer and returns `code`, so that a
 * failing path reads `return tsi_set_error(TSI_ERR_..., "...", ...);`. */
TSI_API int tsi_set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
TSI_API int tsi_set_errorv(int code, const char *fmt, va_list ap);

TSB_END_DECLS
