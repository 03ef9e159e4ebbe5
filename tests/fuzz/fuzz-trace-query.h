/*
 * The queries the trace fuzz targets (fuzz_trace.c: .pvti, and
 * fuzz_chrome_json.c: Chrome trace-event JSON) run over what opens: info,
 * processes and their metadata, threads, channels, names, events of each
 * thread at three resolutions with their metadata, label statistics (with
 * and without medians, whole trace, a window, one thread), totals, call
 * trees, counter series and buckets, instants, name matching and search
 * (substring and regex), the Chrome export, and read-only SQL over the
 * file. What they return is dropped: the target looks for crashes, leaks
 * and hangs.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <tilescope/trace.h>

/* Every query over `t`. */
void fuzz_trace_query(tsr_trace *t);
/* Writes the input to `file_name` in the fuzz directory (its extension
 * picks the format tsr_trace_open reads), opens it memory capped and, when
 * it opens, queries it. */
void fuzz_trace_run(const char *file_name, const uint8_t *data, size_t size);
