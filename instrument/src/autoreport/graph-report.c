/*
 * POPLAR_GRAPH_REPORT_DEST / debug.graphReportDestination: the graph
 * summary printed when compilation ends, as Poplar prints it.
 *
 * The summary is reportlib's formatter (the same text `tilescope summary`
 * prints), which reads profile.pop files: the runtime links reportlib for
 * this (reportlib itself links no runtime code). Without an autoReport
 * profile.pop the graph profile is written to a temporary directory,
 * printed and removed.
 */
#include "autoreport-private.h"

#include <tilescope/summary.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Opens `report_path` with reportlib and prints its summary with the
 * default options; a failure to read it is printed in its place. */
static int print_summary(FILE *out, const char *report_path)
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

/* Opens the destination: stdout, stderr or a file (created/truncated).
 * *close_it says whether the caller closes it. */
static FILE *open_dest(const char *dest, bool *close_it)
{
	*close_it = false;
	if (strcmp(dest, "stdout") == 0)
		return stdout;
	if (strcmp(dest, "stderr") == 0)
		return stderr;
	*close_it = true;
	return fopen(dest, "w");
}

int tsi_graph_report_print(const char *dest, const struct tsi_graph_profile *gp,
                           const tsi_options *options, const char *report_path)
{
	char tmp_dir[] = "/tmp/tilescope-graph-report.XXXXXX";
	char tmp_path[sizeof(tmp_dir) + 16];
	tsi_report_writer *w = NULL;
	tsi_report_meta meta;
	bool close_it = false, made_dir = false;
	FILE *out = NULL;
	int rc = TSI_OK;

	if (!report_path) {
		if (!mkdtemp(tmp_dir))
			return tsi_set_error(TSI_ERR_IO, "cannot make a temporary directory for the "
			                                 "graph report: %s", strerror(errno));
		made_dir = true;
		snprintf(tmp_path, sizeof(tmp_path), "%s/profile.pop", tmp_dir);
		memset(&meta, 0, sizeof(meta));
		meta.options = options;
		meta.tilescope_version = "graph report";
		meta.lowered_vars = true;
		rc = tsi_report_writer_new(&w, tmp_path, gp, &meta);
		if (rc)
			goto out;
		report_path = tmp_path;
	}
	out = open_dest(dest, &close_it);
	if (!out) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot open the graph report destination '%s': %s",
		                   dest, strerror(errno));
		goto out;
	}
	rc = print_summary(out, report_path);
	fflush(out);
	if (rc)
		rc = tsi_set_error(TSI_ERR_IO, "printing the graph report of '%s' failed (%d)",
		                   report_path, rc);
out:
	if (out && close_it)
		fclose(out);
	tsi_report_writer_free(w);
	if (made_dir) {
		unlink(tmp_path);
		rmdir(tmp_dir);
	}
	return rc;
}
