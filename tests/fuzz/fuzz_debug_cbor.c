/*
 * libFuzzer target: debug.cbor. A report directory holds a fixed, valid
 * profile.pop (FUZZ_DEBUG_CBOR_PROFILE, a small model's report kept
 * beside the corpus; TILESCOPE_FUZZ_PROFILE overrides it) and the input
 * as its debug.cbor. The directory is opened as autoReport leaves it and
 * the calls that read debug.cbor are made: the operations (which must
 * agree with profile.pop's debug contexts) with and without a run's
 * costs, the summary with the call-stack tree, and the graph export.
 */
#include "fuzz-util.h"

#include <stdio.h>
#include <stdlib.h>

#include <tilescope/export.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>

/* Copies the fixed profile.pop into the temporary directory, once. */
static void copy_profile(void)
{
	const char *src = getenv("TILESCOPE_FUZZ_PROFILE");
	static uint8_t buf[4 << 20];
	size_t n;
	FILE *f;

	if (!src || !*src)
		src = FUZZ_DEBUG_CBOR_PROFILE;
	f = fopen(src, "rb");
	if (!f) {
		perror(src);
		abort();
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n == 0 || n == sizeof(buf) || !fuzz_write_file("profile.pop", buf, n)) {
		fprintf(stderr, "fuzz: cannot copy %s\n", src);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	copy_profile();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tsr_open_options opts = TSR_OPEN_OPTIONS_INIT;
	tsr_summary_options so = TSR_SUMMARY_OPTIONS_INIT;
	tsr_report *r = NULL;
	tsr_operation *ops;
	char *json = NULL;
	void *blob = NULL;
	size_t n, len;

	if (!fuzz_write_file("debug.cbor", data, size))
		return 0;
	opts.memory_cap = FUZZ_MEMORY_CAP;
	if (tsr_report_open(&r, fuzz_tmpdir(), &opts) != TSR_OK)
		return 0;
	for (int64_t run = -1; run < 1; run++) {
		ops = NULL;
		if (tsr_report_list_operations(&ops, &n, r, run) == TSR_OK)
			free(ops);
	}
	so.show_var_storage = true;
	so.colours = TSR_COLOURS_NEVER;
	if (tsr_summary_dup_json(&json, r, &so) == TSR_OK)
		free(json);
	if (tsr_export_graph_profile(&blob, &len, r, TSR_EXPORT_CBOR) == TSR_OK)
		free(blob);
	tsr_report_free(r);
	return 0;
}
