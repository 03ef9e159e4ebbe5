/*
 * Guide-shaped exports from a report (export.h): the graph profile and the
 * execution profile rebuilt from profile.pop must be what the runtime's
 * serialiser writes from the live engine's profile, in JSON (compared as
 * documents with cJSON_Compare, and byte for byte) and in CBOR (byte for
 * byte). A report whose tables contradict each other is refused.
 */
#include "report-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cbor.h>
#include <cjson/cJSON.h>
#include <sqlite3.h>

#include <tilescope/export.h>
#include <tilescope/serialise.h>

/* Fails unless two JSON documents parse and are equal, and are the same
 * bytes (the same serialiser wrote both). */
static void assert_same_json(const void *got, size_t got_len, const void *want, size_t want_len)
{
	cJSON *a = cJSON_ParseWithLength(got, got_len);
	cJSON *b = cJSON_ParseWithLength(want, want_len);

	assert_non_null(a);
	assert_non_null(b);
	assert_true(cJSON_Compare(a, b, true));
	cJSON_Delete(a);
	cJSON_Delete(b);
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	assert_int_equal(((const char *)got)[got_len], 0);
}

/* Fails unless two CBOR documents are the same bytes and one whole item. */
static void assert_same_cbor(const void *got, size_t got_len, const void *want, size_t want_len)
{
	struct cbor_load_result res;
	cbor_item_t *item;

	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	item = cbor_load(got, got_len, &res);
	assert_non_null(item);
	assert_int_equal(res.error.code, CBOR_ERR_NONE);
	assert_int_equal(res.read, got_len);
	assert_true(cbor_isa_map(item));
	cbor_decref(&item);
}

/* The graph profile of `f` exported from its report equals the live one. */
static void check_graph(const tsr_fixture *f)
{
	void *got, *want;
	size_t got_len, want_len;

	assert_int_equal(tsr_export_graph_profile(&got, &got_len, f->report, TSR_EXPORT_JSON),
	                 TSR_OK);
	assert_int_equal(tsi_graph_profile_serialise(&want, &want_len, f->gp, TSI_SERIAL_JSON),
	                 TSI_OK);
	assert_same_json(got, got_len, want, want_len);
	free(got);
	free(want);
	assert_int_equal(tsr_export_graph_profile(&got, &got_len, f->report, TSR_EXPORT_CBOR),
	                 TSR_OK);
	assert_int_equal(tsi_graph_profile_serialise(&want, &want_len, f->gp, TSI_SERIAL_CBOR),
	                 TSI_OK);
	assert_same_cbor(got, got_len, want, want_len);
	free(got);
	free(want);
}

/* The execution profile of `f`'s kept runs equals the live one. */
static void check_execution(const tsr_fixture *f)
{
	void *got, *want;
	size_t got_len, want_len;

	assert_int_equal(tsr_export_execution_profile(&got, &got_len, f->report, TSR_EXPORT_JSON),
	                 TSR_OK);
	assert_int_equal(tsi_execution_profile_serialise(&want, &want_len, f->gp, f->runs, f->n_runs,
	                                                 TSI_SERIAL_JSON),
	                 TSI_OK);
	assert_same_json(got, got_len, want, want_len);
	free(got);
	free(want);
	assert_int_equal(tsr_export_execution_profile(&got, &got_len, f->report, TSR_EXPORT_CBOR),
	                 TSR_OK);
	assert_int_equal(tsi_execution_profile_serialise(&want, &want_len, f->gp, f->runs, f->n_runs,
	                                                 TSI_SERIAL_CBOR),
	                 TSI_OK);
	assert_same_cbor(got, got_len, want, want_len);
	free(got);
	free(want);
}

/* The matmul fixture: both profiles, both formats. */
static void test_matmul(void **state)
{
	tsr_fixture f;
	void *got;
	size_t len;
	cJSON *doc, *steps, *trace;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	assert_int_equal(f.n_runs, 3);
	check_graph(&f);
	check_execution(&f);

	/* Not vacuous: the export holds every run's steps and trace. */
	assert_int_equal(tsr_export_execution_profile(&got, &len, f.report, TSR_EXPORT_JSON), TSR_OK);
	doc = cJSON_ParseWithLength(got, len);
	assert_non_null(doc);
	steps = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(doc, "simulation"), "steps");
	trace = cJSON_GetObjectItemCaseSensitive(doc, "programTrace");
	{
		size_t n_steps = 0, n_trace = 0;

		for (size_t i = 0; i < f.n_runs; i++) {
			n_steps += f.runs[i]->n_steps;
			n_trace += f.runs[i]->n_trace;
		}
		assert_true(n_steps > 0);
		assert_int_equal(cJSON_GetArraySize(steps), n_steps);
		assert_int_equal(cJSON_GetArraySize(trace), n_trace);
	}
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "runs")), 3);
	cJSON_Delete(doc);
	free(got);
	tsr_fixture_teardown(&f);
}

/* The out-of-memory fixture: a graph profile with OOM tiles, no runs. */
static void test_oom(void **state)
{
	tsr_fixture f;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_OOM);
	assert_int_equal(f.n_runs, 0);
	assert_true(f.gp->n_oom_tiles > 0);
	check_graph(&f);
	check_execution(&f);
	tsr_fixture_teardown(&f);
}

/* Bad arguments. */
static void test_arguments(void **state)
{
	tsr_fixture f;
	void *got = (void *)1;
	size_t len = 7;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_OOM);
	assert_int_equal(tsr_export_graph_profile(&got, &len, NULL, TSR_EXPORT_JSON),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_null(got);
	assert_int_equal(len, 0);
	assert_int_equal(tsr_export_graph_profile(NULL, &len, f.report, TSR_EXPORT_JSON),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_export_execution_profile(&got, NULL, f.report, TSR_EXPORT_CBOR),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_export_graph_profile(&got, &len, f.report, (tsr_export_format)7),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_null(got);
	assert_int_equal(tsr_export_execution_profile(&got, &len, f.report, (tsr_export_format)-1),
	                 TSR_ERR_INVALID_ARGUMENT);
	tsr_fixture_teardown(&f);
}

/* Copies the fixture's profile.pop to dir/name and runs `sql` on the copy. */
static void tamper(char *out, size_t size, const tsr_fixture *f, const char *name,
                   const char *sql)
{
	sqlite3 *db;
	char *err = NULL;

	snprintf(out, size, "%s/%s", f->dir, name);
	tsi_test_copy_file(f->profile_path, out);
	assert_int_equal(sqlite3_open(out, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("tampering: %s", err);
	assert_int_equal(sqlite3_changes(db) > 0, 1);
	sqlite3_close(db);
}

/*
 * Reports whose tables contradict each other: the export (or already the
 * opening, if the core checks the same thing) fails with
 * TSR_ERR_CORRUPT and writes nothing.
 */
static void test_contradictions(void **state)
{
	static const struct {
		const char *name, *sql;
	} cases[] = {
		/* A vertex type past the list. */
		{"vt.pop", "UPDATE compute_set_vertex_type SET vertex_type = 999 "
		           "WHERE (compute_set, vertex_type) IN "
		           "(SELECT compute_set, vertex_type FROM compute_set_vertex_type LIMIT 1)"},
		/* A category blob naming tile 1000 of 32. */
		{"cat.pop", "UPDATE memory_category SET by_tile = x'01e8070105' "
		            "WHERE category = 'variable' AND region = 'interleaved' "
		            "AND overlapped = 0"},
		/* A compute set's cycles blob cut short. */
		{"cs.pop", "UPDATE compute_set SET cycles_by_tile = x'0100' WHERE id = 0"},
		/* An exchange program's instruction bytes below zero. */
		{"instr.pop", "UPDATE program SET instr_send = -5 WHERE instr_total IS NOT NULL"},
		/* A memory category of no known name. */
		{"catname.pop", "UPDATE memory_category SET category = 'nonsense' "
		                "WHERE category = 'stack' AND region = 'interleaved' "
		                "AND overlapped = 0"},
		/* An exchange beyond its kind's list. */
		{"xid.pop", "UPDATE exchange SET id = 4000 WHERE kind = 'internal' AND id = 0"},
	};
	tsr_fixture f;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[700];
		tsr_report *r = NULL;
		void *got = (void *)1;
		size_t len = 1;
		int rc;

		tamper(path, sizeof(path), &f, cases[i].name, cases[i].sql);
		rc = tsr_report_open(&r, path, NULL);
		if (rc != TSR_OK) {
			print_message("%s: refused when opening\n", cases[i].name);
			assert_int_equal(rc, TSR_ERR_CORRUPT);
			continue;
		}
		rc = tsr_export_graph_profile(&got, &len, r, TSR_EXPORT_JSON);
		if (rc != TSR_ERR_CORRUPT)
			fail_msg("%s: export gave %d (%s)", cases[i].name, rc, tsr_report_error(r));
		assert_null(got);
		assert_int_equal(len, 0);
		assert_true(strlen(tsr_report_error(r)) > 0);
		tsr_report_free(r);
	}
	tsr_fixture_teardown(&f);
}

/*
 * Under a memory cap: from a cap too small to open the report up to one
 * that is enough, every export either fails with TSR_ERR_TOO_LARGE and
 * no output, or succeeds with the whole document; at least one cap lets
 * the report open but not export, and the largest needed succeeds.
 */
static void test_memory_cap(void **state)
{
	tsr_fixture f;
	void *want;
	size_t want_len;
	bool refused_export = false, exported = false;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	assert_int_equal(tsi_graph_profile_serialise(&want, &want_len, f.gp, TSI_SERIAL_CBOR),
	                 TSI_OK);
	for (uint64_t cap = 16384; !exported && cap < ((uint64_t)1 << 32); cap += cap / 4) {
		tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
		tsr_report *r = NULL;
		void *got = NULL;
		size_t len = 0;
		int rc;

		o.memory_cap = cap;
		rc = tsr_report_open(&r, f.report_dir, &o);
		if (rc != TSR_OK) {
			assert_int_equal(rc, TSR_ERR_TOO_LARGE);
			continue;
		}
		for (int again = 0; again < 2; again++) {
			rc = tsr_export_graph_profile(&got, &len, r, TSR_EXPORT_CBOR);
			if (rc == TSR_OK) {
				assert_same_cbor(got, len, want, want_len);
				free(got);
				exported = true;
			} else {
				/* Other queries may load parts lazily and hit the cap first. */
				assert_int_equal(rc, TSR_ERR_TOO_LARGE);
				assert_null(got);
				refused_export = true;
			}
		}
		tsr_report_free(r);
	}
	assert_true(refused_export);
	assert_true(exported);
	free(want);
	tsr_fixture_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matmul),
		cmocka_unit_test(test_oom),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_contradictions),
		cmocka_unit_test(test_memory_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
