/*
 * "Did you mean …?": the known name nearest to a misspelt one, for the
 * messages of both option parsers (POPLAR_ENGINE_OPTIONS, PVTI_OPTIONS),
 * so the two suggest by one rule.
 */
#pragma once

#include <tilescope/error.h>

#include <stddef.h>

TSB_BEGIN_DECLS

/* Levenshtein distance between `a` and `b`, ignoring ASCII case; SIZE_MAX
 * when either is longer than 128 bytes (no useful suggestion then). */
TSI_API size_t tsi_name_distance(const char *a, const char *b);
/* The name of `names` (n entries) nearest to `name`, or NULL when none is
 * a plausible typo of it: distance <= max(2, strlen(name) / 3), or else
 * the one name that `name` abbreviates ("dir": "directory"). Borrowed
 * from `names`. */
TSI_API const char *tsi_lookup_nearest_name(const char *name, const char *const *names, size_t n);

TSB_END_DECLS
