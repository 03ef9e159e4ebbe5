/*
 * The keyboard of both desktop apps: one table of every key an app has,
 * from which the app installs its accelerators and builds its Keyboard
 * Shortcuts window (so the two cannot disagree), and the focus a person
 * can follow: F6 and Shift+F6 between the window's regions, Escape in a
 * search entry back to where the focus came from.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* One line of the Keyboard Shortcuts window, and the accelerators behind
 * it. An entry with an action is installed with
 * gtk_application_set_accels_for_action; one without is a key a widget
 * handles itself (W on a timeline), listed so that the window shows every
 * key there is. The window shows sections and groups in the order they
 * first appear in the table. */
typedef struct {
	const char *section; /* the window's section: one page of groups ("General",
	                        "Charts"); the common keys are in "General" */
	const char *group;   /* the section's group title ("Reports", "Timeline") */
	const char *title;   /* what the keys do, as the window says it */
	const char *accels;  /* gtk_accelerator_parse() strings separated by spaces
	                        ("<Control>r F5"); a GtkShortcutsShortcut's syntax */
	const char *action;  /* detailed action name ("win.show-view::memory",
	                        "win.details-page(0)"), or NULL: a widget's own key */
} TsdKey;

/*
 * An app writes its table as TSD_KEY rows in a .def file (ga-keys.def,
 * sa-keys.def), which its keys .c expands into the TsdKey array:
 *
 *     static const TsdKey keys[] = {
 *     #include "ga-keys.def"
 *     };
 *     TSD_KEYS_DEFINE(ga_keys, keys)
 *
 * The keys a chart kit widget handles itself are written once, here, and
 * an app's table lists them under its own section and group with
 * TSD_KEYS_PLOT, TSD_KEYS_TILE_MAP or TSD_KEYS_TIMELINE: what the widget
 * does and what the window says of it cannot drift apart per app.
 */
#define TSD_KEY(section, group, title, accels, action) {section, group, title, accels, action},

/* Defines `const TsdKey *func(size_t *n)`, answering the static array
 * `table` and its length: an app's accessor of its table (ga_keys). */
#define TSD_KEYS_DEFINE(func, table)          \
	const TsdKey *func(size_t *n)             \
	{                                         \
		*n = G_N_ELEMENTS(table);             \
		return table;                         \
	}

/* The selection keys of the chart kit's plots (TscPlot: a chart's items,
 * a heat map's cells), `what` being "item" or "tile". */
#define TSD_KEYS_SELECT(section, group, what)                               \
	TSD_KEY(section, group, "Select the " what, "space Return", NULL)        \
	TSD_KEY(section, group, "Add or remove the " what, "<Control>space", NULL) \
	TSD_KEY(section, group, "Clear the selection", "Escape", NULL)

/* A chart (TscChart): zoom and pan along its axis, move and select. */
#define TSD_KEYS_PLOT(section, group)                                               \
	TSD_KEY(section, group, "Zoom in", "plus", NULL)                                 \
	TSD_KEY(section, group, "Zoom out", "minus", NULL)                               \
	TSD_KEY(section, group, "Show everything", "Home", NULL)                         \
	TSD_KEY(section, group, "Move to the previous or next item", "Left Right", NULL) \
	TSD_KEY(section, group, "Extend the selection", "<Shift>Left <Shift>Right", NULL) \
	TSD_KEY(section, group, "Pan", "<Control>Left <Control>Right", NULL)             \
	TSD_KEY(section, group, "Pan by a page", "Page_Up Page_Down", NULL)              \
	TSD_KEYS_SELECT(section, group, "item")

/* A heat map of tiles (TscHeatmap): move in two dimensions and select. */
#define TSD_KEYS_TILE_MAP(section, group)                                          \
	TSD_KEY(section, group, "Move between tiles", "Left Right Up Down", NULL)       \
	TSD_KEY(section, group, "Extend the selection",                                 \
	        "<Shift>Left <Shift>Right <Shift>Up <Shift>Down", NULL)                 \
	TSD_KEYS_SELECT(section, group, "tile")

/* A timeline on the chart kit's controller (tsc_timeline_key_lookup):
 * its zoom, pan and Home; `all` says what Home shows ("Show the whole
 * run"). */
#define TSD_KEYS_TIMELINE(section, group, all)                  \
	TSD_KEY(section, group, "Zoom in", "w plus", NULL)           \
	TSD_KEY(section, group, "Zoom out", "s minus", NULL)         \
	TSD_KEY(section, group, "Pan", "a d Left Right", NULL)       \
	TSD_KEY(section, group, all, "Home", NULL)

/* The keys both apps have (quit, dark style, the shortcuts window, F6):
 * tsd_keys_install and tsd_keys_window_new add them after an app's own.
 * Returns a static table of *n entries. */
const TsdKey *tsd_keys_common(size_t *n);

/* Sets the accelerators of every entry of keys[0..n) and of
 * tsd_keys_common() that has an action. An accelerator GTK cannot parse
 * is left out with a critical warning (a unit test keeps the tables
 * clean). */
void tsd_keys_install(GtkApplication *app, const TsdKey *keys, size_t n);

/* A new GtkShortcutsWindow listing keys[0..n) then tsd_keys_common(), each
 * section on one page of at most two columns. The caller owns it (a
 * toplevel: gtk_window_destroy). */
GtkWidget *tsd_keys_window_new(const TsdKey *keys, size_t n);

/* Gives `window` its Keyboard Shortcuts window (win.show-help-overlay,
 * Ctrl+?), built from keys[0..n) as tsd_keys_window_new does. */
void tsd_keys_set_help_overlay(GtkApplicationWindow *window, const TsdKey *keys, size_t n);

/* Fills `regions` with the window's regions in F6 order (header, sidebar,
 * view, details...) by tsd_focus_add_region. */
typedef void (*TsdRegionsFunc)(GtkWidget *window, GPtrArray *regions, gpointer data);

/* Appends a region to a TsdRegionsFunc's `regions`: `region` holds the
 * focus that is in it (the innermost region holding the focus is the
 * one it is in), and F6 enters it at the first widget that takes the
 * focus in `entry` (region itself when NULL; a view enters at its
 * figure, not its toolbar). Both borrowed. */
void tsd_focus_add_region(GPtrArray *regions, GtkWidget *region, GtkWidget *entry);

/* Installs on `window` the actions win.next-region and
 * win.previous-region (F6, Shift+F6 in tsd_keys_common) that move the
 * focus into the next or previous region of those `regions` lists (a
 * region not shown or with nothing to focus is passed over), and the
 * Escape that returns the focus from a search entry to the widget that
 * had it before (closing the entry's GtkSearchBar, if any).
 * `data` lives as long as the window. */
void tsd_focus_install(GtkApplicationWindow *window, TsdRegionsFunc regions, gpointer data);

/* Moves the focus back to the last widget outside a text entry that had
 * it in `window`; FALSE when there is none still shown. */
gboolean tsd_focus_return(GtkWindow *window);

G_END_DECLS
