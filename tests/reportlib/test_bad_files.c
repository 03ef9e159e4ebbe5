/*
 * The bad-file corpus, built at test time from a real report in a
 * temporary directory: random bytes, empty and truncated files, damaged
 * headers and pages, another application's SQLite file, schema versions
 * too new and too old, reports whose counts, ids, intervals and blobs lie,
 * a report large enough to pass a memory cap, and reports carrying views,
 * triggers and generated columns that call functions. Each must give its
 * error code (or open, with nothing from the file executed: a spy
 * function registered on the reader's own connection is never called,
 * while a plain connection calls it through the same view), quickly, and
 * every query on what opens must fail cleanly or work. A table of case ->
 * code -> milliseconds (open and the case's own check) is printed.
 *
 * White-box: reaches the handle's connection (report-private.h) to
 * register the spy and to prepare SQL against the hostile objects.
 */
#include "report-fixture.h"
#include "report-private.h"
#include "test-sqlite.h"

#include <tilescope/export.h>
#include <tilescope/summary.h>

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format.h"

/* The report every case starts from, and where cases are built. */
static tsr_fixture fixture;
static char work[700];
static int spy_calls;
/* The spy offered to the reader: as harmless-looking as a function can be. */
#define SPY_FLAGS (SQLITE_UTF8 | SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC)

/* --- Building the corpus -------------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The whole of `path` into a malloc'd buffer. */
static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long size;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size > 0);
	rewind(f);
	buf = malloc((size_t)size);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

static void write_all(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A copy of the fixture's profile.pop at work/<name>.pop into path. */
static void copy_report(char *path, size_t size, const char *name)
{
	size_t len;
	uint8_t *buf = read_all(fixture.profile_path, &len);

	snprintf(path, size, "%s/%s.pop", work, name);
	write_all(path, buf, len);
	free(buf);
}

/* The spy: counts its calls; returns 1. */
static void spy_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	spy_calls++;
	sqlite3_result_int(ctx, 1);
}

/* Runs `sql` on a writable connection to `path` (the spy registered). */
static void edit(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_create_function(db, "spy", 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
	                                         NULL, spy_fn, NULL, NULL),
	                 SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("editing the corpus: %s\n%s", err, sql);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Sets byte `offset` of `path` to `value` (xor when `flip`). */
static void poke(const char *path, size_t offset, uint8_t value, bool flip)
{
	size_t len;
	uint8_t *buf = read_all(path, &len);

	assert_true(offset < len);
	buf[offset] = flip ? (uint8_t)(buf[offset] ^ value) : value;
	write_all(path, buf, len);
	free(buf);
}

/* The b-tree header offset of the root page of `table` in `path`. */
static size_t root_page_offset(const char *path, const char *table)
{
	char sql[200];
	int64_t page_size = tsi_test_sqlite_file_int(path, "PRAGMA page_size");
	int64_t root;

	snprintf(sql, sizeof(sql), "SELECT rootpage FROM sqlite_master WHERE name = '%s'", table);
	root = tsi_test_sqlite_file_int(path, sql);
	assert_true(root >= 2);
	return (size_t)((root - 1) * page_size);
}

/* --- Cases ----------------------------------------------------------------------------- */

/* How a case is checked once (if) it opens. */
typedef int (*after_fn)(tsr_report *r);

typedef struct bad_case {
	const char *name;
	int open_code;       /* expected from tsr_report_open */
	after_fn after;      /* then this must return after_code (NULL: none) */
	int after_code;
	uint64_t cap;        /* memory cap, 0: default */
	bool spy;            /* the file calls spy(): prove it never runs */
	const char *spy_sql; /* SQL that makes a plain connection call it */
} bad_case;

/* Runs one case on `path`: open, the follow-up check, every query. */
static void run_case(const bad_case *c, const char *path)
{
	tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	tsr_report *r = NULL;
	double t0 = now_ms(), ms;
	int rc, after = TSR_OK;

	o.memory_cap = c->cap;
	spy_calls = 0;
	rc = tsr_report_open(&r, path, &o);
	if (rc == TSR_OK && c->spy) {
		/* Offer the file the function: an innocuous one, as an extension
		 * might register. The reader must still never call it. */
		assert_int_equal(sqlite3_create_function(r->db, "spy", 0, SPY_FLAGS, NULL, spy_fn,
		                                         NULL, NULL),
		                 SQLITE_OK);
	}
	if (rc == TSR_OK && c->after)
		after = c->after(r);
	ms = now_ms() - t0;
	/* Then every query (untimed: the summary of a huge report takes a
	 * while, which is not what this test measures). */
	if (rc == TSR_OK)
		(void)tsr_fixture_query_all(r, 16, true);
	if (spy_calls)
		printf("  (%s: the spy was called %d times)\n", c->name, spy_calls);
	printf("  %-34s %-24s %-24s %7.2f ms\n", c->name, tsr_error_name(rc),
	       c->after ? tsr_error_name(after) : "-", ms);
	if (rc != c->open_code)
		fail_msg("%s: opened with %s (%s), expected %s", c->name, tsr_error_name(rc),
		         tsr_last_error(), tsr_error_name(c->open_code));
	if (rc == TSR_OK && c->after && after != c->after_code)
		fail_msg("%s: the check gave %s (%s), expected %s", c->name, tsr_error_name(after),
		         tsr_report_error(r), tsr_error_name(c->after_code));
	if (rc != TSR_OK) {
		assert_null(r);
		assert_true(strlen(tsr_last_error()) > 0);
	}
	assert_int_equal(spy_calls, 0);
	assert_true(ms < 1000.0);
	tsr_report_free(r);

	/* The positive control: a plain connection does run the file's SQL. */
	if (c->spy_sql) {
		sqlite3 *db = NULL;

		assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
		sqlite3_create_function(db, "spy", 0, SPY_FLAGS, NULL, spy_fn, NULL, NULL);
		sqlite3_exec(db, "PRAGMA trusted_schema = ON", NULL, NULL, NULL);
		sqlite3_exec(db, c->spy_sql, NULL, NULL, NULL);
		sqlite3_close(db);
		assert_true(spy_calls > 0);
	}
}

/* A case on a copy of the report edited by `sql`. */
static void edited_case(const bad_case *c, const char *sql)
{
	char path[800];

	copy_report(path, sizeof(path), c->name);
	edit(path, sql);
	run_case(c, path);
}

/* Prepares and steps `sql` on the handle: its code. */
static int run_sql(tsr_report *r, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc = tsr_prepare(r, &st, sql);

	while (!rc) {
		rc = tsr_step_row(r, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc == SQLITE_ROW)
			rc = TSR_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

static int after_cycles_cs0(tsr_report *r)
{
	uint64_t tiles[64];

	return tsr_report_fill_compute_set_cycles_by_tile(tiles, 64, r, 0, false);
}

static int after_sql_tile_sum(tsr_report *r)
{
	return run_sql(r, "SELECT SUM(tile_sum(cycles_by_tile)) FROM compute_set");
}

static int after_category_ipu0(tsr_report *r)
{
	tsr_category_memory *cats = NULL;
	size_t n;
	int rc = tsr_report_list_memory_by_category(&cats, &n, r, 0);

	free(cats);
	return rc;
}

static int after_variables(tsr_report *r)
{
	const tsr_variable *v;
	size_t n;

	return tsr_report_get_variables(&v, &n, r);
}

static int after_variable_by_tile(tsr_report *r)
{
	const tsr_variable *v;
	uint64_t tiles[64];
	size_t n;
	int rc = tsr_report_get_variables(&v, &n, r);

	for (size_t i = 0; !rc && i < n; i++)
		rc = tsr_report_fill_variable_by_tile(tiles, 64, r, i);
	return rc;
}

/* The graph profile export, which adds up every per-tile blob. */
static int after_export_graph(tsr_report *r)
{
	void *out = NULL;
	size_t len;
	int rc = tsr_export_graph_profile(&out, &len, r, TSR_EXPORT_CBOR);

	free(out);
	return rc;
}

static int after_liveness(tsr_report *r)
{
	const tsr_liveness_step *s;
	size_t n;

	return tsr_report_get_liveness_steps(&s, &n, r);
}

/*
 * A report from a newer writer: a profiler mode, an IPU version and a data
 * type this reader's vocabulary lacks. The report opens; reportlib hands
 * each out as its enumeration's _UNKNOWN member and keeps the file's word,
 * which the summary shows as before; the export, whose documents have no
 * code for the word, fails with one line naming it, as it did.
 */
static void test_newer_words(void **state)
{
	char path[800];
	tsr_report *r = NULL;
	const tsr_report_info *info;
	const tsr_target *t;
	const tsr_variable *v;
	size_t n, unknown = 0;
	char *json = NULL;
	void *out = NULL;
	size_t len;

	(void)state;
	copy_report(path, sizeof(path), "newer-words");
	edit(path, "INSERT OR REPLACE INTO meta(key, value) VALUES ('profiler_mode', 'TRACE_ALL');"
	           "UPDATE target SET ipu_version = 'Mk3', name = 'ipu3';"
	           "UPDATE variable SET type = 'float8' WHERE id = (SELECT MIN(id) FROM variable);");
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);

	info = tsr_report_get_info(r);
	assert_int_equal(info->profiler, TSR_PROFILER_UNKNOWN);
	assert_string_equal(info->profiler_name, "TRACE_ALL");
	assert_null(tsr_profiler_mode_name(info->profiler));
	t = tsr_report_get_target(r);
	assert_int_equal(t->version, TSR_IPU_UNKNOWN);
	assert_string_equal(t->version_name, "Mk3");
	assert_null(tsr_ipu_version_name(t->version));
	assert_int_equal(tsr_report_get_variables(&v, &n, r), TSR_OK);
	for (size_t i = 0; i < n; i++) {
		if (v[i].data_type == TSR_DATA_UNKNOWN) {
			assert_string_equal(v[i].data_type_name, "float8");
			unknown++;
		} else {
			assert_string_equal(v[i].data_type_name, tsr_data_type_name(v[i].data_type));
		}
	}
	assert_int_equal(unknown, 1);
	assert_null(tsr_data_type_name(TSR_DATA_UNKNOWN));
	assert_null(tsr_data_type_name(TSR_DATA_TYPE_COUNT));

	/* The summary shows the word as the file spells it. */
	assert_int_equal(tsr_summary_dup_json(&json, r, NULL), TSR_OK);
	assert_non_null(strstr(json, "\"ipuVersion\":\t\"Mk3\""));
	free(json);

	/* The graph profile has no code for the mode: one error naming it. */
	assert_int_equal(tsr_export_graph_profile(&out, &len, r, TSR_EXPORT_JSON), TSR_ERR_CORRUPT);
	assert_null(out);
	assert_non_null(strstr(tsr_report_error(r), "unknown profiler mode 'TRACE_ALL'"));
	tsr_report_free(r);

	/* Nor for the data type, once the mode is one it knows. */
	edit(path, "UPDATE meta SET value = 'VERTICES' WHERE key = 'profiler_mode'");
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(tsr_report_get_info(r)->profiler, TSR_PROFILER_VERTICES);
	assert_int_equal(tsr_export_graph_profile(&out, &len, r, TSR_EXPORT_JSON), TSR_ERR_CORRUPT);
	assert_null(out);
	assert_non_null(strstr(tsr_report_error(r), "unknown element type 'float8'"));
	tsr_report_free(r);
}

/* Files that are not reports at all. */
static void test_not_reports(void **state)
{
	static const bad_case cases[] = {
		{"random-bytes", TSR_ERR_NOT_SQLITE, NULL, 0, 0, false, NULL},
		{"empty-file", TSR_ERR_NOT_SQLITE, NULL, 0, 0, false, NULL},
		{"magic-then-zeros", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		{"directory-without-profile", TSR_ERR_NOT_FOUND, NULL, 0, 0, false, NULL},
		{"missing-file", TSR_ERR_NOT_FOUND, NULL, 0, 0, false, NULL},
		{"fifo", TSR_ERR_NOT_SQLITE, NULL, 0, 0, false, NULL},
		{"other-application", TSR_ERR_NOT_REPORT, NULL, 0, 0, false, NULL},
		{"pvti-file", TSR_ERR_NOT_REPORT, NULL, 0, 0, false, NULL},
		{"user-version-99", TSR_ERR_SCHEMA_TOO_NEW, NULL, 0, 0, false, NULL},
		{"user-version-0", TSR_ERR_SCHEMA_TOO_OLD, NULL, 0, 0, false, NULL},
	};
	char path[800];
	uint8_t bytes[8192];
	uint32_t seed = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(bytes); i++) {
		seed = seed * 1103515245u + 12345u;
		bytes[i] = (uint8_t)(seed >> 16);
	}
	snprintf(path, sizeof(path), "%s/random.pop", work);
	write_all(path, bytes, sizeof(bytes));
	run_case(&cases[0], path);
	snprintf(path, sizeof(path), "%s/empty.pop", work);
	write_all(path, "", 0);
	run_case(&cases[1], path);
	memset(bytes, 0, sizeof(bytes));
	memcpy(bytes, "SQLite format 3", 16);
	snprintf(path, sizeof(path), "%s/zeros.pop", work);
	write_all(path, bytes, sizeof(bytes));
	run_case(&cases[2], path);
	snprintf(path, sizeof(path), "%s/emptydir", work);
	assert_int_equal(mkdir(path, 0700), 0);
	run_case(&cases[3], path);
	snprintf(path, sizeof(path), "%s/no-such.pop", work);
	run_case(&cases[4], path);
	snprintf(path, sizeof(path), "%s/fifo.pop", work);
	assert_int_equal(mkfifo(path, 0600), 0);
	run_case(&cases[5], path);

	snprintf(path, sizeof(path), "%s/other.db", work);
	edit(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);"
	           "INSERT INTO notes (text) VALUES ('hello');");
	run_case(&cases[6], path);
	{
		char sql[200];

		snprintf(path, sizeof(path), "%s/trace.pvti", work);
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; CREATE TABLE x (y);",
		         TSF_PVTI_APPLICATION_ID);
		edit(path, sql);
		run_case(&cases[7], path);
	}
	edited_case(&cases[8], "PRAGMA user_version = 99");
	assert_non_null(strstr(tsr_last_error(), "99"));
	assert_non_null(strstr(tsr_last_error(), "version 1"));
	edited_case(&cases[9], "PRAGMA user_version = 0");
	assert_non_null(strstr(tsr_last_error(), "version 0"));
}

/* Truncated copies and damaged pages. */
static void test_damaged(void **state)
{
	static const bad_case trunc = {"truncated", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL};
	static const bad_case flip = {"page-type-smashed", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL};
	static const char *const tables[] = {"target", "tile_memory", "program", "string",
	                                     "compute_set", "run"};
	char path[800], name[80];
	size_t len, page;
	uint8_t *buf = read_all(fixture.profile_path, &len);
	const size_t lengths[] = {16, 100, 1024, 4096, len / 2, len - 1};

	(void)state;
	page = (size_t)tsi_test_sqlite_file_int(fixture.profile_path, "PRAGMA page_size");
	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		bad_case c = trunc;

		snprintf(name, sizeof(name), "truncated-to-%zu", lengths[i]);
		c.name = name;
		snprintf(path, sizeof(path), "%s/%s.pop", work, name);
		write_all(path, buf, lengths[i]);
		run_case(&c, path);
	}
	/* Truncated at a page boundary, and at half a page past it. */
	{
		bad_case c = trunc;

		c.name = "truncated-at-page-boundary";
		snprintf(path, sizeof(path), "%s/%s.pop", work, c.name);
		write_all(path, buf, (len / page / 2) * page);
		run_case(&c, path);
	}
	/* The page size in the header (bytes 16-17) made invalid. */
	{
		bad_case c = trunc;

		c.name = "header-page-size-3";
		copy_report(path, sizeof(path), c.name);
		poke(path, 16, 0, false);
		poke(path, 17, 3, false);
		run_case(&c, path);
	}
	/* The b-tree page type of each table read at open. */
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		bad_case c = flip;

		snprintf(name, sizeof(name), "page-type-smashed-%s", tables[i]);
		c.name = name;
		copy_report(path, sizeof(path), name);
		poke(path, root_page_offset(path, tables[i]), 0x6b, false);
		run_case(&c, path);
	}
	/* Random bit flips over every page but the first: any outcome but a
	 * crash is acceptable; the flips that break structure are CORRUPT. */
	{
		uint32_t seed = 777;

		for (int round = 0; round < 8; round++) {
			tsr_report *r = NULL;
			int rc;

			snprintf(path, sizeof(path), "%s/bitflips-%d.pop", work, round);
			for (int k = 0; k < 64; k++) {
				size_t off;

				seed = seed * 1103515245u + 12345u;
				off = page + (seed >> 4) % (len - page);
				buf[off] ^= (uint8_t)(1u << (seed % 8));
			}
			write_all(path, buf, len);
			rc = tsr_report_open(&r, path, NULL);
			assert_true(rc == TSR_OK || rc == TSR_ERR_CORRUPT || rc == TSR_ERR_NOT_REPORT ||
			            rc == TSR_ERR_SCHEMA_TOO_NEW || rc == TSR_ERR_SCHEMA_TOO_OLD);
			if (rc == TSR_OK)
				(void)tsr_fixture_query_all(r, 16, true);
			printf("  %-34s %-24s\n", path + strlen(work) + 1, tsr_error_name(rc));
			tsr_report_free(r);
		}
	}
	free(buf);
}

/* Reports whose values lie about the rest of the file. */
static void test_lies(void **state)
{
	static const struct {
		bad_case c;
		const char *sql;
	} cases[] = {
		{{"target-claims-more-tiles", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE target SET num_ipus = num_ipus * 2, num_tiles = num_tiles * 2, "
		 "total_memory = total_memory * 2"},
		{{"target-tiles-disagree", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE target SET num_tiles = num_tiles + 1"},
		/* Issue 18: a name past TSF_MAX_NAME_BYTES (a 1 MB name on every
		 * variable turned a 2.9 MB report into a 2.86 GB export). */
		{{"name-past-limit", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE string SET text = printf('%.16385c', 'x') WHERE id = "
		 "(SELECT MAX(id) FROM string)"},
		/* Issue 18: impossible targets. */
		{{"target-clock-zero", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE target SET clock_frequency = 0"},
		{{"target-replicas-past-any-system", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE target SET replication_factor = 100000"},
		{{"target-name-contradicts-version", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE target SET ipu_version = 'Mk1' WHERE name = 'ipu2'"},
		/* Issue 33: the replica count is in the target and the meta. */
		{{"replicas-contradict-meta", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "INSERT OR REPLACE INTO meta(key, value) "
		 "SELECT 'replication_factor', replication_factor + 1 FROM target"},
		{{"target-16M-tiles", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE target SET num_ipus = 65536, tiles_per_ipu = 256, num_tiles = 16777216, "
		 "bytes_per_ipu = bytes_per_tile * 256, total_memory = bytes_per_tile * 16777216"},
		{{"blob-run-past-end", TSR_OK, after_cycles_cs0, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE compute_set SET cycles_by_tile = X'0100E80705'"},
		{{"blob-run-past-end-sql", TSR_OK, after_sql_tile_sum, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE compute_set SET cycles_by_tile = X'0100E80705'"},
		{{"blob-wrong-version", TSR_OK, after_category_ipu0, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE memory_category SET by_tile = X'02000105'"},
		{{"blob-truncated-leb128", TSR_OK, after_variable_by_tile, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE variable SET bytes_by_tile = X'0180' WHERE id = (SELECT MAX(id) FROM variable)"},
		/* Issue 18: a per-tile blob that lies about its own total (INT64_MAX
		 * on one tile of a variable of a few bytes), or a total that lies
		 * about its blob. */
		{{"blob-int64-max-tile", TSR_OK, after_variable_by_tile, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE variable SET bytes_by_tile = X'010001FFFFFFFFFFFFFFFF7F' "
		 "WHERE id = (SELECT MAX(id) FROM variable)"},
		{{"blob-int64-max-tile-export", TSR_OK, after_export_graph, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE variable SET bytes_by_tile = X'010001FFFFFFFFFFFFFFFF7F' "
		 "WHERE id = (SELECT MAX(id) FROM variable)"},
		{{"variable-bytes-not-sum", TSR_OK, after_variable_by_tile, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE variable SET bytes = bytes + 1 WHERE id = (SELECT MAX(id) FROM variable)"},
		{{"cycles-sum-not-sum-export", TSR_OK, after_export_graph, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE compute_set SET cycles_sum = cycles_sum + 1 WHERE id = 0"},
		{{"exchange-bytes-not-sum-export", TSR_OK, after_export_graph, TSR_ERR_CORRUPT, 0,
		  false, NULL},
		 "UPDATE exchange SET bytes_received = bytes_received + 1 "
		 "WHERE rowid = (SELECT MIN(rowid) FROM exchange)"},
		{{"blob-is-text", TSR_OK, after_cycles_cs0, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE compute_set SET cycles_by_tile = 'abc' WHERE id = 0"},
		{{"child-past-programs", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE program_child SET child = (SELECT COUNT(*) FROM program) + 5 "
		 "WHERE (parent, position) IN (SELECT parent, position FROM program_child LIMIT 1)"},
		{{"program-self-loop", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE program_child SET child = parent WHERE (parent, position) IN "
		 "(SELECT parent, position FROM program_child LIMIT 1)"},
		{{"program-cycle", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "INSERT INTO program_child (parent, position, child) "
		 "SELECT c.child, (SELECT COUNT(*) FROM program_child WHERE parent = c.child), c.parent "
		 "FROM program_child c WHERE c.child IN (SELECT parent FROM program_child) LIMIT 1"},
		{{"children-out-of-order", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE program_child SET position = position + 7 WHERE (parent, position) IN "
		 "(SELECT parent, position FROM program_child ORDER BY position DESC LIMIT 1)"},
		{{"program-unknown-type", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE program SET type = 'Teleport' WHERE id = 0"},
		{{"program-compute-set-past", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE program SET compute_set = 99999 WHERE type = 'OnTileExecute'"},
		{{"program-exchange-past", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE program SET exchange = 99999 WHERE type = 'StreamCopy'"},
		{{"run-program-past", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE run SET program = 7 WHERE id = 0"},
		{{"string-ids-with-gap", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE string SET id = id + 1000 WHERE id = (SELECT MAX(id) FROM string)"},
		{{"name-past-strings", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE compute_set SET name = 1000000 WHERE id = 0"},
		{{"tile-total-is-text", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE tile_memory SET total = 'lots' WHERE tile = 0"},
		{{"tile-total-not-sum", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE tile_memory SET total = total + 1 WHERE tile = 0"},
		{{"tile-rows-missing", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "DELETE FROM tile_memory WHERE tile = 3"},
		{{"negative-state-bytes", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE vertex_type SET state_bytes = -1"},
		{{"oom-tile-past-target", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "INSERT INTO oom_tile (tile) VALUES (100000)"},
		{{"vertex-count-unknown-type", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "UPDATE compute_set_vertex_type SET vertex_type = vertex_type + 1000"},
		{{"table-missing", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL}, "DROP TABLE run"},
		/* Not a lie: a copy someone switched to WAL still reads (immutable). */
		{{"wal-mode-copy", TSR_OK, after_variables, TSR_OK, 0, false, NULL},
		 "PRAGMA journal_mode = WAL; UPDATE meta SET value = value WHERE key = 'created'"},
		{{"category-unknown", TSR_OK, after_category_ipu0, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE memory_category SET category = 'gold' WHERE category = 'stack'"},
		{{"liveness-interval-past-steps", TSR_OK, after_variables, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE variable SET live_to = 1000000 WHERE id = "
		 "(SELECT MIN(id) FROM variable WHERE live_from IS NOT NULL)"},
		{{"liveness-interval-reversed", TSR_OK, after_variables, TSR_ERR_CORRUPT, 0, false,
		  NULL},
		 "UPDATE variable SET live_from = live_to + 1 WHERE id = "
		 "(SELECT MIN(id) FROM variable WHERE live_from IS NOT NULL)"},
		{{"liveness-parent-forward", TSR_OK, after_liveness, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE liveness_step SET parent = 5 WHERE id = 1"},
		{{"liveness-step-program-past", TSR_OK, after_liveness, TSR_ERR_CORRUPT, 0, false, NULL},
		 "UPDATE liveness_step SET program = 99999 WHERE id = 0"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		edited_case(&cases[i].c, cases[i].sql);
}

/*
 * Issue 18: profile.pop and debug.cbor of two runs (a kill between the two
 * renames, a copy): the operations say the pair is not one report and
 * name the older file, whichever it is.
 */
static void test_mixed_pair(void **state)
{
	char dir[800], path[900], dbg[900], from[900];
	uint8_t *buf;
	size_t len;
	tsr_report *r = NULL;
	tsr_operation *ops = NULL;
	size_t n;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/mixed-pair", work);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/profile.pop", dir);
	snprintf(dbg, sizeof(dbg), "%s/debug.cbor", dir);
	buf = read_all(fixture.profile_path, &len);
	write_all(path, buf, len);
	free(buf);
	snprintf(from, sizeof(from), "%s/debug.cbor", fixture.report_dir);
	buf = read_all(from, &len);
	write_all(dbg, buf, len);
	free(buf);

	/* As written: one report. */
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(tsr_report_list_operations(&ops, &n, r, -1), TSR_OK);
	free(ops);
	tsr_report_free(r);

	/* profile.pop from a later run: debug.cbor is the stale one. */
	edit(path, "UPDATE meta SET value = 'ffffffffffffffffffffffffffffffff' WHERE key = "
	           "'report_id'; UPDATE meta SET value = value + 1000000000 WHERE key = "
	           "'created_unix_ns'");
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(tsr_report_list_operations(&ops, &n, r, -1), TSR_ERR_CORRUPT);
	assert_non_null(strstr(tsr_report_error(r), "are not one report"));
	assert_non_null(strstr(tsr_report_error(r), "debug.cbor' is the older, stale one"));
	tsr_report_free(r);

	/* profile.pop from an earlier run: it is the stale one. */
	edit(path, "UPDATE meta SET value = value - 2000000000 WHERE key = 'created_unix_ns'");
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(tsr_report_list_operations(&ops, &n, r, -1), TSR_ERR_CORRUPT);
	assert_non_null(strstr(tsr_report_error(r), "profile.pop' is the older, stale one"));
	tsr_report_free(r);
}

/*
 * Issue 18: 400 variables, every compute set and program naming one
 * 16,000-byte string: the graph-profile export would copy it each time
 * (6 MB of names from a small file). Under a 4 MiB cap the in-memory
 * export is refused before it is built, saying why, and the streamed one
 * is written; with the default cap both are made.
 */
static void test_amplified_names(void **state)
{
	char path[800];
	tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	tsr_report *r = NULL;
	void *out = NULL;
	size_t len;

	(void)state;
	copy_report(path, sizeof(path), "amplified-names");
	edit(path, "UPDATE string SET text = printf('%.16000c', 'x') WHERE id = "
	           "(SELECT name FROM variable ORDER BY id LIMIT 1); "
	           "CREATE TEMP TABLE base AS SELECT max(id) AS m, "
	           "(SELECT name FROM variable ORDER BY id LIMIT 1) AS n FROM variable; "
	           "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 400) "
	           "INSERT INTO variable (id, name, category, type, bytes, shape, tiles, "
	           "bytes_by_tile, always_live, live_from, live_to, debug_context) "
	           "SELECT base.m + k.i, base.n, v.category, v.type, v.bytes, v.shape, v.tiles, "
	           "v.bytes_by_tile, v.always_live, v.live_from, v.live_to, v.debug_context "
	           "FROM k, base, (SELECT * FROM variable ORDER BY id LIMIT 1) v; "
	           "UPDATE compute_set SET name = (SELECT n FROM base); "
	           "UPDATE program SET name = (SELECT n FROM base)");
	o.memory_cap = 4 << 20;
	assert_int_equal(tsr_report_open(&r, path, &o), TSR_OK);
	assert_int_equal(tsr_export_graph_profile(&out, &len, r, TSR_EXPORT_JSON), TSR_ERR_TOO_LARGE);
	assert_null(out);
	if (!strstr(tsr_report_error(r), "bytes of names"))
		fail_msg("not the names' check: %s", tsr_report_error(r));
	/* Streamed, the same document needs no more than the cap: it is
	 * written as it is made. */
	{
		FILE *f = tmpfile();

		assert_non_null(f);
		assert_int_equal(tsr_export_write_graph_profile(f, r, TSR_EXPORT_JSON), TSR_OK);
		assert_true(ftell(f) > 400 * 16000);
		fclose(f);
	}
	tsr_report_free(r);
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(tsr_export_graph_profile(&out, &len, r, TSR_EXPORT_JSON), TSR_OK);
	assert_true(len > 400 * 16000);
	free(out);
	tsr_report_free(r);
}

/* An index into an empty list says so instead of showing "[0, -1]". */
static void test_empty_range_message(void **state)
{
	char path[800];
	tsr_report *r = NULL;
	const tsr_variable *v;
	size_t n;

	(void)state;
	copy_report(path, sizeof(path), "no-liveness-steps");
	edit(path, "DELETE FROM liveness_step");
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(tsr_report_get_variables(&v, &n, r), TSR_ERR_CORRUPT);
	if (strstr(tsr_report_error(r), ", -1]"))
		fail_msg("the message shows an empty range: %s", tsr_report_error(r));
	assert_non_null(strstr(tsr_report_error(r), "but the report has none to refer to"));
	tsr_report_free(r);
}

/* The memory cap: at open, and on a lazily read table whose honest but
 * huge row count passes it. */
static void test_memory_cap(void **state)
{
	static const bad_case tiny = {"cap-64KiB-at-open", TSR_ERR_TOO_LARGE, NULL, 0, 64 << 10,
	                              false, NULL};
	static const bad_case huge = {"200k-liveness-steps-cap-2MiB", TSR_OK, after_liveness,
	                              TSR_ERR_TOO_LARGE, 2 << 20, false, NULL};
	static const bad_case ok = {"200k-liveness-steps-default-cap", TSR_OK, after_liveness,
	                            TSR_OK, 0, false, NULL};
	char path[800];

	(void)state;
	run_case(&tiny, fixture.profile_path);
	copy_report(path, sizeof(path), "huge-liveness");
	edit(path, "WITH RECURSIVE n(i) AS (SELECT (SELECT COUNT(*) FROM liveness_step) "
	           "UNION ALL SELECT i + 1 FROM n WHERE i < 200000) "
	           "INSERT INTO liveness_step (id, program, parent, depth, not_always_live_bytes) "
	           "SELECT i, 0, NULL, 0, i FROM n");
	run_case(&huge, path);
	run_case(&ok, path);

}

/* Views, triggers and generated columns that call functions: refused at
 * open (views and triggers the format does not define, too). */
static void test_hostile_sql(void **state)
{
	static const struct {
		bad_case c;
		const char *sql;
	} cases[] = {
		{{"view-replaces-step", TSR_ERR_CORRUPT, NULL, 0, 0, true,
		  "SELECT * FROM step"},
		 "DROP TABLE step; CREATE VIEW step AS SELECT p.*, spy() AS s FROM program_trace p;"
		 /* SQLite itself refuses load_extension in a view (direct-only);
		  * the plain connection cannot run this one either. */
		 "CREATE VIEW v_evil AS SELECT load_extension('/nonexistent/evil') AS e"},
		{{"views-call-functions", TSR_ERR_CORRUPT, NULL, 0, 0, true,
		  "SELECT * FROM v_variable"},
		 "DROP VIEW v_variable; CREATE VIEW v_variable AS SELECT v.*, spy() AS s FROM variable v;"
		 "CREATE VIEW v_cs AS SELECT tile_sum(cycles_by_tile), spy() FROM compute_set"},
		{{"triggers-call-functions", TSR_ERR_CORRUPT, NULL, 0, 0, true,
		  "UPDATE meta SET value = value WHERE key = 'lowered_vars'"},
		 "CREATE TRIGGER t_meta AFTER UPDATE ON meta BEGIN SELECT spy(); END;"
		 "CREATE TRIGGER t_var BEFORE DELETE ON variable BEGIN SELECT spy(); END;"
		 "CREATE TRIGGER t_ins AFTER INSERT ON string BEGIN SELECT spy(); END"},
		{{"generated-column-calls-function", TSR_ERR_CORRUPT, NULL, 0, 0, true,
		  "SELECT g FROM option"},
		 "ALTER TABLE option ADD COLUMN g INTEGER AS (spy()) VIRTUAL"},
		{{"virtual-table", TSR_ERR_CORRUPT, NULL, 0, 0, false, NULL},
		 "CREATE VIRTUAL TABLE notes USING fts4(body); INSERT INTO notes VALUES ('x')"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		edited_case(&cases[i].c, cases[i].sql);
}

/* The SQL functions over tile-runs blobs agree with the decoded arrays
 * and the plain total columns; what the reader did not plan is refused
 * on its connection even when asked for directly. */
static void test_connection(void **state)
{
	tsr_report *r = fixture.report;
	const tsr_compute_set *cs;
	uint64_t *tiles;
	sqlite3_stmt *st = NULL;
	size_t n, nt = r->target.num_tiles;
	static const char *const refused[] = {
		"SELECT load_extension('/nonexistent/evil')",
		"SELECT randomblob(16)",
		"SELECT sqlite_version()",
		"ATTACH DATABASE ':memory:' AS other",
		"PRAGMA writable_schema = 1",
		"PRAGMA journal_mode",
		"CREATE TEMP TABLE t (x)",
		"UPDATE meta SET value = 0 WHERE key = 'lowered_vars'",
		"SELECT * FROM v_step",
	};

	(void)state;
	tiles = calloc(nt, sizeof(*tiles));
	assert_non_null(tiles);
	assert_int_equal(tsr_report_get_compute_sets(&cs, &n, r), TSR_OK);
	assert_int_equal(tsr_prepare(r, &st, "SELECT id, tile_sum(cycles_by_tile), "
	                                     "tile_max(active_cycles_by_tile), "
	                                     "tile_value(cycles_by_tile, ?) "
	                                     "FROM compute_set ORDER BY id"),
	                 TSR_OK);
	for (uint32_t probe = 0; probe < nt; probe += 5) {
		size_t rows = 0;

		sqlite3_bind_int64(st, 1, probe);
		while (tsr_step_row(r, st) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);

			assert_true(id >= 0 && (size_t)id < n);
			assert_int_equal(sqlite3_column_int64(st, 1), cs[id].cycles_sum);
			assert_int_equal(sqlite3_column_int64(st, 2), cs[id].active_cycles);
			assert_int_equal(tsr_report_fill_compute_set_cycles_by_tile(tiles, nt, r, (size_t)id, false),
			                 TSR_OK);
			assert_int_equal(sqlite3_column_int64(st, 3), tiles[probe]);
			rows++;
		}
		assert_int_equal(rows, n);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(tiles);
	/* Past the tiles, and a NULL blob: zero. */
	assert_int_equal(tsr_prepare(r, &st, "SELECT tile_value(cycles_by_tile, 1000000), "
	                                     "tile_sum(NULL) FROM compute_set LIMIT 1"),
	                 TSR_OK);
	assert_int_equal(tsr_step_row(r, st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), 0);
	assert_int_equal(sqlite3_column_int64(st, 1), 0);
	sqlite3_finalize(st);

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int rc = run_sql(r, refused[i]);

		printf("  refused: %-54s %s\n", refused[i], tsr_error_name(rc));
		assert_int_not_equal(rc, TSR_OK);
	}
	/* The connection still works afterwards. */
	assert_int_equal(run_sql(r, "SELECT COUNT(*) FROM program"), TSR_OK);
}

static int setup(void **state)
{
	(void)state;
	tsr_fixture_setup(&fixture, TSR_FIXTURE_MATMUL);
	snprintf(work, sizeof(work), "%s/corpus", fixture.dir);
	if (mkdir(work, 0700) != 0)
		return -1;
	printf("  %-34s %-24s %-24s %10s\n", "case", "open", "then", "time");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tsr_fixture_teardown(&fixture);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_reports),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_lies),
		cmocka_unit_test(test_empty_range_message),
		cmocka_unit_test(test_mixed_pair),
		cmocka_unit_test(test_amplified_names),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_hostile_sql),
		cmocka_unit_test(test_connection),
		cmocka_unit_test(test_newer_words),
	};

	return cmocka_run_group_tests_name("bad files", tests, setup, teardown);
}
