/*
 * A variable as a row of a table (GtkColumnView over a GListStore): its
 * name, category, whether it is always live, its lifetime in liveness
 * steps, and up to GA_VAR_ROW_BYTES byte figures whose meaning is the
 * table's (bytes on the selected tiles and on all tiles in Memory; bytes
 * at each compared step in Liveness). Properties for sorters and filters:
 * "name", "category", "always-live", "lifetime", "bytes-0" ... "bytes-3".
 */
#pragma once

#include <glib-object.h>
#include <gtk/gtk.h>
#include <tilescope/report.h>

#include "ga-document.h"

G_BEGIN_DECLS

#define GA_VAR_ROW_BYTES 4

#define GA_TYPE_VAR_ROW (ga_var_row_get_type())
G_DECLARE_FINAL_TYPE(GaVarRow, ga_var_row, GA, VAR_ROW, GObject)

struct _GaVarRow {
	GObject parent_instance;
	gint64 index;                     /* into tsr_report_get_variables */
	char *name;                       /* fit for a label: cut (ga_format_name) */
	const char *full_name;            /* the whole name from the report, NULL when
	                                   * anonymous; valid while `doc` lives */
	GaDocument *doc;                  /* a reference, keeping full_name valid */
	guint64 bytes[GA_VAR_ROW_BYTES];  /* the table's byte figures */
	char *category;
	gboolean always_live;
	gint64 lifetime;                  /* liveness steps live, -1: always live or never */
};

/* A row for variable `index` of `doc`'s report, its byte figures 0. Its
 * work does not grow with the name's length (the name is cut, not
 * copied whole). */
GaVarRow *ga_var_row_new(GaDocument *doc, const tsr_variable *v, size_t index);
/* Shows the row's name in a table cell: cut, the whole name in the
 * tooltip when it is long. */
void ga_var_row_bind_name(GaVarRow *row, GtkLabel *label);

G_END_DECLS
