/*
 * libFuzzer target: PVTI_OPTIONS. The input is the variable's value,
 * parsed with pvti_options_parse; whatever it returns, the options it
 * hands back are read field by field (ASan checks each string and the
 * channel list) and freed. The trace is never opened, so no file is
 * written wherever the input's "directory" points.
 */
#include "fuzz-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/error.h>
#include <tilescope/pvti.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_dup_string(data, size);
	pvti_options *opts = NULL;
	volatile size_t sink = 0;

	(void)pvti_options_parse(&opts, text);
	(void)tsi_error_last();
	if (opts) {
		if (opts->directory)
			sink += strlen(opts->directory);
		for (size_t i = 0; i < opts->n_channels; i++)
			sink += strlen(opts->channels[i]);
		sink += opts->enable + (opts->duration > 0);
	}
	pvti_options_free(opts);
	free(text);
	(void)sink;
	return 0;
}
