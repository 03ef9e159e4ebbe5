/*
 * libtilescope-format: everything the writers (instrument/, pvti/) and the
 * reader (reportlib/) must agree on, in one GLib-free static library built
 * from db-schema/ (Sysprof's capture library is the model):
 *
 *   format.h       the files' identities (profile.pop, .pvti, the history
 *                  store) and the embedded schemas
 *   tile-runs.h    the per-tile run codec of profile.pop, with an iterator
 *   event-chunk.h  the packed event codec of .pvti
 *   timeline-lod.h the rule that fills .pvti's level-of-detail buckets
 *   vocabulary.h   memory categories, regions, program / step / sync /
 *                  exchange types, profiler modes: names <-> codes
 *   serialise.h    the guide-shaped JSON / CBOR documents: a value tree
 *                  and its two emitters (serialise-*.c, one per idea)
 *   include/tilescope/  installed: the profile document model
 *                  (profile-document.h, profile-vocabulary.h) and the
 *                  vocabulary's one table (vocabulary.def), which the
 *                  runtime's and reportlib's public headers include
 *
 * Nothing in another folder decodes these formats or spells their
 * vocabulary; a new category or step type touches this folder and the code
 * that produces or shows it.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* profile.pop: PRAGMA application_id / user_version. The build checks
 * these against profile.sql (embed-sql.py) and fails when they differ. */
#define TSF_PROFILE_APPLICATION_ID 0x54535046 /* "TSPF" */
#define TSF_PROFILE_SCHEMA_VERSION 1
/* .pvti: PRAGMA application_id / user_version (checked against pvti.sql). */
#define TSF_PVTI_APPLICATION_ID 0x54535654 /* "TSVT" */
#define TSF_PVTI_SCHEMA_VERSION 1
/* The history store: PRAGMA application_id / user_version (checked against
 * history.sql). */
#define TSF_HISTORY_APPLICATION_ID 0x54534853 /* "TSHS" */
#define TSF_HISTORY_SCHEMA_VERSION 1

/* The longest name either file may hold, in bytes (string.text of both
 * schemas). Real names are paths of debug contexts and templated vertex
 * types, a few hundred bytes; the limit keeps a hostile file from making
 * a reader or an export copy megabytes per reference (one 1 MB name on
 * every variable made a 2.9 MB report export 2.86 GB). Writers refuse to
 * write a longer one; readers refuse a file that has one. */
#define TSF_MAX_NAME_BYTES 16384

/* The schema scripts, executed as written by the writers. */
extern const char tsf_profile_schema_sql[];
extern const char tsf_pvti_schema_sql[];
extern const char tsf_history_schema_sql[];

#include "event-chunk.h"
#include "tile-runs.h"
#include "vocabulary.h"
