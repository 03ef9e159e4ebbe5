/*
 * The four kinds of program and step the views colour alike: compute
 * (OnTileExecute), exchange (DoExchange, GlobalExchange, StreamCopy),
 * sync, and control flow (Sequence, Repeat, If, Call ...). The colours are
 * defined here once, so that the Program Tree and the Execution Trace
 * agree; each reads on a light and on a dark background.
 */
#pragma once

#include <gtk/gtk.h>
#include <tilescope/report.h>

G_BEGIN_DECLS

typedef enum ga_program_kind {
	GA_PROGRAM_COMPUTE = 0,
	GA_PROGRAM_EXCHANGE,
	GA_PROGRAM_SYNC,
	GA_PROGRAM_CONTROL,
	GA_PROGRAM_KIND_COUNT
} ga_program_kind;

/* The kind of a program's type; unknown types are control flow. */
ga_program_kind ga_program_kind_of_type(tsr_program_type type);
/* A program type's tag as the views show it ("OnTileExecute" ...), "?"
 * for none (an unknown program). */
const char *ga_program_type_tag(tsr_program_type type);
/* The kind of an execution step's type. */
ga_program_kind ga_program_kind_of_step(tsr_step_type type);
/* The kind's colour. */
const GdkRGBA *ga_program_kind_colour(ga_program_kind kind);
/* The kind's name for a legend: "Compute", "Exchange", "Sync", "Control". */
const char *ga_program_kind_name(ga_program_kind kind);

/* A small square of `kind`'s colour, as a mark before a name. */
GtkWidget *ga_program_mark_new(void);
void ga_program_mark_set_kind(GtkWidget *mark, ga_program_kind kind);

G_END_DECLS
