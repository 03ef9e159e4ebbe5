/*
 * GaView: what every view of the Graph Analyser repeats, once (issue 28
 * item 1). A view is built on the window's session (construct-only
 * "session") and shows one of three states: its content, a loading page
 * (a spinner and what is being computed) or an empty page ("No report
 * open" and why). The base follows the session's document and report B
 * and hands each change to the view as one call of document_changed,
 * with the state already set to content (a document) or empty (none);
 * "compare" says whether a report B is open, so a view reads one flag
 * instead of asking the session twice. A view may fill a details pane,
 * the end child of a GtkPaned beside (or below) its content.
 *
 * In a subclass's template (parent="GaView") a <child> is the content,
 * a <child type="details"> the details pane, a <child type="bar"> a bar
 * above both and a <child type="compare"> the page that stands in for
 * them while comparing (ga_view_set_compare_page); "document",
 * "compare-document" and "compare" are properties a template binds to
 * (<lookup name="document">GaSummaryView</lookup>).
 */
#pragma once

#include "ga-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_VIEW (ga_view_get_type())
G_DECLARE_DERIVABLE_TYPE(GaView, ga_view, GA, VIEW, GtkWidget)

struct _GaViewClass {
	GtkWidgetClass parent_class;

	/* The session's document or report B changed (and once when the
	 * view is made): both are in place (ga_view_get_document,
	 * ga_view_get_compare_document, "compare"), and the view shows its
	 * content, or its empty page when there is no document. A view that
	 * has nothing to show for this document calls ga_view_show_empty.
	 * A view its stack hides is told of no document at once (it lets go
	 * of what it built from the old one) and of the session's when shown. */
	void (*document_changed)(GaView *self);

	/* The class whose template the base builds and disposes of
	 * (ga_view_class_set_template); not for views to set. */
	GType template_type;
};

/* Declares a view class's widgets with the template at `resource`
 * (a subclass's class_init; the class is the view's final type): the
 * base builds it when the view is made, before the first
 * document_changed, and disposes of it with the view, so a view needs
 * neither an init nor a dispose of its own for it. */
void ga_view_class_set_template(GaViewClass *klass, const char *resource);

/* The session the view was made on (borrowed). */
GaSession *ga_view_get_session(GaView *self);
/* The document the view shows, NULL before one is open (borrowed).
 * Property "document". */
GaDocument *ga_view_get_document(GaView *self);
/* Report B of a comparison, or NULL (borrowed). Property
 * "compare-document". */
GaDocument *ga_view_get_compare_document(GaView *self);
/* Whether a report B is open. Property "compare". */
gboolean ga_view_get_compare(GaView *self);

/* The three states. `what`: the loading page's line ("Summing liveness
 * by step…"); `reason`: the empty page's line under "No report open". */
void ga_view_show_content(GaView *self);
void ga_view_show_loading(GaView *self, const char *what);
void ga_view_show_empty(GaView *self, const char *reason);
/* The empty page's title ("No report open" unless set): a view of
 * something else than the report says what it lacks. */
void ga_view_set_empty_title(GaView *self, const char *title);
/* "content", "loading" or "empty". */
const char *ga_view_get_state(GaView *self);

/* The content (the split's start child) and the details pane (its end
 * child; NULL: none, the content takes the whole view). Setting
 * replaces the widget there. */
void ga_view_set_content(GaView *self, GtkWidget *content);
GtkWidget *ga_view_get_content(GaView *self);
void ga_view_set_details(GaView *self, GtkWidget *details);
GtkWidget *ga_view_get_details(GaView *self);
/* The split between content and details, for its orientation and
 * position (horizontal, the details to the right, by default). */
GtkPaned *ga_view_get_paned(GaView *self);
/* A bar above the split, shared by content and details (a template's
 * <child type="bar">); NULL: none. */
void ga_view_set_bar(GaView *self, GtkWidget *bar);
GtkWidget *ga_view_get_bar(GaView *self);
/* The page shown in place of the bar and the split while a report B is
 * open (a template's <child type="compare">); NULL: none, the content
 * shows comparing too. */
void ga_view_set_compare_page(GaView *self, GtkWidget *page);
GtkWidget *ga_view_get_compare_page(GaView *self);

G_END_DECLS
