/* Code written for tsr_variable.category, a string until 0.4.0: had the
 * field kept its name as a tsr_mem_category, printf("%s") would compile
 * (with a warning) and read an enum as a pointer. It was renamed.
 * expect: member named [^a-z_]*category[^a-z_] */
#include <tilescope/report.h>

#include <stdio.h>

void print_category(const tsr_variable *v)
{
	printf("%s\n", v->category);
}
