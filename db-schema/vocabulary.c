/*
 * The name tables of both formats' vocabulary (vocabulary.h), each
 * expanded from its list in include/tilescope/vocabulary.def, so that it
 * is in the order of the codes that index it; a new category, step type
 * or program type is a line there (and, for a category, its place in the
 * summary's order below).
 */
#include "vocabulary.h"

#include <string.h>

/* The memory categories' names and the summary's label of each. */
static const struct {
	const char *name, *label;
} mem_categories[] = {
#define TSF_MEM_CATEGORY(id, name, label) {name, label},
#include <tilescope/vocabulary.def>
};

/* printProfileSummary's "By Data Type" order: data first, then code. A
 * new category takes its place here too (the count is checked below). */
static const int summary_order[] = {
	TSF_MEM_VARIABLE,
	TSF_MEM_CONSTANT,
	TSF_MEM_MESSAGE,
	TSF_MEM_GLOBAL_MESSAGE,
	TSF_MEM_HOST_MESSAGE,
	TSF_MEM_REARRANGEMENT,
	TSF_MEM_OUTPUT_EDGE,
	TSF_MEM_HOST_EXCHANGE_PACKET_HEADER,
	TSF_MEM_GLOBAL_EXCHANGE_PACKET_HEADER,
	TSF_MEM_STACK,
	TSF_MEM_VERTEX_INSTANCE_STATE,
	TSF_MEM_COPY_DESCRIPTOR,
	TSF_MEM_VECTOR_LIST_DESCRIPTOR,
	TSF_MEM_VERTEX_FIELD_DATA,
	TSF_MEM_SHARED_DATA_STORAGE,
	TSF_MEM_MULTIPLE,
	TSF_MEM_INSTRUMENTATION_RESULTS,
	TSF_MEM_CONTROL_ID,
	TSF_MEM_CONTROL_TABLE,
	TSF_MEM_CONTROL_CODE,
	TSF_MEM_VERTEX_CODE,
	TSF_MEM_SHARED_CODE_STORAGE,
	TSF_MEM_INTERNAL_EXCHANGE_CODE,
	TSF_MEM_GLOBAL_EXCHANGE_CODE,
	TSF_MEM_HOST_EXCHANGE_CODE,
};

static const char *const regions[] = {
#define TSF_REGION(id, name) name,
#include <tilescope/vocabulary.def>
};

/* The guide's program tags, and the exchange kind an exchange program's
 * `exchange` column refers to (-1: none). */
enum { TSF_EXCHANGE_NONE = -1 };
static const struct {
	const char *name;
	int exchange_kind;
} program_types[] = {
#define TSF_PROGRAM_TYPE(id, name, exchange_kind) {name, TSF_EXCHANGE_##exchange_kind},
#include <tilescope/vocabulary.def>
};

static const char *const step_types[] = {
#define TSF_STEP_TYPE(id, name) name,
#include <tilescope/vocabulary.def>
};
static const char *const sync_types[] = {
#define TSF_SYNC_TYPE(id, name) name,
#include <tilescope/vocabulary.def>
};
static const char *const exchange_kinds[] = {
#define TSF_EXCHANGE_KIND(id, name) name,
#include <tilescope/vocabulary.def>
};
static const char *const profiler_modes[] = {
#define TSF_PROFILER_MODE(id, name) name,
#include <tilescope/vocabulary.def>
};
/* Each IPU version with the target name its chip has. */
static const char *const ipu_versions[] = {
#define TSF_IPU_VERSION(id, name, target_name) name,
#include <tilescope/vocabulary.def>
};
static const char *const ipu_target_names[] = {
#define TSF_IPU_VERSION(id, name, target_name) target_name,
#include <tilescope/vocabulary.def>
};
static const char *const data_types[] = {
#define TSF_DATA_TYPE(id, name) name,
#include <tilescope/vocabulary.def>
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(N(mem_categories) == TSF_MEM_CATEGORY_COUNT, "memory categories");
_Static_assert(N(summary_order) == TSF_MEM_CATEGORY_COUNT, "summary order");
_Static_assert(N(regions) == TSF_REGION_COUNT, "regions");
_Static_assert(N(program_types) == TSF_PROGRAM_TYPE_COUNT, "program types");
_Static_assert(N(step_types) == TSF_STEP_TYPE_COUNT, "step types");
_Static_assert(N(sync_types) == TSF_SYNC_TYPE_COUNT, "sync types");
_Static_assert(N(exchange_kinds) == TSF_EXCHANGE_KIND_COUNT, "exchange kinds");
_Static_assert(N(profiler_modes) == TSF_PROFILER_MODE_COUNT, "profiler modes");
_Static_assert(N(data_types) == TSF_DATA_TYPE_COUNT, "data types");
_Static_assert(N(ipu_versions) == TSF_IPU_VERSION_COUNT &&
                   N(ipu_target_names) == TSF_IPU_VERSION_COUNT,
               "IPU versions");

size_t tsf_vocab_count(tsf_vocab vocab)
{
	static const size_t counts[TSF_VOCAB_COUNT] = {
		TSF_MEM_CATEGORY_COUNT, TSF_REGION_COUNT,        TSF_PROGRAM_TYPE_COUNT,
		TSF_STEP_TYPE_COUNT,    TSF_SYNC_TYPE_COUNT,     TSF_EXCHANGE_KIND_COUNT,
		TSF_PROFILER_MODE_COUNT, TSF_DATA_TYPE_COUNT,   TSF_IPU_VERSION_COUNT,
	};
	return (unsigned)vocab < TSF_VOCAB_COUNT ? counts[vocab] : 0;
}

const char *tsf_vocab_name(tsf_vocab vocab, int code)
{
	if (code < 0 || (size_t)code >= tsf_vocab_count(vocab))
		return NULL;
	switch (vocab) {
	case TSF_VOCAB_MEM_CATEGORY:
		return mem_categories[code].name;
	case TSF_VOCAB_REGION:
		return regions[code];
	case TSF_VOCAB_PROGRAM_TYPE:
		return program_types[code].name;
	case TSF_VOCAB_STEP_TYPE:
		return step_types[code];
	case TSF_VOCAB_SYNC_TYPE:
		return sync_types[code];
	case TSF_VOCAB_EXCHANGE_KIND:
		return exchange_kinds[code];
	case TSF_VOCAB_PROFILER_MODE:
		return profiler_modes[code];
	case TSF_VOCAB_DATA_TYPE:
		return data_types[code];
	case TSF_VOCAB_IPU_VERSION:
		return ipu_versions[code];
	case TSF_VOCAB_COUNT:
		break;
	}
	return NULL;
}

const char *tsf_ipu_target_name(int code)
{
	return code >= 0 && code < TSF_IPU_VERSION_COUNT ? ipu_target_names[code] : NULL;
}

/* A linear scan: the longest list has 25 names, and readers look a name
 * up once per distinct string (the files intern them). */
int tsf_vocab_lookup(tsf_vocab vocab, const char *name)
{
	size_t n = tsf_vocab_count(vocab);

	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(name, tsf_vocab_name(vocab, (int)i)))
			return (int)i;
	return -1;
}

const char *tsf_mem_category_label(int category)
{
	if (category < 0 || category >= TSF_MEM_CATEGORY_COUNT)
		return NULL;
	return mem_categories[category].label;
}

const int *tsf_mem_category_summary_order(size_t *n)
{
	*n = N(summary_order);
	return summary_order;
}

int tsf_program_type_exchange_kind(int program_type)
{
	if (program_type < 0 || program_type >= TSF_PROGRAM_TYPE_COUNT)
		return -1;
	return program_types[program_type].exchange_kind;
}
