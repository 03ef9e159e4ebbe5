/*
 * A program outside the tree, built against the installed libraries with
 * pkg-config only: it reads a report with reportlib and asks the runtime
 * for a target, and prints what each says.
 */
#include <tilescope/instrument-version.h>
#include <tilescope/report-version.h>
#include <tilescope/report.h>
#include <tilescope/target.h>

#include <stdio.h>

int main(int argc, char **argv)
{
	tsr_report *report = NULL;
	tsi_target target;

	if (argc != 2) {
		fprintf(stderr, "usage: example REPORT\n");
		return 2;
	}
	if (tsr_report_open(&report, argv[1], NULL)) {
		fprintf(stderr, "example: %s\n", tsr_last_error());
		return 1;
	}
	if (tsi_target_ipu(&target, TSI_IPU_MK2, 1, 0)) {
		tsr_report_free(report);
		return 1;
	}
	printf("version %s\n", TILESCOPE_VERSION_STRING);
	printf("report tiles %u\n", tsr_report_get_target(report)->num_tiles);
	printf("runtime tiles %u\n", target.num_tiles);
	tsr_report_free(report);
	return 0;
}
