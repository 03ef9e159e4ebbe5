/*
 * Targets (what a graph is compiled for) and devices (what an engine runs
 * on): the IPU Model presets Mk1, Mk2 (GC200) and Bow, any number of IPUs,
 * a tile-count override, the CPU target, and the device connection types
 * ALWAYS / ON_DEMAND / PRE_COMPILE / NEVER.
 */
#pragma once

#include "types.h"

/* tsi_target, tsi_ipu_version: part of the graph profile (libtilescope-format) */
#include <tilescope/profile-document.h>

TSB_BEGIN_DECLS

/* Fills `out` with a preset IPU Model target. tiles_per_ipu == 0 keeps the
 * preset's tile count; otherwise it overrides it (1 .. the preset's count).
 * Returns TSI_OK or TSI_ERR_INVALID_ARGUMENT. */
TSI_API int tsi_target_ipu(tsi_target *out, tsi_ipu_version version,
                           unsigned num_ipus, unsigned tiles_per_ipu);
/* Fills `out` with the CPU target (one tile). */
TSI_API void tsi_target_cpu(tsi_target *out);
/* Peak flops per second of the whole target at fp16 AMP (for utilisation). */
TSI_API double tsi_target_peak_flops(const tsi_target *target);

typedef enum tsi_connection_type {
	TSI_CONNECT_ALWAYS = 0,  /* attach when the device is created (default) */
	TSI_CONNECT_ON_DEMAND,   /* attach when an engine is loaded onto it */
	TSI_CONNECT_PRE_COMPILE, /* never attach; runs execute nothing, reads give zeros */
	TSI_CONNECT_NEVER        /* never attach; compile only, running is an error */
} tsi_connection_type;

/* Parses "ALWAYS", "ON_DEMAND", "PRE_COMPILE" or "NEVER" (any case).
 * Returns TSI_OK or TSI_ERR_INVALID_ARGUMENT. */
TSI_API int tsi_connection_type_parse(tsi_connection_type *out, const char *text);
TSI_API const char *tsi_connection_type_name(tsi_connection_type type);

/* Options for creating an IPU Model device. Start from
 * TSI_IPU_MODEL_OPTIONS_INIT and change what you need. */
typedef struct tsi_ipu_model_options {
	unsigned version;             /* = TSI_IPU_MODEL_OPTIONS_VERSION */
	tsi_ipu_version ipu_version;  /* preset */
	unsigned num_ipus;            /* >= 1 */
	unsigned tiles_per_ipu;       /* 0: the preset's count */
	tsi_connection_type connection;
} tsi_ipu_model_options;

#define TSI_IPU_MODEL_OPTIONS_VERSION 1
#define TSI_IPU_MODEL_OPTIONS_INIT                                        \
	{ TSI_IPU_MODEL_OPTIONS_VERSION, TSI_IPU_MK2, 1, 0, TSI_CONNECT_ALWAYS }

typedef struct tsi_device tsi_device;

/* Creates a simulated IPU device. With TSI_CONNECT_ALWAYS it is attached at
 * once. On failure returns a negative code, *out is NULL and
 * tsi_error_last() says why. The caller frees with tsi_device_free(). */
TSI_API int tsi_device_new_ipu_model(tsi_device **out, const tsi_ipu_model_options *opts);
/* Creates the CPU device (one tile, attached at once). */
TSI_API int tsi_device_new_cpu(tsi_device **out);
TSI_API void tsi_device_free(tsi_device *device);
/* The device's target (borrowed, valid while the device lives). */
TSI_API const tsi_target *tsi_device_get_target(const tsi_device *device);
TSI_API tsi_connection_type tsi_device_get_connection(const tsi_device *device);
/* Attaches the device. Fails with TSI_ERR_NOT_ATTACHED for PRE_COMPILE and
 * NEVER devices, which never attach. Attaching twice is harmless. */
TSI_API int tsi_device_attach(tsi_device *device);
TSI_API void tsi_device_detach(tsi_device *device);
TSI_API bool tsi_device_is_attached(const tsi_device *device);

TSB_END_DECLS
