/*
 * One key table per app, and the focus a person can follow (tsd-keys.h).
 * GTK 4.8 has no call that adds a section to a GtkShortcutsWindow, so the
 * window is built by GtkBuilder from XML written here from the table:
 * the same strings gtk_application_set_accels_for_action gets.
 */
#include "tilescope/tsd-keys.h"

#include <string.h>

static const TsdKey common_keys[] = {
	{"General", "General", "Move the focus to the next region", "F6", "win.next-region"},
	{"General", "General", "Move the focus to the previous region",
	 "<Shift>F6", "win.previous-region"},
	{"General", "General", "Move the focus within a region", "Tab <Shift>Tab", NULL},
	{"General", "General", "Leave a search entry, back to where the focus was", "Escape", NULL},
	{"General", "General", "Main menu", "F10", NULL},
	{"General", "General", "Keyboard shortcuts", "<Control>question", "win.show-help-overlay"},
	{"General", "General", "Dark style", "<Control><Shift>d", "app.dark"},
	{"General", "General", "Quit", "<Control>q", "app.quit"},
};

const TsdKey *tsd_keys_common(size_t *n)
{
	*n = G_N_ELEMENTS(common_keys);
	return common_keys;
}

/* Sets one entry's accelerators, each checked with GTK's own parser. */
static void install_one(GtkApplication *app, const TsdKey *key)
{
	g_auto(GStrv) accels = NULL;

	if (!key->action)
		return;
	accels = g_strsplit(key->accels, " ", -1);
	for (size_t i = 0; accels[i]; i++) {
		guint keyval = 0;
		GdkModifierType mods = 0;

		if (!gtk_accelerator_parse(accels[i], &keyval, &mods)) {
			g_critical("%s: accelerator %s does not parse", key->action, accels[i]);
			return;
		}
	}
	gtk_application_set_accels_for_action(app, key->action, (const char *const *)accels);
}

void tsd_keys_install(GtkApplication *app, const TsdKey *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		install_one(app, &keys[i]);
	for (size_t i = 0; i < G_N_ELEMENTS(common_keys); i++)
		install_one(app, &common_keys[i]);
}

/* A group of the window being built: its shortcuts' XML and its height
 * in rows as GtkShortcutsSection counts it (one a shortcut, one the
 * title). */
typedef struct {
	const char *section;
	const char *title;
	GString *xml;
	guint rows;
} key_group;

static void key_group_free(gpointer p)
{
	key_group *g = p;

	g_string_free(g->xml, TRUE);
	g_free(g);
}

/* Adds keys[0..n) to `groups`, each to the group of its section and
 * title (made the first time they are seen). */
static void add_keys(GPtrArray *groups, const TsdKey *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		key_group *g = NULL;
		g_autofree char *line = NULL;

		for (guint k = 0; k < groups->len && !g; k++) {
			key_group *c = groups->pdata[k];

			if (!strcmp(c->section, keys[i].section) &&
			    !strcmp(c->title, keys[i].group))
				g = c;
		}
		if (!g) {
			g_autofree char *head = g_markup_printf_escaped(
			    "<child><object class=\"GtkShortcutsGroup\">"
			    "<property name=\"title\">%s</property>\n",
			    keys[i].group);

			g = g_new0(key_group, 1);
			g->section = keys[i].section;
			g->title = keys[i].group;
			g->xml = g_string_new(head);
			g->rows = 1;
			g_ptr_array_add(groups, g);
		}
		line = g_markup_printf_escaped(
		    "<child><object class=\"GtkShortcutsShortcut\">"
		    "<property name=\"title\">%s</property>"
		    "<property name=\"accelerator\">%s</property></object></child>\n",
		    keys[i].title, keys[i].accels);
		g_string_append(g->xml, line);
		g->rows++;
	}
}

/* The least column height that lays `section`'s groups in at most two
 * columns (GtkShortcutsSection starts a column when the next group does
 * not fit): one page, which GTK 4.8 keeps in order (its groups come out
 * shuffled across pages). */
static guint section_height(GPtrArray *groups, const char *section)
{
	guint total = 0, tallest = 0;

	for (guint k = 0; k < groups->len; k++) {
		key_group *g = groups->pdata[k];

		if (!strcmp(g->section, section)) {
			total += g->rows;
			tallest = MAX(tallest, g->rows);
		}
	}
	for (guint h = tallest; h < total; h++) {
		guint columns = 0, rows = 0;

		for (guint k = 0; k < groups->len; k++) {
			key_group *g = groups->pdata[k];

			if (strcmp(g->section, section) != 0)
				continue;
			if (columns == 0 || rows + g->rows > h) {
				columns++;
				rows = 0;
			}
			rows += g->rows;
		}
		if (columns <= 2)
			return h;
	}
	return total;
}

GtkWidget *tsd_keys_window_new(const TsdKey *keys, size_t n)
{
	g_autoptr(GString) xml = g_string_new(
	    "<interface><object class=\"GtkShortcutsWindow\" id=\"keys\">"
	    "<property name=\"modal\">True</property>"
	    "<property name=\"title\">Keyboard Shortcuts</property>\n");
	g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(key_group_free);
	g_autoptr(GtkBuilder) builder = NULL;

	add_keys(groups, keys, n);
	add_keys(groups, common_keys, G_N_ELEMENTS(common_keys));
	for (guint k = 0; k < groups->len; k++) {
		key_group *first = groups->pdata[k];
		gboolean seen = FALSE;
		g_autofree char *head = NULL;

		for (guint j = 0; j < k && !seen; j++)
			seen = !strcmp(((key_group *)groups->pdata[j])->section, first->section);
		if (seen)
			continue;
		head = g_markup_printf_escaped(
		    "<child><object class=\"GtkShortcutsSection\">"
		    "<property name=\"section-name\">section%u</property>"
		    "<property name=\"title\">%s</property>"
		    "<property name=\"max-height\">%u</property>\n",
		    k, first->section, section_height(groups, first->section));
		g_string_append(xml, head);
		for (guint j = k; j < groups->len; j++) {
			key_group *g = groups->pdata[j];

			if (!strcmp(g->section, first->section)) {
				g_string_append_len(xml, g->xml->str, (gssize)g->xml->len);
				g_string_append(xml, "</object></child>\n");
			}
		}
		g_string_append(xml, "</object></child>\n");
	}
	g_string_append(xml, "</object></interface>\n");
	builder = gtk_builder_new_from_string(xml->str, (gssize)xml->len);
	return GTK_WIDGET(gtk_builder_get_object(builder, "keys"));
}

void tsd_keys_set_help_overlay(GtkApplicationWindow *window, const TsdKey *keys, size_t n)
{
	GtkWidget *overlay = tsd_keys_window_new(keys, n);

	gtk_application_window_set_help_overlay(window, GTK_SHORTCUTS_WINDOW(overlay));
}

/* --- Focus ------------------------------------------------------------------------ */

/* What a window keeps for its focus (object data "tsd-focus"). */
typedef struct {
	GWeakRef last;           /* the last widget focused outside a text entry */
	TsdRegionsFunc regions;
	gpointer data;
} focus_state;

static void focus_state_free(gpointer p)
{
	focus_state *st = p;

	g_weak_ref_clear(&st->last);
	g_free(st);
}

/* Whether `w` is where Escape comes back from: a text entry, or inside a
 * popover (which closes on Escape by itself). */
static gboolean is_transient(GtkWidget *w)
{
	return gtk_widget_get_ancestor(w, GTK_TYPE_EDITABLE) != NULL ||
	       gtk_widget_get_ancestor(w, GTK_TYPE_POPOVER) != NULL;
}

static void on_focus_widget(GtkWindow *window, GParamSpec *pspec, gpointer data)
{
	focus_state *st = data;
	GtkWidget *w = gtk_root_get_focus(GTK_ROOT(window));

	(void)pspec;
	if (w && !is_transient(w))
		g_weak_ref_set(&st->last, w);
}

gboolean tsd_focus_return(GtkWindow *window)
{
	focus_state *st = g_object_get_data(G_OBJECT(window), "tsd-focus");
	g_autoptr(GtkWidget) last = st ? g_weak_ref_get(&st->last) : NULL;

	if (!last || gtk_widget_get_root(last) != GTK_ROOT(window) || !gtk_widget_is_drawable(last))
		return FALSE;
	return gtk_widget_grab_focus(last);
}

/* Escape in a search entry: its search bar (if any) closes, and the focus
 * goes back to where it was before the entry. Other Escapes go on to the
 * widgets (a chart clears its selection, a load is cancelled). */
static gboolean on_escape(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                          GdkModifierType state, gpointer data)
{
	GtkWindow *window = data;
	GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
	GtkWidget *entry, *bar;

	(void)ctl;
	(void)keycode;
	if (keyval != GDK_KEY_Escape || (state & gtk_accelerator_get_default_mod_mask()) || !focus)
		return FALSE;
	entry = gtk_widget_get_ancestor(focus, GTK_TYPE_SEARCH_ENTRY);
	if (!entry)
		return FALSE;
	bar = gtk_widget_get_ancestor(entry, GTK_TYPE_SEARCH_BAR);
	if (bar)
		gtk_search_bar_set_search_mode(GTK_SEARCH_BAR(bar), FALSE);
	return tsd_focus_return(window) || bar != NULL;
}

void tsd_focus_add_region(GPtrArray *regions, GtkWidget *region, GtkWidget *entry)
{
	if (!region)
		return;
	g_ptr_array_add(regions, region);
	g_ptr_array_add(regions, entry ? entry : region);
}

/* F6 / Shift+F6: into the next (or previous) region after the innermost
 * one holding the focus; from none, the first (or last). */
static void move_region(GtkWidget *window, int dir)
{
	focus_state *st = g_object_get_data(G_OBJECT(window), "tsd-focus");
	g_autoptr(GPtrArray) regions = g_ptr_array_new();
	GtkWidget *focus = gtk_root_get_focus(GTK_ROOT(window));
	guint n, at = G_MAXUINT;

	st->regions(window, regions, st->data);
	n = regions->len / 2;
	for (guint i = 0; i < n && focus; i++) {
		GtkWidget *r = regions->pdata[2 * i];

		if (focus == r || gtk_widget_is_ancestor(focus, r))
			at = i;
	}
	for (guint step = 1; step <= n; step++) {
		int next = ((int)at + dir * (int)step + 2 * (int)n) % (int)n;
		guint i = at == G_MAXUINT ? (dir > 0 ? step - 1 : n - step) : (guint)next;
		GtkWidget *r = regions->pdata[2 * i], *entry = regions->pdata[2 * i + 1];

		if (i == at || !gtk_widget_is_drawable(r))
			continue;
		if ((entry != r && gtk_widget_is_drawable(entry) &&
		     gtk_widget_child_focus(entry, GTK_DIR_TAB_FORWARD)) ||
		    gtk_widget_child_focus(r, GTK_DIR_TAB_FORWARD))
			return;
	}
}

static void next_region(GSimpleAction *action, GVariant *param, gpointer data)
{
	(void)action;
	(void)param;
	move_region(data, 1);
}

static void previous_region(GSimpleAction *action, GVariant *param, gpointer data)
{
	(void)action;
	(void)param;
	move_region(data, -1);
}

void tsd_focus_install(GtkApplicationWindow *window, TsdRegionsFunc regions, gpointer data)
{
	static const GActionEntry entries[] = {
		{"next-region", next_region, NULL, NULL, NULL, {0}},
		{"previous-region", previous_region, NULL, NULL, NULL, {0}},
	};
	focus_state *st = g_new0(focus_state, 1);
	GtkEventController *keys = gtk_event_controller_key_new();

	st->regions = regions;
	st->data = data;
	g_weak_ref_init(&st->last, NULL);
	g_object_set_data_full(G_OBJECT(window), "tsd-focus", st, focus_state_free);
	g_action_map_add_action_entries(G_ACTION_MAP(window), entries, G_N_ELEMENTS(entries),
	                                window);
	g_signal_connect(window, "notify::focus-widget", G_CALLBACK(on_focus_widget), st);
	/* Before the entry's own Escape (GtkSearchEntry's stop-search). */
	gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
	g_signal_connect(keys, "key-pressed", G_CALLBACK(on_escape), window);
	gtk_widget_add_controller(GTK_WIDGET(window), keys);
}
