/*
 * The duration formatter (tilescope/units.h): moved here from the CLI's
 * `tilescope trace` so that the System Analyser prints with the same one;
 * its rule is libtilescope-base's tsb_format_duration, beside the other
 * number formats.
 */
#include <tilescope/numfmt.h>
#include <tilescope/units.h>

TSR_API const char *tsr_format_duration(char *buf, size_t size, double ns,
                                        tsr_duration_style style)
{
	return tsb_format_duration(buf, size, ns,
	                           style == TSR_DURATION_MICRO ? TSB_DURATION_MICRO : TSB_DURATION_ASCII);
}
