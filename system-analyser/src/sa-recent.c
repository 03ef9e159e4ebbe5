/*
 * Recent files (sa-recent.h): the submenu is rebuilt from the recent
 * manager whenever it changes (another window, another app), so every
 * window's menu says the same.
 */
#include "sa-recent.h"

#include "sa-window.h"

#include <tilescope/tsd-start.h>

#define MAX_ITEMS 10

struct _SaRecent {
	SaWindow *win;             /* owns us */
	GMenu *menu;
	GtkRecentManager *manager; /* the default one (not ours) */
	gulong changed_handler;
	GSimpleActionGroup *actions;
};

static void rebuild(SaRecent *self)
{
	GList *items = gtk_recent_manager_get_items(self->manager);
	g_autoptr(GPtrArray) ours = g_ptr_array_new();
	const char *app = g_get_application_name();

	for (GList *l = items; l; l = l->next)
		if (app && gtk_recent_info_has_application(l->data, app))
			g_ptr_array_add(ours, l->data);
	g_ptr_array_sort(ours, tsd_recent_newest_first);
	g_menu_remove_all(self->menu);
	for (guint i = 0; i < ours->len && i < MAX_ITEMS; i++) {
		GtkRecentInfo *info = ours->pdata[i];
		/* Menu labels take "_" as a mnemonic: "tut5_ml.pvti" must say so. */
		g_auto(GStrv) parts = g_strsplit(gtk_recent_info_get_display_name(info), "_", -1);
		g_autofree char *label = g_strjoinv("__", parts);
		g_autoptr(GMenuItem) item = g_menu_item_new(label, NULL);

		g_menu_item_set_action_and_target_value(item, "recent.open",
		                                        g_variant_new_string(gtk_recent_info_get_uri(info)));
		g_menu_append_item(self->menu, item);
	}
	if (ours->len == 0) {
		g_autoptr(GMenuItem) item = g_menu_item_new("No recent traces", "recent.none");

		g_menu_append_item(self->menu, item);
	}
	g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
}

static void on_manager_changed(GtkRecentManager *manager, gpointer data)
{
	(void)manager;
	rebuild(data);
}

static void open_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	SaRecent *self = data;
	const char *uri = g_variant_get_string(param, NULL);
	g_autoptr(GFile) file = g_file_new_for_uri(uri);

	(void)action;
	/* A file gone since: off the list; the window's error page then says
	 * reportlib's "no such file" for it. */
	if (!g_file_query_exists(file, NULL))
		gtk_recent_manager_remove_item(self->manager, uri, NULL);
	sa_window_open(self->win, &file, 1);
}

void sa_recent_add_document(SaDocument *doc)
{
	GtkRecentManager *manager = gtk_recent_manager_get_default();
	const char *const *paths = sa_document_get_paths(doc);
	g_autofree char *exec = g_strdup_printf("%s %%f", g_get_prgname() ? g_get_prgname()
	                                                                   : "tilescope-system-analyser");

	for (const char *const *p = paths; p && *p; p++) {
		g_autofree char *uri = g_filename_to_uri(*p, NULL, NULL);
		gboolean dir = g_file_test(*p, G_FILE_TEST_IS_DIR);
		GtkRecentData data = {
			.display_name = NULL,
			.description = NULL,
			.mime_type = (char *)(dir ? "inode/directory" : "application/x-tilescope-trace"),
			.app_name = (char *)g_get_application_name(),
			.app_exec = exec,
			.groups = NULL,
			.is_private = FALSE,
		};

		if (uri)
			gtk_recent_manager_add_full(manager, uri, &data);
	}
}

SaRecent *sa_recent_new(SaWindow *win, GMenu *menu)
{
	static const GActionEntry entries[] = {
		{"open", open_action, "s", NULL, NULL, {0}},
	};
	SaRecent *self = g_new0(SaRecent, 1);
	GAction *none;

	self->win = win;
	self->menu = g_object_ref(menu);
	self->manager = gtk_recent_manager_get_default();
	self->actions = g_simple_action_group_new();
	g_action_map_add_action_entries(G_ACTION_MAP(self->actions), entries,
	                                G_N_ELEMENTS(entries), self);
	/* The "No recent traces" placeholder: shown, never enabled. */
	none = G_ACTION(g_simple_action_new("none", NULL));
	g_simple_action_set_enabled(G_SIMPLE_ACTION(none), FALSE);
	g_action_map_add_action(G_ACTION_MAP(self->actions), none);
	g_object_unref(none);
	gtk_widget_insert_action_group(GTK_WIDGET(win), "recent", G_ACTION_GROUP(self->actions));
	self->changed_handler = g_signal_connect(self->manager, "changed",
	                                         G_CALLBACK(on_manager_changed), self);
	rebuild(self);
	return self;
}

void sa_recent_free(SaRecent *self)
{
	if (!self)
		return;
	g_signal_handler_disconnect(self->manager, self->changed_handler);
	g_clear_object(&self->menu);
	g_clear_object(&self->actions);
	g_free(self);
}
