/*
 * Target presets (Mk1, Mk2 GC200, Bow, CPU) and simulated devices with
 * their connection types (ALWAYS, ON_DEMAND, PRE_COMPILE, NEVER).
 */
#include "../ipu-private.h"

#include "format.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Published figures of each IPU generation. Peak AMP throughput per tile
 * and cycle: Mk1 125 TFLOPS / (1,216 tiles x 1.6 GHz) = 64; Mk2 and Bow
 * 128 (Bow: 1,472 x 1.85 GHz x 128 = 348.6 TFLOPS, the notebook's peak).
 * fp32 is a quarter of that. Exchange: 4 bytes per tile per cycle. */
static const struct preset {
	unsigned tiles;
	uint64_t bytes_per_tile;
	uint64_t clock_hz;
	unsigned amp_flops;
} presets[] = {
	[TSI_IPU_MK2] = {1472, 624 * 1024, 1330000000u, 128},
	[TSI_IPU_MK1] = {1216, 256 * 1024, 1600000000u, 64},
	[TSI_IPU_BOW] = {1472, 624 * 1024, 1850000000u, 128},
};
/* The versions' names (Mk2, ...) and target names (ipu2, ...) are the
 * vocabulary's, in this enumeration's order. */
_Static_assert(TSI_IPU_MK2 == 0 && TSI_IPU_BOW + 1 == TSF_IPU_VERSION_COUNT,
               "tsi_ipu_version follows the vocabulary");

TSI_API int tsi_target_ipu(tsi_target *out, tsi_ipu_version version, unsigned num_ipus,
                           unsigned tiles_per_ipu)
{
	if (!out)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_target_ipu: out is NULL");
	if ((unsigned)version > TSI_IPU_BOW)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "unknown IPU version %u", (unsigned)version);
	const struct preset *p = &presets[version];
	if (num_ipus == 0 || num_ipus > 1024)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "number of IPUs must be between 1 and 1024, not %u", num_ipus);
	if (tiles_per_ipu > p->tiles)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "an %s IPU has %u tiles; cannot model %u tiles per IPU",
		                     tsf_ipu_target_name((int)version), p->tiles, tiles_per_ipu);
	memset(out, 0, sizeof(*out));
	out->kind = TSI_TARGET_IPU_MODEL;
	out->version = version;
	snprintf(out->name, sizeof(out->name), "%s", tsf_ipu_target_name((int)version));
	out->num_ipus = num_ipus;
	out->tiles_per_ipu = tiles_per_ipu ? tiles_per_ipu : p->tiles;
	out->num_tiles = out->num_ipus * out->tiles_per_ipu;
	out->bytes_per_tile = p->bytes_per_tile;
	out->clock_hz = p->clock_hz;
	out->num_worker_contexts = 6;
	out->exchange_bytes_per_cycle = 4;
	out->fp16_amp_flops_per_cycle = p->amp_flops;
	out->fp32_flops_per_cycle = p->amp_flops / 4;
	return TSI_OK;
}

/* The CPU target: one tile with one worker and (practically) unbounded
 * memory, as Poplar's CPU device. */
TSI_API void tsi_target_cpu(tsi_target *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = TSI_TARGET_CPU;
	out->version = TSI_IPU_MK2;
	snprintf(out->name, sizeof(out->name), "cpu");
	out->num_ipus = 1;
	out->tiles_per_ipu = 1;
	out->num_tiles = 1;
	out->bytes_per_tile = UINT64_C(1) << 40;
	out->clock_hz = 1000000000u;
	out->num_worker_contexts = 1;
	out->exchange_bytes_per_cycle = 4;
	out->fp16_amp_flops_per_cycle = 1;
	out->fp32_flops_per_cycle = 1;
}

TSI_API double tsi_target_peak_flops(const tsi_target *target)
{
	return (double)target->num_tiles * (double)target->clock_hz *
	       (double)target->fp16_amp_flops_per_cycle;
}

static const char *const connection_names[] = {
	[TSI_CONNECT_ALWAYS] = "ALWAYS",
	[TSI_CONNECT_ON_DEMAND] = "ON_DEMAND",
	[TSI_CONNECT_PRE_COMPILE] = "PRE_COMPILE",
	[TSI_CONNECT_NEVER] = "NEVER",
};

TSI_API int tsi_connection_type_parse(tsi_connection_type *out, const char *text)
{
	for (unsigned i = 0; text && i < sizeof(connection_names) / sizeof(*connection_names); i++) {
		if (strcasecmp(text, connection_names[i]) == 0) {
			*out = (tsi_connection_type)i;
			return TSI_OK;
		}
	}
	return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
	                     "unknown device connection type '%s' (use ALWAYS, ON_DEMAND, "
	                     "PRE_COMPILE or NEVER)",
	                     text ? text : "(null)");
}

TSI_API const char *tsi_connection_type_name(tsi_connection_type type)
{
	return (unsigned)type <= TSI_CONNECT_NEVER ? connection_names[type] : "UNKNOWN";
}

/* Allocates a device; ALWAYS devices attach at once, as Poplar's do. */
static int device_new(tsi_device **out, const tsi_target *target, tsi_connection_type connection)
{
	tsi_device *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory creating a device");
	d->target = *target;
	d->connection = connection;
	tsi_log(TSI_LOG_INFO, "DEVICE", "Created %s device '%s' (%u IPU%s x %u tiles), connection %s",
	        target->kind == TSI_TARGET_CPU ? "CPU" : "IPU Model", target->name, target->num_ipus,
	        target->num_ipus == 1 ? "" : "s", target->tiles_per_ipu,
	        tsi_connection_type_name(connection));
	if (connection == TSI_CONNECT_ALWAYS)
		tsi_device_attach(d);
	*out = d;
	return TSI_OK;
}

TSI_API int tsi_device_new_ipu_model(tsi_device **out, const tsi_ipu_model_options *opts)
{
	tsi_ipu_model_options defaults = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_target target;
	int rc;

	if (!out)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_device_new_ipu_model: out is NULL");
	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (opts->version != TSI_IPU_MODEL_OPTIONS_VERSION)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_ipu_model_options version %u is not %u: start from "
		                     "TSI_IPU_MODEL_OPTIONS_INIT",
		                     opts->version, TSI_IPU_MODEL_OPTIONS_VERSION);
	if ((unsigned)opts->connection > TSI_CONNECT_NEVER)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "unknown connection type %u",
		                     (unsigned)opts->connection);
	rc = tsi_target_ipu(&target, opts->ipu_version, opts->num_ipus, opts->tiles_per_ipu);
	if (rc)
		return rc;
	return device_new(out, &target, opts->connection);
}

TSI_API int tsi_device_new_cpu(tsi_device **out)
{
	tsi_target target;

	if (!out)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_device_new_cpu: out is NULL");
	tsi_target_cpu(&target);
	return device_new(out, &target, TSI_CONNECT_ALWAYS);
}

TSI_API void tsi_device_free(tsi_device *device)
{
	free(device);
}

TSI_API const tsi_target *tsi_device_get_target(const tsi_device *device)
{
	return device ? &device->target : NULL;
}

TSI_API tsi_connection_type tsi_device_get_connection(const tsi_device *device)
{
	return device ? device->connection : TSI_CONNECT_NEVER;
}

TSI_API int tsi_device_attach(tsi_device *device)
{
	if (!device)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_device_attach: device is NULL");
	if (device->connection == TSI_CONNECT_PRE_COMPILE || device->connection == TSI_CONNECT_NEVER)
		return tsi_set_error(TSI_ERR_NOT_ATTACHED,
		                     "a device with connection type %s never attaches",
		                     tsi_connection_type_name(device->connection));
	if (!device->attached) {
		device->attached = true;
		tsi_log(TSI_LOG_INFO, "DEVICE", "Attached to device '%s'", device->target.name);
	}
	return TSI_OK;
}

TSI_API void tsi_device_detach(tsi_device *device)
{
	if (device && device->attached) {
		device->attached = false;
		tsi_log(TSI_LOG_INFO, "DEVICE", "Detached from device '%s'", device->target.name);
	}
}

TSI_API bool tsi_device_is_attached(const tsi_device *device)
{
	return device && device->attached;
}
