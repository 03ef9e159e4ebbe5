/*
 * The vocabulary of both report formats, in one table: every name the
 * files store for an enumeration (memory categories, regions, program and
 * step types, sync and exchange kinds, profiler modes), with the code the
 * programs use for it. The writers spell names from here, the reader maps
 * names back to codes here; nobody else keeps a list.
 *
 * Codes are the runtime's enumerations (tsi_mem_category, tsi_step_type
 * ... in instrument/include/tilescope/) and reportlib's where it has them
 * (tsr_step_type, tsr_region, tsr_exchange_kind): both are declared in the
 * order below, which the libraries check at build time against the counts
 * here and their first and last members.
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

/* Sizes of each enumeration, for the libraries' build-time checks. */
enum {
	TSF_MEM_CATEGORY_COUNT = 25,
	TSF_REGION_COUNT = 3,
	TSF_PROGRAM_TYPE_COUNT = 15,
	TSF_STEP_TYPE_COUNT = 6,
	TSF_SYNC_TYPE_COUNT = 3,
	TSF_EXCHANGE_KIND_COUNT = 3,
	TSF_PROFILER_MODE_COUNT = 5,
	TSF_DATA_TYPE_COUNT = 9,
	TSF_IPU_VERSION_COUNT = 3,
};

/* Codes the libraries check by name (the first and last of each list). */
enum {
	TSF_MEM_CONSTANT = 0,
	TSF_MEM_VERTEX_INSTANCE_STATE = 24,
	TSF_PROGRAM_SEQUENCE = 0,
	TSF_PROGRAM_ON_TILE_EXECUTE = 1,
	TSF_PROGRAM_REPEAT = 5,
	TSF_PROGRAM_CALL = 13,
	TSF_PROGRAM_DO_EXCHANGE = 2,
	TSF_PROGRAM_GLOBAL_EXCHANGE = 3,
	TSF_PROGRAM_STREAM_COPY = 4,
	TSF_PROGRAM_SYNC = 12,
	TSF_PROGRAM_WRITE_UNDEF = 14,
	TSF_STEP_ON_TILE_EXECUTE = 0,
	TSF_STEP_SYNC = 4,
	TSF_STEP_COPY_SHARED_STRUCTURE = 5,
	TSF_SYNC_INTERNAL = 0,
	TSF_SYNC_GLOBAL = 2,
	TSF_EXCHANGE_INTERNAL = 0,
	TSF_EXCHANGE_EXTERNAL = 1,
	TSF_EXCHANGE_HOST = 2,
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
