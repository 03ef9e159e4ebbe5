/*
 * What both desktop apps tell a screen reader, one convention for both
 * (issue 28 item 4).
 *
 * A value shown beside its caption ("Number of IPUs  1") is named by the
 * caption, exactly as it reads on screen, and says its value in its text
 * (AT-SPI's Text interface) and its description, which follows the text
 * as it changes: Orca says "Number of IPUs, 1"; a test finds the figure by
 * the caption a person sees, never by a key only a programmer knows.
 *
 * GTK 4.8's quirks that shape this (checked with pyatspi on Debian 12's
 * 4.8.3): a label's accessible name is its own name followed by the names
 * of its LABELLED_BY relations ("1 Number of IPUs"; "Number of IPUs Number
 * of IPUs" when it is also given the caption as its label), so a value is
 * named through GTK_ACCESSIBLE_PROPERTY_LABEL, not the relation, and named
 * again after each change of its text, which GtkLabel names it by; a widget
 * nobody named is called by its type name ("GtkLabel", "GtkExpander"), an
 * empty label too; a notebook's tabs and pages are all called "Tab".
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Names `value` by `caption` (the text of the label beside it) and, when
 * it is a label, keeps that name and its description equal to its text as
 * the text changes. */
void tsd_a11y_name_value(GtkWidget *value, const char *caption);
/* Makes `label` (a table cell) silent while its text is empty, instead of
 * "GtkLabel"; named by its text again when it has one. */
void tsd_a11y_quiet_when_empty(GtkLabel *label);
/* Names each tab of `notebook` (and so its page) by the tab's title (the
 * text of its tab label), now and for pages added later. */
void tsd_a11y_name_tabs(GtkNotebook *notebook);
/* Names `expander` (a button to a screen reader) by `title`. */
void tsd_a11y_name_expander(GtkExpander *expander, const char *title);
/* Names the button inside `dropdown` by `name` (GTK 4.8 calls it
 * "GtkToggleButton"). */
void tsd_a11y_name_dropdown(GtkDropDown *dropdown, const char *name);
/* Names the close button of `bar` (a GtkInfoBar or GtkSearchBar with
 * show-close-button) "Close": GTK 4.8 calls it by its icon, "GtkImage". */
void tsd_a11y_name_close_button(GtkWidget *bar);

G_END_DECLS
