/*
 * A report's graph and execution profiles in the shape of the Poplar user
 * guide's "Profiling" chapter, as JSON or CBOR: the same documents
 * tilescope/serialise.h writes from a live engine, rebuilt from the file,
 * for scripts written against Poplar's JSON profiles.
 *
 * Threads (report.h's contract): the report is used by one thread at a
 * time during an export (it loads steps and variables into the handle);
 * exports of different handles may run at once. These calls do not
 * report progress (see tsr_progress_cb).
 */
#pragma once

#include "report.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_export_format {
	TSR_EXPORT_JSON = 0,
	TSR_EXPORT_CBOR
} tsr_export_format;

/* *out is malloc'd (JSON: NUL-terminated, not counted in *out_len); the
 * caller frees it with free(). */
TSR_API int tsr_export_graph_profile(void **out, size_t *out_len, tsr_report *report,
                                     tsr_export_format format);
/* Every run kept, on one cycle axis, as tsi_execution_profile_serialise. */
TSR_API int tsr_export_execution_profile(void **out, size_t *out_len, tsr_report *report,
                                         tsr_export_format format);
/* The same documents written to `out` as they are made, so memory stays
 * bounded whatever their size (the buffer forms above hold the whole
 * document, and refuse one whose names alone would pass the memory cap).
 * A failed write is TSR_ERR_IO with the system's reason; what was
 * written before it stays in `out`. */
TSR_API int tsr_export_write_graph_profile(FILE *out, tsr_report *report,
                                           tsr_export_format format);
TSR_API int tsr_export_write_execution_profile(FILE *out, tsr_report *report,
                                               tsr_export_format format);

#ifdef __cplusplus
}
#endif
