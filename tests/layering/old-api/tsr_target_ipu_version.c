/* Code written for tsr_target.ipu_version, a string until 0.4.0: compared
 * with strcmp. It is now tsr_target.version (tsr_ipu_version, TSR_IPU_MK1
 * ...) beside version_name (the word to show), so this fails and names
 * the enumeration.
 * expect: member named [^a-z_]*ipu_version[^a-z_] */
#include <tilescope/report.h>

#include <string.h>

int is_mk1(const tsr_target *t)
{
	return strcmp(t->ipu_version, "Mk1") == 0;
}
