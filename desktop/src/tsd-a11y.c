/*
 * What both desktop apps tell a screen reader (tsd-a11y.h): values named by
 * their captions, silent empty cells, tabs and expanders named by their
 * titles, working around GTK 4.8's accessible names.
 */
#include <tilescope/tsd-a11y.h>

/* GTK 4.8's GtkLabel names itself after its text at every change of the
 * text: the caption is put back, and the description follows the text
 * (set once, it would go on saying the value a view showed before). */
static void on_value_text(GObject *label, GParamSpec *pspec, gpointer data)
{
	const char *text = gtk_label_get_text(GTK_LABEL(label));
	const char *caption = g_object_get_data(label, "tsd-a11y-caption");

	(void)pspec;
	(void)data;
	gtk_accessible_update_property(GTK_ACCESSIBLE(label), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               caption ? caption : "", -1);
	if (text && *text)
		gtk_accessible_update_property(GTK_ACCESSIBLE(label),
		                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
	else
		gtk_accessible_reset_property(GTK_ACCESSIBLE(label),
		                              GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
}

void tsd_a11y_name_value(GtkWidget *value, const char *caption)
{
	g_return_if_fail(GTK_IS_WIDGET(value));
	if (!GTK_IS_LABEL(value)) {
		gtk_accessible_update_property(GTK_ACCESSIBLE(value), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               caption ? caption : "", -1);
		return;
	}
	g_object_set_data_full(G_OBJECT(value), "tsd-a11y-caption", g_strdup(caption), g_free);
	if (!g_object_get_data(G_OBJECT(value), "tsd-a11y-value")) {
		g_object_set_data(G_OBJECT(value), "tsd-a11y-value", GINT_TO_POINTER(1));
		g_signal_connect(value, "notify::label", G_CALLBACK(on_value_text), NULL);
	}
	on_value_text(G_OBJECT(value), NULL, NULL);
}

/* The name is the text, set as the label property: GTK 4.8 says
 * "GtkLabel" for a label empty when it is first shown, and again after the
 * property is reset (its name is computed before the text is in place);
 * an empty name is silent. */
static void on_cell_text(GObject *label, GParamSpec *pspec, gpointer data)
{
	const char *text = gtk_label_get_text(GTK_LABEL(label));

	(void)pspec;
	(void)data;
	gtk_accessible_update_property(GTK_ACCESSIBLE(label), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               text ? text : "", -1);
}

void tsd_a11y_quiet_when_empty(GtkLabel *label)
{
	g_return_if_fail(GTK_IS_LABEL(label));
	g_signal_connect(label, "notify::label", G_CALLBACK(on_cell_text), NULL);
	on_cell_text(G_OBJECT(label), NULL, NULL);
}

/* The tab's title: its tab label's text, or the notebook's menu label. */
static void name_tab(GtkNotebook *notebook, GtkWidget *child)
{
	GtkWidget *label = gtk_notebook_get_tab_label(notebook, child);
	GtkWidget *tab = label ? gtk_widget_get_parent(label) : NULL;
	const char *title = NULL;

	if (label && GTK_IS_LABEL(label))
		title = gtk_label_get_text(GTK_LABEL(label));
	if (!title || !*title)
		title = gtk_notebook_get_tab_label_text(notebook, child);
	if (!title || !*title)
		return;
	/* The tab is the label's parent (GtkNotebook's private "tab" gizmo);
	 * the page's panel is labelled by it, so it takes the same name. */
	if (tab && tab != GTK_WIDGET(notebook))
		gtk_accessible_update_property(GTK_ACCESSIBLE(tab), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               title, -1);
}

static void on_page_added(GtkNotebook *notebook, GtkWidget *child, guint index, gpointer data)
{
	(void)index;
	(void)data;
	name_tab(notebook, child);
}

void tsd_a11y_name_tabs(GtkNotebook *notebook)
{
	g_return_if_fail(GTK_IS_NOTEBOOK(notebook));
	for (int i = 0; i < gtk_notebook_get_n_pages(notebook); i++)
		name_tab(notebook, gtk_notebook_get_nth_page(notebook, i));
	g_signal_connect(notebook, "page-added", G_CALLBACK(on_page_added), NULL);
}

void tsd_a11y_name_expander(GtkExpander *expander, const char *title)
{
	g_return_if_fail(GTK_IS_EXPANDER(expander));
	gtk_accessible_update_property(GTK_ACCESSIBLE(expander), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               title ? title : "", -1);
}

void tsd_a11y_name_dropdown(GtkDropDown *dropdown, const char *name)
{
	g_return_if_fail(GTK_IS_DROP_DOWN(dropdown));
	/* GtkDropDown's first child is its button (4.8 has no API to it). */
	for (GtkWidget *c = gtk_widget_get_first_child(GTK_WIDGET(dropdown)); c;
	     c = gtk_widget_get_next_sibling(c))
		if (GTK_IS_TOGGLE_BUTTON(c))
			gtk_accessible_update_property(GTK_ACCESSIBLE(c), GTK_ACCESSIBLE_PROPERTY_LABEL,
			                               name, -1);
}

/* The close button below `w`: GTK 4.8 gives it the style class "close"
 * (and only an icon), in an info bar as in a search bar. */
static GtkWidget *close_button(GtkWidget *w)
{
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found;

		if (GTK_IS_BUTTON(c) && gtk_widget_has_css_class(c, "close"))
			return c;
		if ((found = close_button(c)))
			return found;
	}
	return NULL;
}

void tsd_a11y_name_close_button(GtkWidget *bar)
{
	GtkWidget *close;

	g_return_if_fail(GTK_IS_WIDGET(bar));
	close = close_button(bar);
	if (close)
		gtk_accessible_update_property(GTK_ACCESSIBLE(close), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               "Close", -1);
}
