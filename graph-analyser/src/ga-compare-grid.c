/*
 * Compare mode's table rows (ga-compare-grid.h). The verdict is the
 * delta's own, set by reportlib's one rule (tsr_delta_get_verdict) that
 * `tilescope diff` prints, and the percent is the diff's, so the desktop
 * and CI tell one story; the change is the delta's own (new - base,
 * saturated by reportlib).
 */
#include "ga-compare-grid.h"

#include "ga-format.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-name.h>

#include <string.h>

static const struct {
	const char *prefix;
	guint group;
} prefixes[] = {
	{"memory.category.", 1},   {"cycles.step_type.", 2},   {"cycles.vertex_type.", 3},
	{"memory.vertex_type.", 3}, {"cycles.operation.", 4},   {"flops.operation.", 4},
	{"memory.operation.", 4},  {"cycles.compute_set.", 5}, {"memory.compute_set.", 5},
	{"memory.variable.", 6},   {"cycles.program.", 7},
};

static const char *const group_titles[GA_COMPARE_N_GROUPS] = {
	"Totals",        "Memory by category", "Cycles by step type", "By vertex type",
	"By operation",  "By compute set",     "By variable",         "By program",
};

guint ga_compare_group_of(const char *metric)
{
	for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++)
		if (g_str_has_prefix(metric, prefixes[i].prefix))
			return prefixes[i].group;
	return 0;
}

const char *ga_compare_group_title(guint group)
{
	return group < GA_COMPARE_N_GROUPS ? group_titles[group] : "";
}

/* Figure columns are at least this many characters wide (and percents
 * PERCENT_CHARS), so that the separate grids of a page line up; narrower
 * when a row has several metrics, so that nine figures and a name fit
 * the default window. Names keep at least NAME_CHARS. */
#define FIGURE_CHARS 11
#define FIGURE_CHARS_NARROW 8
#define PERCENT_CHARS 9
#define NAME_CHARS 18

/* A header cell. */
static GtkWidget *head(const char *text, float xalign)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), xalign);
	gtk_widget_add_css_class(l, "heading");
	gtk_widget_add_css_class(l, "dim-label");
	return l;
}

GtkWidget *ga_compare_grid_new(const char *name_title, guint n_metrics,
                               const char *const *metric_titles, gboolean percent)
{
	GtkWidget *grid = gtk_grid_new();
	static const char *const parts[] = {"A", "B", "Δ", "%"};
	guint per = percent ? 4 : 3;

	gtk_grid_set_column_spacing(GTK_GRID(grid), n_metrics > 1 ? 8 : 18);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 2);
	gtk_grid_attach(GTK_GRID(grid), head(name_title, 0), 0, 0, 1, 1);
	for (guint m = 0; m < n_metrics; m++)
		for (guint p = 0; p < per; p++) {
			const char *title = metric_titles ? metric_titles[m] : NULL;
			/* What a reader says of this column's figures: the metric
			 * too where the header leaves it out ("Cycles Δ"). */
			char *said = title ? g_strdup_printf("%s %s", title, parts[p]) : g_strdup(parts[p]);
			GtkWidget *h = head(p < 2 ? said : parts[p], 1);

			g_object_set_data_full(G_OBJECT(h), "ga-said", said, g_free);
			gtk_label_set_width_chars(GTK_LABEL(h), p == 3            ? PERCENT_CHARS
			                                        : n_metrics > 1 ? FIGURE_CHARS_NARROW
			                                                        : FIGURE_CHARS);
			gtk_grid_attach(GTK_GRID(grid), h, 1 + (int)(m * per + p), 0, 1, 1);
		}
	g_object_set_data(G_OBJECT(grid), "ga-rows", GINT_TO_POINTER(1));
	g_object_set_data(G_OBJECT(grid), "ga-per", GUINT_TO_POINTER(per));
	g_object_set_data(G_OBJECT(grid), "ga-columns", GUINT_TO_POINTER(1 + n_metrics * per));
	return grid;
}

/* A value cell of the grid's `column`, in the row named `row_name`: named
 * "ROW, HEADER" for assistive technology (tsd-a11y.h), as a reader of a
 * table says a cell's row and column ("cycles.total, Δ"; "OP, Memory Δ"
 * where the header is only "Δ"); `metric`.`key` is its widget name. */
static GtkWidget *cell(GtkWidget *grid, int column, const char *row_name, const char *text,
                       const char *metric, const char *key)
{
	GtkWidget *l = gtk_label_new(text);
	GtkWidget *head = gtk_grid_get_child_at(GTK_GRID(grid), column, 0);
	const char *said = head ? g_object_get_data(G_OBJECT(head), "ga-said") : NULL;
	g_autofree char *id = g_strdup_printf("%s.%s", metric, key);
	g_autofree char *name = g_strdup_printf("%s, %s", row_name, said ? said : key);

	gtk_label_set_xalign(GTK_LABEL(l), 1);
	gtk_label_set_selectable(GTK_LABEL(l), TRUE);
	gtk_widget_set_focusable(l, FALSE);
	gtk_widget_add_css_class(l, "figure");
	tsd_a11y_name_value(l, name);
	gtk_widget_set_name(l, id);
	return l;
}

/* "+1,234", "-56", "0". */
static char *format_change(int64_t v)
{
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	g_autofree char *digits = ga_format_u64(mag);

	return g_strdup_printf("%s%s", v > 0 ? "+" : v < 0 ? "-" : "", digits);
}

/* "+36.7%", "new" (from 0), "" (unchanged), as the diff's text. */
static char *format_percent(const tsr_delta *d)
{
	uint64_t b = d->in_base ? d->base : 0, n = d->in_new ? d->new_value : 0;

	if (n == b)
		return g_strdup("");
	if (b == 0)
		return g_strdup("new");
	return g_strdup_printf("%+.1f%%", ((double)n - (double)b) * 100.0 / (double)b);
}

void ga_compare_grid_add(GtkWidget *grid, const char *name, const tsr_delta *const *deltas)
{
	int row = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(grid), "ga-rows"));
	guint columns = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(grid), "ga-columns"));
	guint per = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(grid), "ga-per"));
	g_autofree char *clean = ga_format_name(name);
	GtkWidget *l = gtk_label_new(clean);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_selectable(GTK_LABEL(l), TRUE);
	gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_MIDDLE);
	gtk_label_set_max_width_chars(GTK_LABEL(l), 56);
	gtk_label_set_width_chars(GTK_LABEL(l), NAME_CHARS);
	gtk_widget_set_focusable(l, FALSE);
	gtk_widget_set_hexpand(l, TRUE);
	/* The whole name in the tooltip, the label cut (ga_format_name). */
	{
		g_autofree char *full = tsd_name_clean(name);

		gtk_widget_set_tooltip_text(l, full);
	}
	gtk_grid_attach(GTK_GRID(grid), l, 0, row, 1, 1);
	for (guint m = 0; m < (columns - 1) / per; m++) {
		static const char *const keys[] = {"base", "new", "change", "percent"};
		const tsr_delta *d = deltas[m];
		g_autofree char *a = NULL, *b = NULL, *c = NULL, *p = NULL;
		GtkWidget *cells[4] = {NULL, NULL, NULL, NULL}, *change;
		tsr_verdict v;

		if (!d)
			continue;
		a = d->in_base ? ga_format_u64(d->base) : g_strdup("—");
		b = d->in_new ? ga_format_u64(d->new_value) : g_strdup("—");
		c = format_change(d->change);
		p = format_percent(d);
		for (guint k = 0; k < per; k++) {
			const char *texts[] = {a, b, c, p};
			int col = 1 + (int)(m * per + k);

			cells[k] = cell(grid, col, clean, texts[k], d->metric, keys[k]);
			gtk_grid_attach(GTK_GRID(grid), cells[k], col, row, 1, 1);
		}
		change = cells[2];
		v = d->verdict;
		if (v == TSR_VERDICT_BETTER || v == TSR_VERDICT_WORSE) {
			const char *cls = v == TSR_VERDICT_BETTER ? "compare-better" : "compare-worse";
			const char *word = tsr_verdict_get_name(v);
			g_autofree char *tip = *p ? g_strdup_printf("%s, %s", p, word) : g_strdup(word);

			gtk_widget_add_css_class(change, cls);
			if (cells[3])
				gtk_widget_add_css_class(cells[3], cls);
			gtk_widget_set_tooltip_text(change, tip);
		} else if (*p) {
			gtk_widget_set_tooltip_text(change, p);
		}
		/* The colour's meaning in words after the value: the diff's verdict. */
		{
			g_autofree char *said = g_strdup_printf("%s, %s", c, tsr_verdict_get_name(v));

			gtk_accessible_update_property(GTK_ACCESSIBLE(change),
			                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, said, -1);
		}
	}
	g_object_set_data(G_OBJECT(grid), "ga-rows", GINT_TO_POINTER(row + 1));
}

void ga_compare_grid_note(GtkWidget *grid, const char *text)
{
	int row = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(grid), "ga-rows"));
	guint columns = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(grid), "ga-columns"));
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_wrap(GTK_LABEL(l), TRUE);
	gtk_widget_add_css_class(l, "dim-label");
	gtk_widget_add_css_class(l, "caption");
	gtk_grid_attach(GTK_GRID(grid), l, 0, row, (int)columns, 1);
	g_object_set_data(G_OBJECT(grid), "ga-rows", GINT_TO_POINTER(row + 1));
}

