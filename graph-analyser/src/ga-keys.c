/* The Graph Analyser's keys (ga-keys.h): the rows of ga-keys.def. */
#include "ga-keys.h"

static const TsdKey keys[] = {
#include "ga-keys.def"
};

TSD_KEYS_DEFINE(ga_keys, keys)
