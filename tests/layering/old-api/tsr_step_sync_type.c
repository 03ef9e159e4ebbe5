/* Code written for tsr_step.sync_type, a string that was NULL for a step
 * that is no sync until 0.4.0: as an enum under the same name the test
 * below would compile and take every Internal sync (code 0) for none.
 * The field is now tsr_step.sync (TSR_SYNC_NONE for none), so it fails.
 * expect: member named [^a-z_]*sync_type[^a-z_] */
#include <tilescope/report.h>

int is_sync(const tsr_step *st)
{
	return st->sync_type ? 1 : 0;
}
