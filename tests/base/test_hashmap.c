/*
 * tsb_hashmap: string and integer keys, growth, deletions that leave
 * tombstones, and a walk that sees each key once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/hashmap.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_string_keys(void **state)
{
	tsb_hashmap *m = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS);
	uintptr_t v = 0;
	char key[16];

	(void)state;
	assert_non_null(m);
	assert_false(tsb_hashmap_lookup_str(m, "absent", &v));
	assert_int_equal(tsb_hashmap_put_str(m, "alpha", 1), 0);
	assert_int_equal(tsb_hashmap_put_str(m, "beta", 2), 0);
	assert_int_equal(tsb_hashmap_count(m), 2);
	/* Another pointer to the same text finds it: keys compare by text. */
	strcpy(key, "alpha");
	assert_true(tsb_hashmap_lookup_str(m, key, &v));
	assert_int_equal(v, 1);
	/* A put of a present key replaces its value, not adds one. */
	assert_int_equal(tsb_hashmap_put_str(m, key, 10), 0);
	assert_int_equal(tsb_hashmap_count(m), 2);
	assert_true(tsb_hashmap_lookup_str(m, "alpha", &v));
	assert_int_equal(v, 10);
	assert_true(tsb_hashmap_lookup_str(m, "", &v) == false);
	assert_int_equal(tsb_hashmap_put_str(m, "", 5), 0);
	assert_true(tsb_hashmap_lookup_str(m, "", &v));
	assert_int_equal(v, 5);
	/* The other kind of key is refused. */
	assert_int_equal(tsb_hashmap_put_u64(m, 1, 1), -1);
	assert_false(tsb_hashmap_lookup_u64(m, 1, &v));
	assert_int_equal(tsb_hashmap_put_str(m, NULL, 1), -1);
	tsb_hashmap_free(m);
	tsb_hashmap_free(NULL);
}

/* Many keys, removed and added in waves: every lookup stays right while
 * the table grows and rehashes through its tombstones. */
static void test_growth_with_deletions(void **state)
{
	enum { N = 20000 };
	tsb_hashmap *m = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS | TSB_HASHMAP_COPY_KEYS);
	char key[32];
	uintptr_t v;

	(void)state;
	assert_non_null(m);
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "name-%d", i);
		assert_int_equal(tsb_hashmap_put_str(m, key, (uintptr_t)i), 0);
	}
	assert_int_equal(tsb_hashmap_count(m), N);
	/* Remove the odd ones. */
	for (int i = 1; i < N; i += 2) {
		snprintf(key, sizeof(key), "name-%d", i);
		assert_true(tsb_hashmap_remove_str(m, key));
		assert_false(tsb_hashmap_remove_str(m, key));
	}
	assert_int_equal(tsb_hashmap_count(m), N / 2);
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "name-%d", i);
		if (i % 2) {
			assert_false(tsb_hashmap_lookup_str(m, key, &v));
		} else {
			assert_true(tsb_hashmap_lookup_str(m, key, &v));
			assert_int_equal(v, (uintptr_t)i);
		}
	}
	/* Churn: add and remove other keys many times over the table's size,
	 * so that a map that never cleared its tombstones would fill and
	 * probe forever. */
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < N / 4; i++) {
			snprintf(key, sizeof(key), "churn-%d-%d", round, i);
			assert_int_equal(tsb_hashmap_put_str(m, key, 1), 0);
		}
		for (int i = 0; i < N / 4; i++) {
			snprintf(key, sizeof(key), "churn-%d-%d", round, i);
			assert_true(tsb_hashmap_remove_str(m, key));
		}
	}
	assert_int_equal(tsb_hashmap_count(m), N / 2);
	/* The table did not grow for keys that are gone: it holds N / 2 keys
	 * in less than 8 slots each. */
	assert_true(tsb_hashmap_get_memory(m) < (size_t)N / 2 * 8 * 32 + 20 * (size_t)N);
	for (int i = 0; i < N; i += 2) {
		snprintf(key, sizeof(key), "name-%d", i);
		assert_true(tsb_hashmap_lookup_str(m, key, &v));
		assert_int_equal(v, (uintptr_t)i);
	}
	tsb_hashmap_free(m);
}

/* Keys copied by the map: the caller's buffer may change after the put. */
static void test_copied_keys(void **state)
{
	tsb_hashmap *m = tsb_hashmap_new(TSB_HASHMAP_COPY_KEYS);
	char key[8] = "one";
	uintptr_t v;

	(void)state;
	assert_int_equal(tsb_hashmap_put_str(m, key, 1), 0);
	strcpy(key, "two");
	assert_true(tsb_hashmap_lookup_str(m, "one", &v));
	assert_false(tsb_hashmap_lookup_str(m, "two", &v));
	tsb_hashmap_free(m);
}

static void test_u64_keys(void **state)
{
	tsb_hashmap *m = tsb_hashmap_new(TSB_HASHMAP_U64_KEYS);
	uintptr_t v;

	(void)state;
	/* Keys that differ only in their high bits, and 0 and UINT64_MAX. */
	for (uint64_t i = 0; i < 5000; i++)
		assert_int_equal(tsb_hashmap_put_u64(m, i << 40, (uintptr_t)i), 0);
	assert_int_equal(tsb_hashmap_put_u64(m, UINT64_MAX, 7), 0);
	assert_int_equal(tsb_hashmap_count(m), 5001);
	for (uint64_t i = 0; i < 5000; i++) {
		assert_true(tsb_hashmap_lookup_u64(m, i << 40, &v));
		assert_int_equal(v, (uintptr_t)i);
	}
	assert_false(tsb_hashmap_lookup_u64(m, 1, &v));
	assert_true(tsb_hashmap_remove_u64(m, 0));
	assert_false(tsb_hashmap_lookup_u64(m, 0, &v));
	assert_true(tsb_hashmap_lookup_u64(m, UINT64_MAX, &v));
	assert_int_equal(v, 7);
	assert_int_equal(tsb_hashmap_put_str(m, "x", 1), -1);
	tsb_hashmap_free(m);
}

/* A walk returns each key once, with its value. */
static void test_walk(void **state)
{
	tsb_hashmap *m = tsb_hashmap_new(TSB_HASHMAP_U64_KEYS);
	unsigned char seen[300] = {0};
	size_t iter = 0, n = 0;
	uint64_t key;
	uintptr_t v;

	(void)state;
	for (uint64_t i = 0; i < 300; i++)
		assert_int_equal(tsb_hashmap_put_u64(m, i, (uintptr_t)(i * 3)), 0);
	for (uint64_t i = 0; i < 300; i += 3)
		assert_true(tsb_hashmap_remove_u64(m, i));
	while (tsb_hashmap_next(m, &iter, NULL, &key, &v)) {
		assert_true(key < 300);
		assert_int_not_equal(key % 3, 0);
		assert_int_equal(v, key * 3);
		assert_int_equal(seen[key], 0);
		seen[key] = 1;
		n++;
	}
	assert_int_equal(n, 200);
	tsb_hashmap_free(m);
}

static void test_reserve_and_hash(void **state)
{
	tsb_hashmap *m = tsb_hashmap_new(0);
	size_t before;

	(void)state;
	assert_int_equal(tsb_hashmap_reserve(m, 1000), 0);
	before = tsb_hashmap_get_memory(m);
	for (int i = 0; i < 1000; i++) {
		char *k = malloc(16);

		snprintf(k, 16, "%d", i);
		assert_int_equal(tsb_hashmap_put_str(m, k, (uintptr_t)k), 0);
	}
	/* No rehash after the reservation. */
	assert_int_equal(tsb_hashmap_get_memory(m), before);
	for (size_t it = 0;;) {
		uintptr_t v;

		if (!tsb_hashmap_next(m, &it, NULL, NULL, &v))
			break;
		free((void *)v);
	}
	tsb_hashmap_free(m);
	/* FNV-1a's published values. */
	assert_true(tsb_hash_str("") == 0xcbf29ce484222325u);
	assert_true(tsb_hash_str("a") == 0xaf63dc4c8601ec8cu);
	assert_true(tsb_hash_bytes("foobar", 6) == 0x85944171f73967e8u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_keys),
		cmocka_unit_test(test_growth_with_deletions),
		cmocka_unit_test(test_copied_keys),
		cmocka_unit_test(test_u64_keys),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_reserve_and_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
