/*
 * libFuzzer target: a .pvti trace. The input is written to a file and
 * opened with tsr_trace_open (memory capped), then every trace query is
 * called (fuzz-trace-query.h).
 */
#include "fuzz-trace-query.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run("fuzz.pvti", data, size);
	return 0;
}
