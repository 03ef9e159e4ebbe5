/*
 * The vocabulary of both report formats: every name the files store for
 * an enumeration (memory categories, regions, program and step types,
 * sync and exchange kinds, profiler modes), with the code the programs
 * use for it. The words are one table, include/tilescope/vocabulary.def;
 * this is its lookup API. The writers spell names from here, the reader
 * maps names back to codes here; nobody else keeps a list.
 *
 * Codes are the positions in that table, which the runtime's enumerations
 * (tsi_mem_category, tsi_step_type ... in tilescope/profile-vocabulary.h)
 * and reportlib's (tsr_mem_category, tsr_step_type ...) are expanded from.
 */
#pragma once

#include <stddef.h>

typedef enum tsf_vocab {
	TSF_VOCAB_MEM_CATEGORY = 0, /* "constant", "controlCode" ... (the guide's) */
	TSF_VOCAB_REGION,           /* "interleaved", "nonInterleaved", "overflowed" */
	TSF_VOCAB_PROGRAM_TYPE,     /* "Sequence", "OnTileExecute" ... */
	TSF_VOCAB_STEP_TYPE,        /* "OnTileExecute", "DoExchange" ... */
	TSF_VOCAB_SYNC_TYPE,        /* "Internal", "External", "Global" */
	TSF_VOCAB_EXCHANGE_KIND,    /* "internal", "external", "host" (exchange.kind) */
	TSF_VOCAB_PROFILER_MODE,    /* "IPU_MODEL", "COMPUTE_SETS" ... */
	TSF_VOCAB_DATA_TYPE,        /* "float", "half", "unsigned int" ... (variable.type) */
	TSF_VOCAB_IPU_VERSION,      /* "Mk2", "Mk1", "Bow" (target.ipu_version) */
	TSF_VOCAB_COUNT
} tsf_vocab;

/* The codes of each list, expanded from the one table
 * (include/tilescope/vocabulary.def): TSF_MEM_CONSTANT ...,
 * TSF_MEM_CATEGORY_COUNT, TSF_PROGRAM_SEQUENCE ... The runtime's and
 * reportlib's enumerations are expanded from the same lines, so they
 * agree by construction; the libraries still check a few members at
 * build time. */
enum {
#define TSF_MEM_CATEGORY(id, name, label) TSF_MEM_##id,
#include <tilescope/vocabulary.def>
	TSF_MEM_CATEGORY_COUNT
};
enum {
#define TSF_REGION(id, name) TSF_REGION_##id,
#include <tilescope/vocabulary.def>
	TSF_REGION_COUNT
};
enum {
#define TSF_PROGRAM_TYPE(id, name, exchange_kind) TSF_PROGRAM_##id,
#include <tilescope/vocabulary.def>
	TSF_PROGRAM_TYPE_COUNT
};
enum {
#define TSF_STEP_TYPE(id, name) TSF_STEP_##id,
#include <tilescope/vocabulary.def>
	TSF_STEP_TYPE_COUNT
};
enum {
#define TSF_SYNC_TYPE(id, name) TSF_SYNC_##id,
#include <tilescope/vocabulary.def>
	TSF_SYNC_TYPE_COUNT
};
enum {
#define TSF_EXCHANGE_KIND(id, name) TSF_EXCHANGE_##id,
#include <tilescope/vocabulary.def>
	TSF_EXCHANGE_KIND_COUNT
};
enum {
#define TSF_PROFILER_MODE(id, name) TSF_PROFILER_##id,
#include <tilescope/vocabulary.def>
	TSF_PROFILER_MODE_COUNT
};
enum {
#define TSF_DATA_TYPE(id, name) TSF_DATA_##id,
#include <tilescope/vocabulary.def>
	TSF_DATA_TYPE_COUNT
};
enum {
#define TSF_IPU_VERSION(id, name, target_name) TSF_IPU_##id,
#include <tilescope/vocabulary.def>
	TSF_IPU_VERSION_COUNT
};

/* Members of `vocab` (0 for an unknown vocabulary). */
size_t tsf_vocab_count(tsf_vocab vocab);
/* The stored name of `code`, or NULL when `code` is not a member. */
const char *tsf_vocab_name(tsf_vocab vocab, int code);
/* The code of `name` (NUL-terminated), or -1 when it is not a member. */
int tsf_vocab_lookup(tsf_vocab vocab, const char *name);
/* The target name (target.name) of IPU version `code` (TSF_VOCAB_IPU_VERSION
 * order): "ipu2", "ipu1", "bow"; NULL past the list. A report whose target
 * name is one of these and contradicts its ipu_version is corrupt. */
const char *tsf_ipu_target_name(int code);

/* A memory category's label in printProfileSummary's "By Data Type"
 * list ("Variables", "Control Code" ...), never NULL for a member. */
const char *tsf_mem_category_label(int category);
/* The categories in the order the guide's summary lists them (what holds
 * data first, then code): order[i] is a category code; *n is set to
 * TSF_MEM_CATEGORY_COUNT. */
const int *tsf_mem_category_summary_order(size_t *n);
/* The exchange kind a program type refers to (DoExchange: internal,
 * GlobalExchange: external, StreamCopy: host), -1 for the others. */
int tsf_program_type_exchange_kind(int program_type);
