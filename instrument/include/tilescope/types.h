/*
 * Element types, error codes and shared macros of the Tilescope IPU Model
 * runtime (libtilescope-instrument). Every public symbol of the runtime
 * starts with tsi_ / TSI_.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TSI_BUILDING_LIBRARY)
#define TSI_API __attribute__((visibility("default")))
#else
#define TSI_API
#endif

/* Poplar's device types. HALF is IEEE 754 binary16, held on the host as
 * its uint16_t bit pattern; BOOL is one byte. */
typedef enum tsi_type {
	TSI_FLOAT = 0,
	TSI_HALF,
	TSI_INT,
	TSI_UNSIGNED_INT,
	TSI_SHORT,
	TSI_UNSIGNED_SHORT,
	TSI_CHAR,
	TSI_UNSIGNED_CHAR,
	TSI_BOOL,
	TSI_TYPE_COUNT
} tsi_type;

/* Error codes. 0 is success; every failure is negative. A message that
 * names the offending object is kept beside the code (see
 * tsi_error_last(), tsi_graph_error(), tsi_engine_error()). */
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

/* Size in bytes of one element of the given type on the device. */
TSI_API size_t tsi_type_size(tsi_type type);
/* Poplar's name of the type ("float", "half", "int", ...). */
TSI_API const char *tsi_type_name(tsi_type type);
/* IEEE binary16 conversions (round to nearest even). */
TSI_API uint16_t tsi_half_from_float(float value);
TSI_API float tsi_half_to_float(uint16_t bits);
/* Reads element `index` of a host array of device type `type` as a double. */
TSI_API double tsi_type_load(tsi_type type, const void *base, size_t index);
/* Writes `value` into element `index` of a host array of device type
 * `type`, converting (integers truncate toward zero, BOOL is value != 0). */
TSI_API void tsi_type_store(tsi_type type, void *base, size_t index, double value);

/* The message of the last failure of a call that has no handle to keep it
 * (tsi_engine_new, tsi_device_new_*); valid until the next failing call on
 * this thread. Never NULL. */
TSI_API const char *tsi_error_last(void);

/* Shape helper: expands to the two arguments `rank, shape` that the graph
 * functions take, e.g. tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 4), "v3"). */
#define TSI_SHAPE(...)                                                    \
	(sizeof((const size_t[]){__VA_ARGS__}) / sizeof(size_t)),             \
	    ((const size_t[]){__VA_ARGS__})

/* The most dimensions a tensor may have. */
#define TSI_MAX_RANK 8

#ifdef __cplusplus
}
#endif
