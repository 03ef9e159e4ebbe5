/* Code written for tsr_report_info.profiler_mode, a string until 0.4.0.
 * It is now tsr_report_info.profiler (tsr_profiler_mode, to compare) and
 * profiler_name (the word as the file spells it, to show), so this fails
 * and names the latter.
 * expect: member named [^a-z_]*profiler_mode[^a-z_] */
#include <tilescope/report.h>

#include <stdio.h>

void print_mode(const tsr_report_info *info)
{
	printf("%s\n", info->profiler_mode);
}
