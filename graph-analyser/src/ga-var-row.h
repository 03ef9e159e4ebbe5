/*
 * A variable as a row of the apps' table (tsd-table.h): its name,
 * category, whether it is always live, its lifetime in liveness steps,
 * and up to GA_VAR_ROW_BYTES byte figures whose meaning is the table's
 * (bytes on the selected tiles and on all tiles in Memory; bytes at each
 * compared step in Liveness; bytes in scope in Insights).
 *
 * Every variable table (Memory's Variables tab, Liveness' live and
 * always-live variables, Insights' user variables) gives its TsdTable
 * ga_var_row_cells, so a variable's figure reads the same on every
 * screen: bytes with thousands separators and "0" for none, as
 * `tilescope summary` writes them, "—" only for a figure the row does not
 * have (not live at that compared step, as "—" is "not in this report" in
 * the comparisons); "Always live" Yes / No; a lifetime in steps, "all"
 * when always live.
 */
#pragma once

#include <glib-object.h>
#include <gtk/gtk.h>
#include <tilescope/report.h>
#include <tilescope/tsd-table.h>

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
	guint has_bytes;                  /* bit i: bytes[i] is a figure (ga_var_row_set_bytes);
	                                   * clear, the cell reads "—" */
	char *category;
	gboolean always_live;
	gint64 lifetime;                  /* liveness steps live, -1: always live or never */
};

/* A row for variable `index` of `doc`'s report, its byte figures 0. Its
 * work does not grow with the name's length (the name is cut, not
 * copied whole). */
GaVarRow *ga_var_row_new(GaDocument *doc, const tsr_variable *v, size_t index);
/* Sets byte figure `slot` (< GA_VAR_ROW_BYTES) of `row`. */
void ga_var_row_set_bytes(GaVarRow *row, guint slot, guint64 bytes);

/* What a variable table's column shows. */
typedef enum {
	GA_VAR_COLUMN_NAME,        /* "Variable": the cut name, the whole in the tooltip */
	GA_VAR_COLUMN_BYTES,       /* a byte figure (its slot), titled by the table */
	GA_VAR_COLUMN_CATEGORY,    /* "Category" */
	GA_VAR_COLUMN_ALWAYS_LIVE, /* "Always live": Yes / No */
	GA_VAR_COLUMN_LIFETIME,    /* "Lifetime (steps)" */
} GaVarColumn;

/* What column i of a variable table on the apps' table (tsd-table.h)
 * shows: give tsd_table_set_cells ga_var_row_cells and an array of these,
 * one per column (a static), as its data. */
typedef struct {
	GaVarColumn column;
	guint slot;
} GaVarColumnSpec;
extern const TsdTableCells ga_var_row_cells;

G_END_DECLS
