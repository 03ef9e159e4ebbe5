/*
 * Every key of the System Analyser, in one table (tsd-keys.h): the app
 * installs its accelerators from it and its Keyboard Shortcuts window
 * lists it.
 */
#pragma once

#include <tilescope/tsd-keys.h>

G_BEGIN_DECLS

/* The table, static, of *n entries (tsd_keys_common() comes after it). */
const TsdKey *sa_keys(size_t *n);

G_END_DECLS
