/*
 * The System Analyser's keys (sa-keys.h), written in sa-keys.def: what
 * its Keyboard Shortcuts window lists and its accelerators.
 */
#include "sa-keys.h"

static const TsdKey table[] = {
#include "sa-keys.def"
};

TSD_KEYS_DEFINE(sa_keys, table)
