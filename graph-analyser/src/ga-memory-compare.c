/*
 * Compare mode's Memory charts (ga-memory-compare.h). The difference's
 * colours come from the verdict reportlib gives a made-up delta of the
 * same memory total moving each way, so the chart, the compare Summary
 * and `tilescope diff` cannot disagree on which way is better.
 */
#include "ga-memory-compare.h"


#include <tilescope/compare.h>
#include <tilescope/tsc-axis.h>

/* The colours of style.css's .compare-better and .compare-worse: the
 * theme's success and error colours. */
static GdkRGBA verdict_colour(tsr_verdict v)
{
	GdkRGBA c;

	gdk_rgba_parse(&c, v == TSR_VERDICT_BETTER  ? "#2ec27e"
	                   : v == TSR_VERDICT_WORSE ? "#e01b24"
	                                            : "#9a9996");
	return c;
}

/* The verdict on `metric` going from `base` to `new_value`. */
static tsr_verdict verdict_of_move(const char *metric, uint64_t base, uint64_t new_value)
{
	tsr_delta d = {0};

	d.metric = metric;
	d.unit = TSR_UNIT_BYTES;
	d.in_base = d.in_new = TRUE;
	d.base = base;
	d.new_value = new_value;
	d.change = (int64_t)new_value - (int64_t)base;
	return tsr_delta_get_verdict(&d, NULL);
}

void ga_memory_compare_set_difference(TscChart *chart, guint n_items, const double *values,
                                      gboolean gaps)
{
	const char *metric = gaps ? "memory.total_including_gaps" : "memory.total";
	tsr_verdict up = verdict_of_move(metric, 1, 2), down = verdict_of_move(metric, 2, 1);
	GdkRGBA colours[2] = {verdict_colour(up), verdict_colour(down)};
	g_autofree char *up_name = g_strdup_printf("Increase (B > A), %s", tsr_verdict_get_name(up));
	g_autofree char *down_name =
	    g_strdup_printf("Decrease (B < A), %s", tsr_verdict_get_name(down));
	const char *names[] = {up_name, down_name, NULL};

	tsc_chart_set_below(chart, 1);
	tsc_chart_set_stacks(chart, n_items, 2, values, colours, names);
	/* A difference has no capacity: whatever limits it had go. */
	tsc_chart_clear_limits(chart);
}

/* The largest total `chart` draws (0 for NULL or no items). */
static double top_of(TscChart *chart)
{
	double top = 0;
	guint n = chart ? tsc_chart_get_n_items(chart) : 0;

	for (guint i = 0; i < n; i++)
		top = MAX(top, tsc_chart_get_total(chart, i));
	return top;
}

gboolean ga_memory_compare_cap_informative(TscChart *a, TscChart *b, uint64_t cap, char **note)
{
	double top = MAX(top_of(a), top_of(b));
	g_autofree char *cap_text = NULL, *top_text = NULL;

	if (note)
		*note = NULL;
	if (cap == 0 || top * GA_MEMORY_CAP_FACTOR >= (double)cap)
		return TRUE;
	if (!note)
		return FALSE;
	cap_text = tsc_format_bytes((double)cap, NULL);
	top_text = tsc_format_bytes(top, NULL);
	*note = g_strdup_printf("The max memory line (%s) is left out: the fullest tile drawn, %s, "
	                        "is under a third of it, and the line would squash the bars.",
	                        cap_text, top_text);
	return FALSE;
}
