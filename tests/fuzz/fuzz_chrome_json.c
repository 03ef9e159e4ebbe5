/*
 * libFuzzer target: a Chrome trace-event JSON file (reportlib's streaming
 * import, trace-chrome.c). The input is written to a .json file and
 * opened with tsr_trace_open (memory capped); what opens gets the same
 * queries as a .pvti trace (fuzz-trace-query.h): what the System Analyser
 * and `tilescope trace` ask, and the export back to JSON.
 */
#include "fuzz-trace-query.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run("fuzz.json", data, size);
	return 0;
}
