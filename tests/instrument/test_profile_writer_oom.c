/*
 * The profile.pop writer out of memory (issue 33, item 9): SQLite's
 * allocator is wrapped so that from its Nth page-sized allocation on
 * every one fails, and a report is written for every N until one gets
 * all it asks for, so the write runs out of memory at each place it
 * takes a page; every failure must be TSI_ERR_NO_MEMORY with a message
 * that says so and names the report (it read "cannot insert a name" when
 * the string table's page was the one refused), and the last write must
 * leave a report.
 */
#include "test-util.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "autoreport/autoreport-private.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>

/* SQLite's own allocator, and the failure to inject: the allocations
 * from number `fail_at` on (1-based, counted from arming; 0: none) fail. */
static sqlite3_mem_methods real_mem;
static long allocations, fail_at;

/* Only allocations of a page or more are counted and failed: they are
 * what writing rows needs (a new page of a table), and there are a few
 * hundred of them in a write, not the thousands of small ones. */
#define COUNTED_BYTES 4096

static void *failing_malloc(int n)
{
	if (fail_at && n >= COUNTED_BYTES && ++allocations >= fail_at)
		return NULL;
	return real_mem.xMalloc(n);
}

static void *failing_realloc(void *p, int n)
{
	if (fail_at && n >= COUNTED_BYTES && ++allocations >= fail_at)
		return NULL;
	return real_mem.xRealloc(p, n);
}

static void arm(long at)
{
	allocations = 0;
	fail_at = at;
}

static void test_out_of_memory_says_so(void **state)
{
	tsi_test_model *m = tsi_test_model_new(8);
	const tsi_graph_profile *gp;
	tsi_report_meta meta;
	char *dir = tsi_test_mkdtemp(), *path = NULL;
	size_t failures = 0;
	struct stat st;

	(void)state;
	assert_int_equal(tsi_popops_add_codelets(m->graph), TSI_OK);
	/* Names over several pages of the string table: variables and
	 * compute sets of their own, with long debug paths. */
	for (int i = 0; i < 96; i++) {
		char name[96], op[96];
		tsi_tensor *a;

		snprintf(name, sizeof(name), "model/encoder/block%03d/attention/input", i);
		snprintf(op, sizeof(op), "model/encoder/block%03d/attention/residual_add", i);
		a = tsi_test_var(m, TSI_FLOAT, 16, (unsigned)i % 8, name);
		assert_non_null(tsi_popops_add(m->graph, a, a, m->seq, op));
	}
	tsi_test_model_load(m, NULL, 0, NULL);
	gp = tsi_engine_get_graph_profile(m->engine);
	assert_non_null(gp);
	assert_true(asprintf(&path, "%s/profile.pop", dir) > 0);
	memset(&meta, 0, sizeof(meta));
	meta.tilescope_version = "0.0.0-test";
	meta.report_id = "0123456789abcdef0123456789abcdef";
	meta.created_unix_ns = INT64_C(1700000000000000000);

	for (long at = 1;; at++) {
		tsi_report_writer *w = NULL;
		int rc;

		assert_true(at < 1000000);
		arm(at);
		rc = tsi_report_writer_new(&w, path, gp, &meta);
		arm(0);
		if (rc == TSI_OK && allocations < at) {
			tsi_report_writer_free(w);
			break;
		}
		tsi_report_writer_free(w);
		if (rc == TSI_OK)
			continue; /* SQLite got by without that allocation */
		failures++;
		if (rc != TSI_ERR_NO_MEMORY ||
		    (!strstr(tsi_error_last(), "out of memory") &&
		     !strstr(tsi_error_last(), "out of host memory")) ||
		    !strstr(tsi_error_last(), path))
			fail_msg("allocation %ld failed: %d, '%s'", at, rc, tsi_error_last());
	}
	assert_true(failures > 0);
	assert_int_equal(stat(path, &st), 0);
	free(path);
	tsi_test_rmtree(dir);
	tsi_test_model_free(m);
	free(m);
}

int main(void)
{
	sqlite3_mem_methods mem;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_memory_says_so),
	};

	/* Before SQLite starts: its allocator cannot change afterwards. */
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &real_mem) != SQLITE_OK)
		return 1;
	mem = real_mem;
	mem.xMalloc = failing_malloc;
	mem.xRealloc = failing_realloc;
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &mem) != SQLITE_OK)
		return 1;
	/* Every page and small object from the allocator, none from blocks
	 * taken once at the start, so rows fail too, not only the setup. */
	if (sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0) != SQLITE_OK ||
	    sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0) != SQLITE_OK)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
