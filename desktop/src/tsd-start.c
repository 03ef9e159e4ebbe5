/*
 * The start page's recent and sample lists (tsd-start.h), shared by the
 * Graph Analyser's reports and the System Analyser's traces.
 */
#include "tilescope/tsd-start.h"

GtkWidget *tsd_start_row_new(GFile *file, const char *title, const char *subtitle)
{
	GtkWidget *row = gtk_list_box_row_new();
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
	GtkWidget *t = gtk_label_new(title);
	GtkWidget *s = gtk_label_new(subtitle);

	gtk_widget_set_margin_start(box, 12);
	gtk_widget_set_margin_end(box, 12);
	gtk_widget_set_margin_top(box, 8);
	gtk_widget_set_margin_bottom(box, 8);
	gtk_label_set_xalign(GTK_LABEL(t), 0);
	gtk_label_set_xalign(GTK_LABEL(s), 0);
	gtk_label_set_ellipsize(GTK_LABEL(t), PANGO_ELLIPSIZE_MIDDLE);
	gtk_label_set_ellipsize(GTK_LABEL(s), PANGO_ELLIPSIZE_MIDDLE);
	gtk_widget_add_css_class(s, "dim-label");
	gtk_widget_add_css_class(s, "caption");
	gtk_box_append(GTK_BOX(box), t);
	gtk_box_append(GTK_BOX(box), s);
	gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), box);
	gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), TRUE);
	gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL, title,
	                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, subtitle, -1);
	g_object_set_data_full(G_OBJECT(row), "tsd-file", g_object_ref(file), g_object_unref);
	return row;
}

GFile *tsd_start_row_get_file(GtkListBoxRow *row)
{
	return row ? g_object_get_data(G_OBJECT(row), "tsd-file") : NULL;
}

static void clear_list(GtkListBox *list)
{
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(GTK_WIDGET(list))))
		gtk_list_box_remove(list, child);
}

/* A row's title: the directory's name for a profile.pop (reports are
 * known by their directory), else the file's own name. */
static char *row_title(GFile *file)
{
	g_autofree char *base = g_file_get_basename(file);
	g_autoptr(GFile) dir = NULL;

	if (g_strcmp0(base, "profile.pop") != 0 || !(dir = g_file_get_parent(file)))
		return g_steal_pointer(&base);
	return g_file_get_basename(dir);
}

/* --- Recent files ----------------------------------------------------------------------- */

/* What a recent list shows, kept on the list. */
typedef struct {
	GtkWidget *heading;              /* owned by the same page as the list */
	const char *const *mime_types;   /* static */
	char *app_name;
	int max;
} RecentFilter;

static void recent_filter_free(gpointer data)
{
	RecentFilter *f = data;

	g_free(f->app_name);
	g_free(f);
}

static gboolean recent_wanted(const RecentFilter *f, GtkRecentInfo *info)
{
	const char *mime = gtk_recent_info_get_mime_type(info);

	if (!g_strv_contains((const char *const *)f->mime_types, mime ? mime : ""))
		return FALSE;
	if (f->app_name && !gtk_recent_info_has_application(info, f->app_name))
		return FALSE;
	return gtk_recent_info_exists(info);
}

int tsd_recent_newest_first(gconstpointer pa, gconstpointer pb)
{
	GtkRecentInfo *a = *(GtkRecentInfo *const *)pa, *b = *(GtkRecentInfo *const *)pb;
	/* Borrowed (transfer none). */
	GDateTime *ma = gtk_recent_info_get_modified(a), *mb = gtk_recent_info_get_modified(b);

	if (!ma || !mb)
		return ma ? -1 : mb ? 1 : 0;
	return -g_date_time_compare(ma, mb);
}

static void fill_recent(GtkListBox *list)
{
	const RecentFilter *f = g_object_get_data(G_OBJECT(list), "tsd-recent");
	GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
	g_autoptr(GPtrArray) wanted = g_ptr_array_new();

	clear_list(list);
	for (GList *l = items; l; l = l->next)
		if (recent_wanted(f, l->data))
			g_ptr_array_add(wanted, l->data);
	g_ptr_array_sort(wanted, tsd_recent_newest_first);
	for (guint i = 0; i < wanted->len && (int)i < f->max; i++) {
		g_autoptr(GFile) file = g_file_new_for_uri(gtk_recent_info_get_uri(wanted->pdata[i]));
		g_autofree char *title = row_title(file);
		g_autofree char *where = g_file_get_parse_name(file);

		gtk_list_box_append(list, tsd_start_row_new(file, title, where));
	}
	g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
	gtk_widget_set_visible(GTK_WIDGET(list), wanted->len > 0);
	if (f->heading)
		gtk_widget_set_visible(f->heading, wanted->len > 0);
}

static void on_recent_changed(GtkRecentManager *manager, gpointer data)
{
	(void)manager;
	fill_recent(data);
}

void tsd_start_list_recent(GtkListBox *list, GtkWidget *heading,
                           const char *const *mime_types, const char *app_name, int max)
{
	RecentFilter *f = g_new0(RecentFilter, 1);

	f->heading = heading;
	f->mime_types = mime_types;
	f->app_name = g_strdup(app_name);
	f->max = max;
	g_object_set_data_full(G_OBJECT(list), "tsd-recent", f, recent_filter_free);
	/* Disconnected when the list goes. */
	g_signal_connect_object(gtk_recent_manager_get_default(), "changed",
	                        G_CALLBACK(on_recent_changed), list, 0);
	fill_recent(list);
}

/* --- Samples ------------------------------------------------------------------------------ */

/* $TILESCOPE_SAMPLE_REPORTS, the source tree's when run from a build, or
 * the installed copy. */
static GFile *samples_dir(void)
{
	const char *candidates[] = {g_getenv("TILESCOPE_SAMPLE_REPORTS"), TSD_SOURCE_SAMPLES,
	                            TSD_INSTALLED_SAMPLES};

	for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++)
		if (candidates[i] && *candidates[i] && g_file_test(candidates[i], G_FILE_TEST_IS_DIR))
			return g_file_new_for_path(candidates[i]);
	return NULL;
}

/* g_ptr_array_sort's comparator of strings (it passes pointers to them). */
static int compare_names(gconstpointer a, gconstpointer b)
{
	return g_strcmp0(*(const char *const *)a, *(const char *const *)b);
}

void tsd_start_list_samples(GtkListBox *list, GtkWidget *heading, TsdSamplePick pick)
{
	g_autoptr(GFile) dir = samples_dir();
	g_autoptr(GFileEnumerator) e = NULL;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	GFileInfo *info;
	int shown = 0;

	clear_list(list);
	if (dir)
		e = g_file_enumerate_children(dir, G_FILE_ATTRIBUTE_STANDARD_NAME "," G_FILE_ATTRIBUTE_STANDARD_TYPE,
		                              0, NULL, NULL);
	while (e && (info = g_file_enumerator_next_file(e, NULL, NULL))) {
		if (g_file_info_get_file_type(info) == G_FILE_TYPE_DIRECTORY)
			g_ptr_array_add(names, g_strdup(g_file_info_get_name(info)));
		g_object_unref(info);
	}
	g_ptr_array_sort(names, compare_names);
	for (guint i = 0; i < names->len; i++) {
		g_autoptr(GFile) child = g_file_get_child(dir, names->pdata[i]);
		g_autoptr(GFile) opens = pick(child);
		g_autofree char *where = NULL;

		if (!opens)
			continue;
		where = g_file_get_parse_name(opens);
		gtk_list_box_append(list, tsd_start_row_new(opens, names->pdata[i], where));
		shown++;
	}
	gtk_widget_set_visible(GTK_WIDGET(list), shown > 0);
	if (heading)
		gtk_widget_set_visible(heading, shown > 0);
}
