/*
 * Layout helpers shared by the views of the Graph Analyser (ga-figures.h):
 * the Summary and Insights figures, the details grids of Operations and
 * Programs.
 */
#include "ga-figures.h"

#include "ga-format.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-name.h>

#include <inttypes.h>
#include <stdlib.h>

GtkWidget *ga_section_new(const char *title, gboolean expanded, GtkWidget **content)
{
	GtkWidget *expander = gtk_expander_new(NULL);
	GtkWidget *label = gtk_label_new(title);
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);

	gtk_widget_add_css_class(label, "heading");
	gtk_expander_set_label_widget(GTK_EXPANDER(expander), label);
	gtk_expander_set_expanded(GTK_EXPANDER(expander), expanded);
	tsd_a11y_name_expander(GTK_EXPANDER(expander), title);
	gtk_widget_set_margin_top(box, 8);
	gtk_widget_set_margin_start(box, 18);
	gtk_widget_set_margin_bottom(box, 8);
	gtk_expander_set_child(GTK_EXPANDER(expander), box);
	*content = box;
	return expander;
}

GtkWidget *ga_heading_new(const char *text)
{
	GtkWidget *heading = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(heading), 0);
	gtk_widget_add_css_class(heading, "heading");
	return heading;
}

GtkWidget *ga_figure_grid_new(void)
{
	GtkWidget *grid = gtk_grid_new();

	gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
	gtk_widget_set_halign(grid, GTK_ALIGN_START);
	return grid;
}

GtkWidget *ga_figure_grid_add(GtkWidget *grid, int indent, const char *label, const char *value,
                              const char *unit, const char *key)
{
	int row = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(grid), "ga-rows"));
	GtkWidget *l = gtk_label_new(label);
	GtkWidget *v;

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_widget_set_margin_start(l, 12 * indent);
	g_object_set_data(G_OBJECT(grid), "ga-rows", GINT_TO_POINTER(row + 1));
	if (!value) {
		gtk_widget_add_css_class(l, "heading");
		if (row > 0)
			gtk_widget_set_margin_top(l, 6);
		gtk_grid_attach(GTK_GRID(grid), l, 0, row, 3, 1);
		return l;
	}
	gtk_widget_add_css_class(l, "dim-label");
	gtk_grid_attach(GTK_GRID(grid), l, 0, row, 1, 1);
	v = gtk_label_new(value);
	gtk_label_set_xalign(GTK_LABEL(v), 1);
	gtk_label_set_selectable(GTK_LABEL(v), TRUE);
	gtk_widget_set_focusable(v, FALSE);
	gtk_widget_add_css_class(v, "figure");
	gtk_grid_attach(GTK_GRID(grid), v, 1, row, 1, 1);
	tsd_a11y_name_value(v, label);
	if (key)
		gtk_widget_set_name(v, key);
	if (unit && *unit) {
		GtkWidget *u = gtk_label_new(unit);

		gtk_label_set_xalign(GTK_LABEL(u), 0);
		gtk_label_set_selectable(GTK_LABEL(u), TRUE);
		gtk_widget_set_focusable(u, FALSE);
		gtk_widget_add_css_class(u, "dim-label");
		gtk_grid_attach(GTK_GRID(grid), u, 2, row, 1, 1);
	}
	return v;
}

GtkWidget *ga_figure_grid_add_u64(GtkWidget *grid, int indent, const char *label, uint64_t value,
                                  const char *unit, const char *key)
{
	g_autofree char *text = ga_format_u64(value);

	return ga_figure_grid_add(grid, indent, label, text, unit, key);
}

GtkWidget *ga_list_new(const char *accessible_name, gboolean activatable)
{
	GtkWidget *list = gtk_list_box_new();

	gtk_list_box_set_selection_mode(GTK_LIST_BOX(list), GTK_SELECTION_NONE);
	gtk_list_box_set_activate_on_single_click(GTK_LIST_BOX(list), TRUE);
	gtk_widget_add_css_class(list, "boxed-list");
	gtk_widget_set_halign(list, GTK_ALIGN_FILL);
	gtk_widget_set_size_request(list, 480, -1);
	gtk_accessible_update_property(GTK_ACCESSIBLE(list), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               accessible_name, -1);
	g_object_set_data(G_OBJECT(list), "ga-activatable", GINT_TO_POINTER(activatable));
	/* A size group per figure column, so that the rows' figures line up. */
	g_object_set_data_full(G_OBJECT(list), "ga-list-columns",
	                       g_ptr_array_new_with_free_func(g_object_unref),
	                       (GDestroyNotify)g_ptr_array_unref);
	return list;
}

GtkWidget *ga_list_add(GtkWidget *list, const char *const *cells, size_t n)
{
	return ga_list_add_full(list, NULL, cells, n);
}

GtkWidget *ga_list_add_full(GtkWidget *list, const char *subtitle, const char *const *cells,
                            size_t n)
{
	GtkWidget *row = gtk_list_box_row_new();
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18);
	/* The name cut for the label and its accessible name, whole in the
	 * tooltip (ga_format_name). */
	g_autofree char *name = ga_format_name(n ? cells[0] : "");
	g_autofree char *full = tsd_name_clean(n ? cells[0] : "");
	g_autoptr(GString) access = g_string_new(name);
	GtkWidget *l = gtk_label_new(name);
	GPtrArray *columns = g_object_get_data(G_OBJECT(list), "ga-list-columns");

	gtk_widget_set_margin_start(box, 12);
	gtk_widget_set_margin_end(box, 12);
	gtk_widget_set_margin_top(box, 6);
	gtk_widget_set_margin_bottom(box, 6);
	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_MIDDLE);
	gtk_widget_set_hexpand(l, TRUE);
	gtk_widget_set_tooltip_text(l, full);
	if (subtitle) {
		GtkWidget *names = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
		GtkWidget *sub = gtk_label_new(subtitle);

		/* Wrapped, not cut: a tile's breakdown adds up only whole. */
		gtk_label_set_xalign(GTK_LABEL(sub), 0);
		gtk_label_set_wrap(GTK_LABEL(sub), TRUE);
		gtk_label_set_wrap_mode(GTK_LABEL(sub), PANGO_WRAP_WORD_CHAR);
		gtk_label_set_max_width_chars(GTK_LABEL(sub), 80);
		gtk_widget_set_tooltip_text(sub, subtitle);
		gtk_widget_add_css_class(sub, "dim-label");
		gtk_widget_add_css_class(sub, "caption");
		gtk_widget_set_hexpand(names, TRUE);
		gtk_box_append(GTK_BOX(names), l);
		gtk_box_append(GTK_BOX(names), sub);
		gtk_box_append(GTK_BOX(box), names);
		g_string_append_printf(access, " (%s)", subtitle);
	} else {
		gtk_box_append(GTK_BOX(box), l);
	}
	for (size_t i = 1; i < n; i++) {
		GtkWidget *c = gtk_label_new(cells[i]);

		if (columns->len < i)
			g_ptr_array_add(columns, gtk_size_group_new(GTK_SIZE_GROUP_HORIZONTAL));
		gtk_label_set_xalign(GTK_LABEL(c), 1);
		gtk_widget_add_css_class(c, "figure");
		gtk_size_group_add_widget(columns->pdata[i - 1], c);
		gtk_box_append(GTK_BOX(box), c);
		g_string_append_printf(access, ", %s", cells[i]);
	}
	gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), box);
	gtk_list_box_row_set_activatable(
	    GTK_LIST_BOX_ROW(row),
	    GPOINTER_TO_INT(g_object_get_data(G_OBJECT(list), "ga-activatable")));
	gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               access->str, -1);
	gtk_list_box_append(GTK_LIST_BOX(list), row);
	return row;
}

void ga_list_finish(GtkWidget *list, size_t shown, size_t total)
{
	g_autofree char *more = NULL, *num = NULL;
	GtkWidget *row, *l;

	if (shown >= total)
		return;
	num = ga_format_u64(total - shown);
	more = g_strdup_printf("and %s more", num);
	row = gtk_list_box_row_new();
	l = gtk_label_new(more);
	gtk_widget_add_css_class(l, "dim-label");
	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_widget_set_margin_start(l, 12);
	gtk_widget_set_margin_top(l, 6);
	gtk_widget_set_margin_bottom(l, 6);
	gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), l);
	gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
	gtk_list_box_append(GTK_LIST_BOX(list), row);
}

GtkWidget *ga_note_new(const char *text)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_wrap(GTK_LABEL(l), TRUE);
	gtk_label_set_max_width_chars(GTK_LABEL(l), 90);
	gtk_widget_add_css_class(l, "dim-label");
	return l;
}

/* Orders named bytes largest first, then by name. */
static int by_bytes_desc(const void *a, const void *b)
{
	const tsr_summary_named_bytes *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return g_strcmp0(x->name, y->name);
}

/* Whether an always-live entry is a category's bytes (code, stack ...). */
static gboolean is_category(const char *name)
{
	for (size_t c = 0; c < tsr_category_count(); c++)
		if (g_strcmp0(tsr_category_name(c), name) == 0)
			return TRUE;
	return FALSE;
}

tsr_summary_named_bytes *ga_always_live_sorted(const tsr_summary_figures *s,
                                               gboolean variables_only, size_t *n)
{
	tsr_summary_named_bytes *sorted = g_new(tsr_summary_named_bytes, s->n_always_live + 1);

	*n = 0;
	for (size_t i = 0; i < s->n_always_live; i++)
		if (!variables_only || !is_category(s->always_live[i].name))
			sorted[(*n)++] = s->always_live[i];
	qsort(sorted, *n, sizeof(*sorted), by_bytes_desc);
	return sorted;
}

/* A bar without the level bar's low / high / full colours. */
static GtkWidget *plain_bar(double value, double max)
{
	GtkWidget *bar = gtk_level_bar_new_for_interval(0, max > 0 ? max : 1);

	gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_LOW);
	gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_HIGH);
	gtk_level_bar_remove_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_FULL);
	gtk_level_bar_set_value(GTK_LEVEL_BAR(bar), value);
	return bar;
}

GtkWidget *ga_histogram_new(const tsr_summary_memory *m)
{
	GtkWidget *grid = gtk_grid_new();
	uint64_t wk = m->bucket_width / 1024;
	int row = 1;

	gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 2);
	gtk_widget_set_halign(grid, GTK_ALIGN_START);
	gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Tiles by memory, excluding gaps", -1);
	/* The column headings, over the ranges and the counts. */
	for (int column = 0; column <= 2; column += 2) {
		GtkWidget *h = gtk_label_new(column ? "Tiles" : "Range (KiB)");

		gtk_label_set_xalign(GTK_LABEL(h), 1);
		gtk_widget_add_css_class(h, "dim-label");
		gtk_grid_attach(GTK_GRID(grid), h, column, 0, 1, 1);
	}
	if (m->end_bucket == 0 || wk == 0) {
		gtk_grid_attach(GTK_GRID(grid), ga_note_new("No tile holds data."), 0, 1, 3, 1);
		return grid;
	}
	for (size_t b = m->first_bucket; b < m->end_bucket; b++, row++) {
		g_autofree char *range = g_strdup_printf("%" PRIu64 " – %" PRIu64, (uint64_t)b * wk,
		                                         (uint64_t)(b + 1) * wk);
		g_autofree char *count = ga_format_u64(m->histogram[b]);
		g_autofree char *name = g_strdup_printf("%s KB: %s tiles", range, count);
		GtkWidget *r = gtk_label_new(range);
		GtkWidget *bar = plain_bar((double)m->histogram[b], (double)m->max_bucket);
		GtkWidget *c = gtk_label_new(count);

		gtk_label_set_xalign(GTK_LABEL(r), 1);
		gtk_widget_add_css_class(r, "figure");
		gtk_widget_set_size_request(bar, 280, -1);
		gtk_widget_set_valign(bar, GTK_ALIGN_CENTER);
		gtk_accessible_update_property(GTK_ACCESSIBLE(bar), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
		                               -1);
		gtk_label_set_xalign(GTK_LABEL(c), 1);
		gtk_widget_add_css_class(c, "figure");
		tsd_a11y_name_value(c, range);
		gtk_grid_attach(GTK_GRID(grid), r, 0, row, 1, 1);
		gtk_grid_attach(GTK_GRID(grid), bar, 1, row, 1, 1);
		gtk_grid_attach(GTK_GRID(grid), c, 2, row, 1, 1);
	}
	return grid;
}

void ga_details_add(GtkGrid *grid, int *row, const char *key, const char *value,
                    gboolean number)
{
	/* A key may be a name (a templated vertex type, up to 16 KiB): cut
	 * (tsd_name_cut) and ellipsized to 32 characters, whole in the
	 * tooltip. The value is the details pane's whole text, which the user
	 * reads, selects and copies. */
	g_autofree char *cut = tsd_name_cut(key);
	GtkWidget *k = gtk_label_new(cut);
	GtkWidget *v = gtk_label_new(value);

	gtk_label_set_xalign(GTK_LABEL(k), 0);
	gtk_label_set_yalign(GTK_LABEL(k), 0);
	gtk_widget_add_css_class(k, "dim-label");
	tsd_a11y_quiet_when_empty(GTK_LABEL(k));
	gtk_label_set_ellipsize(GTK_LABEL(k), PANGO_ELLIPSIZE_MIDDLE);
	gtk_label_set_max_width_chars(GTK_LABEL(k), 32);
	if (g_utf8_strlen(cut, -1) > 32) {
		g_autofree char *full = tsd_name_clean(key);

		gtk_widget_set_tooltip_text(k, full);
	}
	gtk_label_set_width_chars(GTK_LABEL(v), 14);
	/* A whole name asks for its width on one line: bounded here, so the
	 * key keeps its own (the value still wraps to the room it gets). */
	gtk_label_set_max_width_chars(GTK_LABEL(v), 40);
	gtk_label_set_xalign(GTK_LABEL(v), 0);
	gtk_label_set_wrap(GTK_LABEL(v), TRUE);
	gtk_label_set_wrap_mode(GTK_LABEL(v), PANGO_WRAP_WORD_CHAR);
	gtk_label_set_selectable(GTK_LABEL(v), TRUE);
	gtk_widget_set_hexpand(v, TRUE);
	if (number)
		gtk_widget_add_css_class(v, "figure");
	tsd_a11y_name_value(v, cut);
	gtk_grid_attach(grid, k, 0, *row, 1, 1);
	gtk_grid_attach(grid, v, 1, *row, 1, 1);
	(*row)++;
}

GtkGrid *ga_details_grid_new(void)
{
	GtkGrid *grid = GTK_GRID(gtk_grid_new());

	gtk_grid_set_column_spacing(grid, 16);
	gtk_grid_set_row_spacing(grid, 3);
	return grid;
}

void ga_details_add_u64(GtkGrid *grid, int *row, const char *key, uint64_t value)
{
	g_autofree char *s = ga_format_u64(value);

	ga_details_add(grid, row, key, s, TRUE);
}

void ga_details_add_heading(GtkGrid *grid, int *row, const char *text)
{
	GtkWidget *h = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(h), 0);
	gtk_widget_add_css_class(h, "heading");
	gtk_widget_set_margin_top(h, 10);
	gtk_grid_attach(grid, h, 0, (*row)++, 2, 1);
}

GtkWidget *ga_cell_label_new(gboolean numeric)
{
	GtkWidget *l = gtk_label_new(NULL);

	gtk_label_set_xalign(GTK_LABEL(l), numeric ? 1.0f : 0.0f);
	gtk_label_set_ellipsize(GTK_LABEL(l), numeric ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
	if (numeric)
		gtk_widget_add_css_class(l, "figure");
	tsd_a11y_quiet_when_empty(GTK_LABEL(l));
	return l;
}
