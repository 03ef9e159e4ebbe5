/*
 * POPLAR_GRAPH_REPORT_DEST / debug.graphReportDestination: the graph
 * summary printed when compilation ends, as Poplar prints it.
 *
 * The summary is reportlib's formatter (the same text `tilescope summary`
 * prints), which reads profile.pop files. The runtime cannot link
 * reportlib (reportlib links the runtime), so libtilescope-report installs
 * its printer through tsi_set_summary_printer() when it is loaded; a model
 * not linked with it gets a warning instead of a summary. Without an
 * autoReport profile.pop the graph profile is written to a temporary
 * directory, printed and removed.
 */
#include "report-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tsi_summary_printer installed_printer;

TSI_API void tsi_set_summary_printer(tsi_summary_printer printer)
{
	__atomic_store_n(&installed_printer, printer, __ATOMIC_RELEASE);
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
	tsi_summary_printer printer = __atomic_load_n(&installed_printer, __ATOMIC_ACQUIRE);
	char tmp_dir[] = "/tmp/tilescope-graph-report.XXXXXX";
	char tmp_path[sizeof(tmp_dir) + 16];
	tsi_report_writer *w = NULL;
	tsi_report_meta meta;
	bool close_it = false, made_dir = false;
	FILE *out = NULL;
	int rc = TSI_OK;

	if (!printer) {
		tsi_log(TSI_LOG_WARN, "ENGINE",
		        "graph report destination '%s' is set but no summary printer is installed "
		        "(link the model with libtilescope-report)",
		        dest);
		return TSI_OK;
	}
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
	rc = printer(out, report_path);
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
