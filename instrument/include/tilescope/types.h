/*
 * Element types, error codes and shared macros of the Tilescope IPU Model
 * runtime (libtilescope-instrument). Every public symbol of the runtime
 * starts with tsi_ / TSI_.
 */
#pragma once

#include <tilescope/error.h>
/* tsi_type and TSI_MAX_RANK: the profile document's (libtilescope-format) */
#include <tilescope/profile-document.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

/* An index or id that names nothing: -1 in the field's type (ipu.h). */
#define TSI_NONE (-1)




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


/* Shape helper: expands to the two arguments `rank, shape` that the graph
 * functions take, e.g. tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 4), "v3"). */
#define TSI_SHAPE(...)                                                    \
	(sizeof((const size_t[]){__VA_ARGS__}) / sizeof(size_t)),             \
	    ((const size_t[]){__VA_ARGS__})

/* The shape of a scalar (rank 0, one element), for the same functions:
 * tsi_graph_add_variable(g, TSI_FLOAT, TSI_SCALAR, "loss"). TSI_SHAPE()
 * with no sizes is not C (an empty initializer), hence this name. */
#define TSI_SCALAR 0, ((const size_t *)0)

TSB_END_DECLS
