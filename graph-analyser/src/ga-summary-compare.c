/*
 * The Summary's compare sections (ga-summary-compare.h). The deltas of a
 * large pair of reports run to tens of thousands (every compute set,
 * variable and program), so each section shows its first ROW_CAP rows in
 * the comparison's order and says how many more the filter would reach;
 * the totals, categories and step types are far fewer than the cap.
 */
#include "ga-summary-compare.h"

#include "ga-compare-grid.h"
#include "ga-figures.h"

#include <tilescope/tsd-widget.h>

#include <string.h>

/* Rows of a section before "and N more". */
#define ROW_CAP 60

/* Which deltas pass the filter `needle` (casefolded; "" passes all):
 * one casefold per metric, shared by every section. */
static guint8 *filter_deltas(const tsr_comparison *cmp, const char *needle)
{
	size_t n = tsr_comparison_get_count(cmp);
	guint8 *match = g_new(guint8, n ? n : 1);

	for (size_t i = 0; i < n; i++) {
		g_autofree char *folded = NULL;

		if (!*needle) {
			match[i] = 1;
			continue;
		}
		folded = g_utf8_casefold(tsr_comparison_get_delta(cmp, i)->metric, -1);
		match[i] = strstr(folded, needle) != NULL;
	}
	return match;
}

/* Which deltas a section lists: those both reports have, of one group,
 * or those only one has. */
typedef enum { IN_BOTH, ONLY_IN_A, ONLY_IN_B } side;

/* One section of `sections`: a titled grid of the deltas of `where` (and
 * of `group` for IN_BOTH) among those `match` marks. */
static void add_section(GtkWidget *sections, const tsr_comparison *cmp, const char *title,
                        const guint8 *match, side where, guint group)
{
	size_t n = tsr_comparison_get_count(cmp), shown = 0, total = 0;
	GtkWidget *content, *grid = ga_compare_grid_new("Metric", 1, NULL, TRUE);

	for (size_t i = 0; i < n; i++) {
		const tsr_delta *d = tsr_comparison_get_delta(cmp, i);
		side of = d->in_base ? (d->in_new ? IN_BOTH : ONLY_IN_A) : ONLY_IN_B;

		if (!match[i] || (!d->in_base && !d->in_new) || of != where ||
		    (where == IN_BOTH && ga_compare_group_of(d->metric) != group))
			continue;
		total++;
		if (shown < ROW_CAP) {
			ga_compare_grid_add(grid, d->metric, &d);
			shown++;
		}
	}
	if (!total)
		return;
	if (total > shown) {
		g_autofree char *more = g_strdup_printf(
		    "and %zu more: narrow the filter to see them", total - shown);

		ga_compare_grid_note(grid, more);
	}
	{
		g_autofree char *heading = g_strdup_printf("%s (%zu)", title, total);

		gtk_box_append(GTK_BOX(sections), ga_section_new(heading, TRUE, &content));
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
	gtk_box_append(GTK_BOX(content), grid);
}

void ga_summary_compare_fill(GtkWidget *sections, GaDocument *b, const char *filter)
{
	const tsr_comparison *cmp = b ? ga_document_get_comparison(b) : NULL;
	g_autofree char *needle = g_utf8_casefold(filter ? filter : "", -1);
	g_autofree guint8 *match = NULL;

	tsd_widget_remove_children(sections);
	if (!cmp) {
		gtk_box_append(GTK_BOX(sections), ga_note_new("The reports were not compared."));
		return;
	}
	match = filter_deltas(cmp, needle);
	for (guint g = 0; g < GA_COMPARE_N_GROUPS; g++)
		add_section(sections, cmp, ga_compare_group_title(g), match, IN_BOTH, g);
	add_section(sections, cmp, "Only in A", match, ONLY_IN_A, 0);
	add_section(sections, cmp, "Only in B", match, ONLY_IN_B, 0);
	if (!gtk_widget_get_first_child(sections))
		gtk_box_append(GTK_BOX(sections), ga_note_new("No metric matches the filter."));
}
