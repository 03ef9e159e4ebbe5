/*
 * The one table of both formats' vocabulary (vocabulary.h). Each list is
 * in the order of the codes that index it; a new category, step type or
 * program type is added here, at its place, and in the enumerations the
 * build checks against these counts.
 */
#include "vocabulary.h"

#include <string.h>

/* The guide's memory categories in its (alphabetical) order, with the
 * summary's label of each. The guide names thirteen labels; the others
 * follow its style. */
static const struct {
	const char *name, *label;
} mem_categories[] = {
	{"constant", "Constants"},
	{"controlCode", "Control Code"},
	{"controlId", "Control IDs"},
	{"controlTable", "Control Table"},
	{"copyDescriptor", "Copy Descriptors"},
	{"globalExchangeCode", "Global Exchange Code"},
	{"globalExchangePacketHeader", "Global Exchange Packet Headers"},
	{"globalMessage", "Global Exchange Message Buffers"},
	{"hostExchangeCode", "Host Exchange Code"},
	{"hostExchangePacketHeader", "Host Exchange Packet Headers"},
	{"hostMessage", "Host Exchange Message Buffers"},
	{"instrumentationResults", "Instrumentation Results"},
	{"internalExchangeCode", "Internal Exchange Code"},
	{"message", "Internal Exchange Message Buffers"},
	{"multiple", "Multiple Categories"},
	{"outputEdge", "Output Edge Data"},
	{"rearrangement", "Data Rearrangement Buffers"},
	{"sharedCodeStorage", "Shared Code Storage"},
	{"sharedDataStorage", "Shared Data Storage"},
	{"stack", "Stack"},
	{"variable", "Variables"},
	{"vectorListDescriptor", "VectorList Descriptors"},
	{"vertexCode", "Vertex Code"},
	{"vertexFieldData", "Vertex Field Data"},
	{"vertexInstanceState", "Vertex Instances"},
};

/* printProfileSummary's "By Data Type" order: data first, then code. */
static const int summary_order[] = {
	20 /* variable */,       0 /* constant */,       13 /* message */,
	7 /* globalMessage */,   10 /* hostMessage */,   16 /* rearrangement */,
	15 /* outputEdge */,     9 /* hostExchangePacketHeader */,
	6 /* globalExchangePacketHeader */,              19 /* stack */,
	24 /* vertexInstanceState */,                    4 /* copyDescriptor */,
	21 /* vectorListDescriptor */,                  23 /* vertexFieldData */,
	18 /* sharedDataStorage */,                      14 /* multiple */,
	11 /* instrumentationResults */,                 2 /* controlId */,
	3 /* controlTable */,    1 /* controlCode */,    22 /* vertexCode */,
	17 /* sharedCodeStorage */,                      12 /* internalExchangeCode */,
	5 /* globalExchangeCode */,                      8 /* hostExchangeCode */,
};

static const char *const regions[] = {"interleaved", "nonInterleaved", "overflowed"};

/* The guide's program tags, and the exchange kind an exchange program's
 * `exchange` column refers to. */
static const struct {
	const char *name;
	int exchange_kind;
} program_types[] = {
	{"Sequence", -1},
	{"OnTileExecute", -1},
	{"DoExchange", TSF_EXCHANGE_INTERNAL},
	{"GlobalExchange", TSF_EXCHANGE_EXTERNAL},
	{"StreamCopy", TSF_EXCHANGE_HOST},
	{"Repeat", -1},
	{"RepeatWhileTrue", -1},
	{"RepeatWhileFalse", -1},
	{"SetLocalConsensusFromVar", -1},
	{"If", -1},
	{"IfElse", -1},
	{"Switch", -1},
	{"Sync", -1},
	{"Call", -1},
	{"WriteUndef", -1},
};

static const char *const step_types[] = {"OnTileExecute", "DoExchange",
                                         "GlobalExchange", "StreamCopy", "Sync",
                                         "CopySharedStructure"};
static const char *const sync_types[] = {"Internal", "External", "Global"};
static const char *const exchange_kinds[] = {"internal", "external", "host"};
static const char *const profiler_modes[] = {"IPU_MODEL", "COMPUTE_SETS",
                                             "SINGLE_TILE_COMPUTE_SETS", "VERTICES",
                                             "EXTERNAL_EXCHANGES"};
/* In tsi_ipu_version's order; each with the target name its chip has. */
static const char *const ipu_versions[] = {"Mk2", "Mk1", "Bow"};
static const char *const ipu_target_names[] = {"ipu2", "ipu1", "bow"};
static const char *const data_types[] = {"float", "half",           "int",
                                         "unsigned int", "short", "unsigned short",
                                         "char",  "unsigned char", "bool"};

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
