/*
 * The Summary's compare page (ga-summary-compare.h). The deltas of a
 * large pair of reports run to tens of thousands (every compute set,
 * variable and program), so each section shows its first ROW_CAP rows in
 * the comparison's order and says how many more the filter would reach;
 * the totals, categories and step types are far fewer than the cap.
 * Typing in the filter rebuilds the sections a moment after typing
 * stops.
 */
#include "ga-summary-compare.h"

#include "ga-compare-grid.h"
#include "ga-figures.h"

#include <string.h>

/* Rows of a section before "and N more". */
#define ROW_CAP 60

typedef struct compare_page {
	GaDocument *a, *b;           /* refs */
	GtkWidget *sections;         /* the box rebuilt on filtering */
	GtkWidget *filter;            /* a GtkSearchEntry */
	guint timeout;
} compare_page;

static void compare_page_free(gpointer data)
{
	compare_page *p = data;

	if (p->timeout)
		g_source_remove(p->timeout);
	ga_document_unref(p->a);
	ga_document_unref(p->b);
	g_free(p);
}

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

/* One section: a titled grid of the deltas `keep` accepts among those
 * `match` marks. */
static void add_section(compare_page *p, const tsr_comparison *cmp, const char *title,
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

		gtk_box_append(GTK_BOX(p->sections), ga_section_new(heading, TRUE, &content));
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

static void fill(compare_page *p)
{
	const tsr_comparison *cmp = ga_document_get_comparison(p->b);
	g_autofree char *needle = g_utf8_casefold(gtk_editable_get_text(GTK_EDITABLE(p->filter)), -1);
	g_autofree guint8 *match = NULL;
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(p->sections)))
		gtk_box_remove(GTK_BOX(p->sections), child);
	if (!cmp) {
		gtk_box_append(GTK_BOX(p->sections), ga_note_new("The reports were not compared."));
		return;
	}
	match = filter_deltas(cmp, needle);
	for (guint g = 0; g < GA_COMPARE_N_GROUPS; g++)
		add_section(p, cmp, ga_compare_group_title(g), match, keep_both, g);
	add_section(p, cmp, "Only in A", match, keep_only_a, 0);
	add_section(p, cmp, "Only in B", match, keep_only_b, 0);
	if (!gtk_widget_get_first_child(p->sections))
		gtk_box_append(GTK_BOX(p->sections), ga_note_new("No metric matches the filter."));
}

static gboolean apply_filter(gpointer data)
{
	compare_page *p = data;

	p->timeout = 0;
	fill(p);
	return G_SOURCE_REMOVE;
}

static void on_filter_changed(GtkEditable *editable, gpointer data)
{
	compare_page *p = data;

	(void)editable;
	if (p->timeout)
		g_source_remove(p->timeout);
	p->timeout = g_timeout_add(150, apply_filter, p);
}

/* "tut7_mk1 (run 2 of 3): /path/profile.pop". */
static GtkWidget *which(const char *letter, GaDocument *doc)
{
	g_autofree char *path = g_file_get_parse_name(ga_document_get_file(doc));
	g_autofree char *text = g_strdup_printf("%s  %s — %s", letter, ga_document_get_title(doc), path);
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_MIDDLE);
	gtk_label_set_selectable(GTK_LABEL(l), TRUE);
	gtk_widget_set_focusable(l, FALSE);
	return l;
}

GtkWidget *ga_summary_compare_new(GaDocument *a, GaDocument *b)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	g_autofree char *heading = g_strdup_printf("%s vs %s", ga_document_get_title(a),
	                                           ga_document_get_title(b));
	GtkWidget *title = gtk_label_new(heading);
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	compare_page *p = g_new0(compare_page, 1);

	p->a = ga_document_ref(a);
	p->b = ga_document_ref(b);
	g_object_set_data_full(G_OBJECT(box), "ga-compare-page", p, compare_page_free);
	gtk_label_set_xalign(GTK_LABEL(title), 0);
	gtk_widget_add_css_class(title, "title-2");
	gtk_box_append(GTK_BOX(box), title);
	gtk_box_append(GTK_BOX(box), which("A", a));
	gtk_box_append(GTK_BOX(box), which("B", b));
	gtk_box_append(GTK_BOX(box),
	               ga_note_new("Δ is B − A, with the metric names and verdicts of `tilescope "
	                           "diff A B`, runs matched by program and averaged: less memory, "
	                           "fewer cycles, tiles or steps is better (green), more is worse "
	                           "(red); FLOPs and graph counts only change, and so does a memory "
	                           "figure whose twin on the other side of gaps moved the other "
	                           "way."));
	p->filter = gtk_search_entry_new();
	gtk_widget_set_hexpand(p->filter, TRUE);
	gtk_accessible_update_property(GTK_ACCESSIBLE(p->filter), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Filter metrics", -1);
	g_object_set(p->filter, "placeholder-text", "Filter metrics (memory.category, cycles.…)",
	             NULL);
	gtk_box_append(GTK_BOX(bar), p->filter);
	gtk_box_append(GTK_BOX(box), bar);
	p->sections = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	gtk_box_append(GTK_BOX(box), p->sections);
	g_signal_connect(p->filter, "changed", G_CALLBACK(on_filter_changed), p);
	fill(p);
	return box;
}
