/*
 * Installs reportlib's summary formatter in the runtime when the library is
 * loaded, so that POPLAR_GRAPH_REPORT_DEST (and debug.graphReportDestination)
 * print the same printProfileSummary text as `tilescope summary`. The
 * runtime cannot call reportlib directly: reportlib links the runtime.
 */
#include "tilescope/summary.h"

#include <tilescope/engine.h>

/* Opens `report_path` and prints its summary with the default options. */
static int print_report_summary(FILE *out, const char *report_path)
{
	tsr_summary_options opts = TSR_SUMMARY_OPTIONS_INIT;
	tsr_report *report = NULL;
	int rc = tsr_report_open(&report, report_path, NULL);

	if (rc) {
		fprintf(out, "graph report: %s\n", tsr_last_error());
		return rc;
	}
	rc = tsr_summary_print(out, report, &opts);
	tsr_report_free(report);
	return rc;
}

__attribute__((constructor)) static void install_summary_printer(void)
{
	tsi_set_summary_printer(print_report_summary);
}
