/*
 * libFuzzer target: POPLAR_ENGINE_OPTIONS. The input is the variable's
 * value, resolved as an engine does it (tsi_engine_config_resolve: parse
 * the JSON, validate every name and value against the option table,
 * merge with options given in code, fill the configuration). The
 * runtime has no public entry point that parses without compiling a
 * graph, so this target links the runtime's internal library; an engine
 * is never made, so no report is ever written wherever the input's
 * autoReport.directory points.
 */
#include "fuzz-util.h"

#include <stdlib.h>

#include <tilescope/engine.h>

#include "autoreport/autoreport-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_dup_string(data, size);
	tsi_options *code = tsi_options_new();
	tsi_options *effective = NULL;
	tsi_engine_config cfg;

	/* Options from code too, so that merging with them is reached. */
	if (!code)
		abort();
	tsi_options_set(code, "debug.instrument", "true");
	tsi_options_set(code, "autoReport.outputGraphProfile", "false");
	setenv("POPLAR_ENGINE_OPTIONS", text, 1);
	if (tsi_engine_config_resolve(&cfg, &effective, code) == TSI_OK) {
		for (size_t i = 0; i < tsi_options_count(effective); i++) {
			const char *name, *value;

			if (tsi_options_at(&name, &value, effective, i) == TSI_OK)
				(void)tsi_options_lookup(effective, name);
		}
		tsi_engine_config_clear(&cfg);
	}
	(void)tsi_error_last();
	tsi_options_free(effective);
	tsi_options_free(code);
	unsetenv("POPLAR_ENGINE_OPTIONS");
	free(text);
	return 0;
}
