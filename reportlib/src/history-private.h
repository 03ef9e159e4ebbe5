/*
 * What the history store's files (history*.c) share with each other and
 * with compare.c.
 */
#pragma once

#include "tilescope/history.h"

#include <stddef.h>
#include <stdint.h>

/* A comparison built from figures gathered elsewhere (compare.c): reads
 * metric, unit, in_base, in_new, base and new_value of each; orders and
 * judges them as tsr_compare does. The caller frees *out with
 * tsr_comparison_free(). */
int tsr_comparison_new_from_figures(tsr_comparison **out, const tsr_delta *figures, size_t n);

/* SHA-256 of the file at `path` as 64 lowercase hex digits and a NUL in
 * hex (history-sha256.c); 0, or -1 with errno set when it cannot be read. */
int tsr_history_sha256_file(char hex[65], const char *path);
/* The same of the bytes of the `n` files at `paths`, one after another. */
int tsr_history_sha256_files(char hex[65], const char *const *paths, size_t n);
