/*
 * The window shell both desktop apps derive theirs from (TsdWindow, as
 * Sysprof's and GNOME Text Editor's windows hold what every window of
 * theirs does): a stack of a start page, a loading page with progress
 * and Cancel (Escape), an error page with Try Again (Ctrl+R) and the
 * document; opening from the file chooser, drag and drop, the start
 * page's recent and sample rows and the Open Recent menu; the files
 * shown watched on disk (changes debounced, then told to the app); the
 * recent files; the Keyboard Shortcuts window and F6's regions; and the
 * window's size remembered. What a document is, how it loads and what
 * its page holds is the app's.
 *
 * An app's window template (`<template class="GaWindow" parent="TsdWindow">`)
 * declares the widgets the shell drives, by these ids: main_stack (pages
 * "start", "loading", "error" and "document"), header, loading_title,
 * loading_progress, loading_message, error_message, recent_label,
 * recent_list, samples_label, samples_list and the menu recent_menu; its
 * buttons use win.open, win.reload, win.cancel-load and win.show-start.
 */
#pragma once

#include <gtk/gtk.h>

#include <tilescope/tsd-keys.h>
#include <tilescope/tsd-start.h>

G_BEGIN_DECLS

struct _TsdWindow;

/* What an app's windows are and do (static, kept by pointer). */
typedef struct TsdWindowInfo {
	const char *settings_id;            /* the GSettings schema (tsd-settings.h) */
	const TsdKey *(*keys)(size_t *n);   /* its key table: the shortcuts window */
	const char *open_title;             /* the chooser's title ("Open a Report") */
	gboolean open_multiple;             /* whether the chooser takes several files */
	const char *filter_name;            /* the chooser's filter, then "All files" */
	const char *const *filter;          /* its MIME types, and patterns (with '*') */
	const char *const *recent_types;    /* MIME types of the start page's recent files;
	                                       the first is a recorded file's */
	TsdSamplePick pick_sample;          /* what a sample directory's row opens */
	/* Opens files[0..n) (chosen, dropped, a start page row, a recent
	 * file, Try Again's). */
	void (*open)(struct _TsdWindow *self, GFile *const *files, guint n);
	/* win.reload on the document page. */
	void (*reload)(struct _TsdWindow *self);
	/* The watched files changed on disk (debounced). */
	void (*files_changed)(struct _TsdWindow *self);
	/* Appends the document page's F6 regions (tsd_focus_add_region) after
	 * the header bar's. */
	void (*document_regions)(struct _TsdWindow *self, GPtrArray *regions);
	/* Loading started or ended: the app's actions follow (NULL: none). */
	void (*update_actions)(struct _TsdWindow *self);
} TsdWindowInfo;

#define TSD_TYPE_WINDOW (tsd_window_get_type())
G_DECLARE_DERIVABLE_TYPE(TsdWindow, tsd_window, TSD, WINDOW, GtkApplicationWindow)

struct _TsdWindowClass {
	GtkApplicationWindowClass parent_class;
	const TsdWindowInfo *info;          /* set by the app's class_init */
};

/* Binds the shell's ids in the app's template (after
 * gtk_widget_class_set_template_from_resource). */
void tsd_window_class_bind_template(GtkWidgetClass *widget_class);
/* The shell's set-up, from the app's instance init after
 * gtk_widget_init_template. */
void tsd_window_setup(TsdWindow *self);

/* Shows the loading page ("Opening NAME", or `heading` when not NULL)
 * for files[0..n), cancelling the load in flight; answers the new load's
 * cancellable (borrowed, the window's until the load ends). */
GCancellable *tsd_window_begin_load(TsdWindow *self, GFile *const *files, guint n,
                                    const char *heading);
/* A TsdProgressFunc for the loading page; `data` is the window. */
void tsd_window_load_progress(double fraction, const char *message, gpointer data);
/* Whether `cancellable` is the load in flight's (not replaced). */
gboolean tsd_window_load_is_current(TsdWindow *self, GCancellable *cancellable);
/* The load in flight ended without a document: the error page with
 * `message` (Try Again opens its files again), or with NULL (cancelled)
 * back to the page shown before. */
void tsd_window_load_failed(TsdWindow *self, const char *message);
/* A document is shown (a load ended, a reload, a comparison closed): the
 * document page, the title "TITLE — APP", the files at `paths` watched
 * and recorded as recent. */
void tsd_window_show_document(TsdWindow *self, const char *title, const char *const *paths);
/* Records `paths` (files or directories) as the app's recent files. */
void tsd_window_remember(TsdWindow *self, const char *const *paths);
/* Whether the document page is shown. */
gboolean tsd_window_showing_document(TsdWindow *self);
/* Whether a load is in flight. */
gboolean tsd_window_is_loading(TsdWindow *self);

/* Asks for files with a chooser titled `title` (the app's filter), then
 * calls `chosen` with them; nothing when one is already asking. */
typedef void (*TsdWindowChosen)(TsdWindow *self, GFile *const *files, guint n);
void tsd_window_choose(TsdWindow *self, const char *title, const char *accept, gboolean multiple,
                       TsdWindowChosen chosen);
/* Adds the app's file filters (TsdWindowInfo.filter, then all files). */
void tsd_window_add_filters(TsdWindow *self, GtkFileChooser *chooser);

GtkStack *tsd_window_get_main_stack(TsdWindow *self);
GtkWidget *tsd_window_get_header(TsdWindow *self);
/* What the window remembers (tsd-settings.h), or NULL. */
GSettings *tsd_window_get_settings(TsdWindow *self);

G_END_DECLS
