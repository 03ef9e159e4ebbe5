/* Code written for tsr_variable.type, the data type as a string until
 * 0.4.0. It is now tsr_variable.data_type (tsr_data_type, TSR_DATA_HALF
 * ...) beside data_type_name (the word to show), so this fails; the
 * compiler offers no spelling for a name this short, so the message names
 * the member that is gone.
 * expect: member named [^a-z_]*type[^a-z_] */
#include <tilescope/report.h>

#include <string.h>

int is_half(const tsr_variable *v)
{
	return strcmp(v->type, "half") == 0;
}
