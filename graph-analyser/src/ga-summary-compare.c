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

/* One section of `sections`: a titled grid of the deltas `keep` accepts
 * among those `match` marks. */
static void add_section(GtkWidget *sections, const tsr_comparison *cmp, const char *title,
                        const guint8 *match, gboolean (*keep)(const tsr_delta *, guint, guint),
                        guint group)
{
	size_t n = tsr_comparison_get_count(cmp), shown = 0, total = 0;
	GtkWidget *content, *grid = ga_compare_grid_new("Metric", 1, NULL, TRUE);

	for (size_t i = 0; i < n; i++) {
		const tsr_delta *d = tsr_comparison_get_delta(cmp, i);

		if (!match[i] || !keep(d, group, ga_compare_group_of(d->metric)))
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

static gboolean keep_both(const tsr_delta *d, guint want, guint group)
{
	return d->in_base && d->in_new && group == want;
}

static gboolean keep_only_a(const tsr_delta *d, guint want, guint group)
{
	(void)want;
	(void)group;
	return d->in_base && !d->in_new;
}

static gboolean keep_only_b(const tsr_delta *d, guint want, guint group)
{
	(void)want;
	(void)group;
	return !d->in_base && d->in_new;
}

void ga_summary_compare_fill(GtkWidget *sections, GaDocument *b, const char *filter)
{
	const tsr_comparison *cmp = b ? ga_document_get_comparison(b) : NULL;
	g_autofree char *needle = g_utf8_casefold(filter ? filter : "", -1);
	g_autofree guint8 *match = NULL;
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(sections)))
		gtk_box_remove(GTK_BOX(sections), child);
	if (!cmp) {
		gtk_box_append(GTK_BOX(sections), ga_note_new("The reports were not compared."));
		return;
	}
	match = filter_deltas(cmp, needle);
	for (guint g = 0; g < GA_COMPARE_N_GROUPS; g++)
		add_section(sections, cmp, ga_compare_group_title(g), match, keep_both, g);
	add_section(sections, cmp, "Only in A", match, keep_only_a, 0);
	add_section(sections, cmp, "Only in B", match, keep_only_b, 0);
	if (!gtk_widget_get_first_child(sections))
		gtk_box_append(GTK_BOX(sections), ga_note_new("No metric matches the filter."));
}
