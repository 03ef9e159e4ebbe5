/*
 * The vocabulary table (db-schema/include/tilescope/vocabulary.def) and
 * what is expanded from it: the format's codes and names (vocabulary.h),
 * the runtime's enumerations (tilescope/profile-vocabulary.h) and their
 * name functions. Every list is walked through the table itself, so a
 * line added there is checked here without a change to this file: its
 * code is its position, its name is what the format, the runtime and the
 * lookups give, no two names of a list are the same, and the summary's
 * order lists each category once.
 */
#include "test-util.h"

#include <stdbool.h>
#include <string.h>

#include <tilescope/profile.h>
#include <tilescope/types.h>

#include "vocabulary.h"

/* One list's members, in table order: the runtime's code and the name. */
typedef struct word {
	int code;
	const char *name;
} word;

/* Checks `words[0..n)` against the format's vocabulary `vocab`: the
 * count, each code its position, each name the format's and found back by
 * lookup, no name twice; and, when `runtime_name` is given, that the
 * runtime's name function says the same. */
static void check_list(tsf_vocab vocab, const word *words, size_t n, int runtime_count,
                       const char *(*runtime_name)(int))
{
	assert_int_equal(tsf_vocab_count(vocab), n);
	assert_int_equal(runtime_count, (int)n);
	assert_null(tsf_vocab_name(vocab, (int)n));
	assert_null(tsf_vocab_name(vocab, -1));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(words[i].code, (int)i);
		assert_non_null(words[i].name);
		assert_true(words[i].name[0] != '\0');
		assert_string_equal(tsf_vocab_name(vocab, (int)i), words[i].name);
		assert_int_equal(tsf_vocab_lookup(vocab, words[i].name), (int)i);
		if (runtime_name)
			assert_string_equal(runtime_name((int)i), words[i].name);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(words[j].name, words[i].name);
	}
	assert_int_equal(tsf_vocab_lookup(vocab, "no such word"), -1);
}

static const char *mem_category_name(int c) { return tsi_mem_category_name((tsi_mem_category)c); }
static const char *lowered_type_name(int c) { return tsi_lowered_type_name((tsi_lowered_type)c); }
static const char *step_type_name(int c) { return tsi_step_type_name((tsi_step_type)c); }
static const char *profiler_mode_name(int c) { return tsi_profiler_mode_name((tsi_profiler_mode)c); }
static const char *type_name(int c) { return tsi_type_name((tsi_type)c); }

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_mem_categories(void **state)
{
	(void)state;
	static const word words[] = {
#define TSF_MEM_CATEGORY(id, name, label) {TSI_MEM_##id, name},
#include <tilescope/vocabulary.def>
	};
	static const char *const labels[] = {
#define TSF_MEM_CATEGORY(id, name, label) label,
#include <tilescope/vocabulary.def>
	};
	check_list(TSF_VOCAB_MEM_CATEGORY, words, N(words), TSI_MEM_CATEGORY_COUNT,
	           mem_category_name);
	for (size_t i = 0; i < N(labels); i++)
		assert_string_equal(tsf_mem_category_label((int)i), labels[i]);
	assert_null(tsf_mem_category_label((int)N(labels)));
}

/* The summary's order is the one list beside the table: each category
 * exactly once. */
static void test_summary_order(void **state)
{
	(void)state;
	size_t n = 0;
	const int *order = tsf_mem_category_summary_order(&n);
	bool seen[TSF_MEM_CATEGORY_COUNT] = {false};

	assert_int_equal(n, TSF_MEM_CATEGORY_COUNT);
	for (size_t i = 0; i < n; i++) {
		assert_in_range(order[i], 0, TSF_MEM_CATEGORY_COUNT - 1);
		assert_false(seen[order[i]]);
		seen[order[i]] = true;
	}
	/* The guide's summary starts with what holds data. */
	assert_int_equal(order[0], TSI_MEM_VARIABLE);
}

static void test_regions(void **state)
{
	(void)state;
	static const word words[] = {
#define TSF_REGION(id, name) {TSI_REGION_##id, name},
#include <tilescope/vocabulary.def>
	};
	check_list(TSF_VOCAB_REGION, words, N(words), TSI_REGION_COUNT, NULL);
}

static void test_program_types(void **state)
{
	(void)state;
	static const word words[] = {
#define TSF_PROGRAM_TYPE(id, name, exchange_kind) {TSI_LP_##id, name},
#include <tilescope/vocabulary.def>
	};
	check_list(TSF_VOCAB_PROGRAM_TYPE, words, N(words), TSI_LP_TYPE_COUNT, lowered_type_name);
	/* The exchange list each exchange program's index refers to. */
	assert_int_equal(tsf_program_type_exchange_kind(TSI_LP_DO_EXCHANGE), TSI_EXCHANGE_INTERNAL);
	assert_int_equal(tsf_program_type_exchange_kind(TSI_LP_GLOBAL_EXCHANGE),
	                 TSI_EXCHANGE_EXTERNAL);
	assert_int_equal(tsf_program_type_exchange_kind(TSI_LP_STREAM_COPY), TSI_EXCHANGE_HOST);
	assert_int_equal(tsf_program_type_exchange_kind(TSI_LP_SEQUENCE), -1);
	assert_int_equal(tsf_program_type_exchange_kind(TSI_LP_TYPE_COUNT), -1);
}

static void test_step_sync_exchange(void **state)
{
	(void)state;
	static const word steps[] = {
#define TSF_STEP_TYPE(id, name) {TSI_STEP_##id, name},
#include <tilescope/vocabulary.def>
	};
	static const word syncs[] = {
#define TSF_SYNC_TYPE(id, name) {TSI_SYNC_##id, name},
#include <tilescope/vocabulary.def>
	};
	static const word kinds[] = {
#define TSF_EXCHANGE_KIND(id, name) {TSI_EXCHANGE_##id, name},
#include <tilescope/vocabulary.def>
	};
	check_list(TSF_VOCAB_STEP_TYPE, steps, N(steps), TSI_STEP_TYPE_COUNT, step_type_name);
	check_list(TSF_VOCAB_SYNC_TYPE, syncs, N(syncs), TSI_SYNC_GLOBAL + 1, NULL);
	check_list(TSF_VOCAB_EXCHANGE_KIND, kinds, N(kinds), TSI_EXCHANGE_KIND_COUNT, NULL);
}

static void test_modes_types_versions(void **state)
{
	(void)state;
	static const word modes[] = {
#define TSF_PROFILER_MODE(id, name) {TSI_PROFILER_##id, name},
#include <tilescope/vocabulary.def>
	};
	static const word types[] = {
#define TSF_DATA_TYPE(id, name) {TSI_##id, name},
#include <tilescope/vocabulary.def>
	};
	static const word versions[] = {
#define TSF_IPU_VERSION(id, name, target_name) {TSI_IPU_##id, name},
#include <tilescope/vocabulary.def>
	};
	static const char *const targets[] = {
#define TSF_IPU_VERSION(id, name, target_name) target_name,
#include <tilescope/vocabulary.def>
	};
	check_list(TSF_VOCAB_PROFILER_MODE, modes, N(modes), TSI_PROFILER_MODE_COUNT,
	           profiler_mode_name);
	check_list(TSF_VOCAB_DATA_TYPE, types, N(types), TSI_TYPE_COUNT, type_name);
	check_list(TSF_VOCAB_IPU_VERSION, versions, N(versions), TSI_IPU_BOW + 1, NULL);
	for (size_t i = 0; i < N(targets); i++)
		assert_string_equal(tsf_ipu_target_name((int)i), targets[i]);
	assert_null(tsf_ipu_target_name((int)N(targets)));
	/* The runtime's presets carry the table's target names. */
	for (size_t i = 0; i < N(targets); i++) {
		tsi_target t;

		assert_int_equal(tsi_target_ipu(&t, (tsi_ipu_version)i, 1, 0), TSI_OK);
		assert_string_equal(t.name, targets[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_categories),
		cmocka_unit_test(test_summary_order),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_program_types),
		cmocka_unit_test(test_step_sync_exchange),
		cmocka_unit_test(test_modes_types_versions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
