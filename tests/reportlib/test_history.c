/*
 * The history store (tilescope/history.h): created and reopened; foreign,
 * newer and damaged files refused with one line each; runs and figures
 * added and read back as series, one metric or all; a run added once;
 * a bad add leaves nothing; merging; four processes adding runs, then
 * samples of one run, at once lose nothing; samples added to a run; a
 * trace's figures; a run compared with a report as tsr_compare compares;
 * SHA-256's known answers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "history-private.h"
#include "test-util.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

/* A path in a fresh directory (freed with the directory by cleanup). */
typedef struct fixture {
	char *dir;
	char path[4096], other[4096];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	f->dir = tsi_test_mkdtemp();
	snprintf(f->path, sizeof(f->path), "%s/history.db", f->dir);
	snprintf(f->other, sizeof(f->other), "%s/other.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	tsi_test_rmtree(f->dir);
	free(f);
	return 0;
}

/* A run of `commit` at `time` on `branch`. */
static tsr_history_run run_of(const char *commit, const char *branch, int64_t time,
                              const char *sha)
{
	return (tsr_history_run){.commit = commit, .branch = branch, .time = time, .host = "test",
	                         .report_path = "r/profile.pop", .report_sha256 = sha};
}

/* Adds a run with cycles.total = cycles and memory.total = bytes; its id. */
static int64_t add(tsr_history *h, const char *commit, const char *branch, int64_t time,
                   uint64_t cycles, uint64_t bytes)
{
	tsr_history_figure figs[] = {
		{.metric = "cycles.total", .unit = TSR_UNIT_CYCLES, .value = cycles},
		{.metric = "memory.total", .unit = TSR_UNIT_BYTES, .value = bytes},
	};
	tsr_history_run r = run_of(commit, branch, time, SHA_A);
	int64_t id = 0;
	bool added = false;

	assert_int_equal(tsr_history_add(&id, &added, h, &r, figs, 2), TSR_OK);
	assert_true(added);
	return id;
}

/* The message is one line, naming the file. */
static void assert_one_line(const char *msg, const char *path)
{
	assert_non_null(strstr(msg, path));
	assert_null(strchr(msg, '\n'));
}

static void test_sha256(void **state)
{
	fixture *f = *state;
	char hex[65], file[4200];
	FILE *fp;

	/* A million 'a's through the file reader (blocks of 64 KiB). */
	snprintf(file, sizeof(file), "%s/a", f->dir);
	fp = fopen(file, "wb");
	for (int i = 0; i < 1000000; i++)
		fputc('a', fp);
	fclose(fp);
	assert_int_equal(tsr_history_sha256_file(hex, file), 0);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_create_reopen(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	tsr_history_run *runs = NULL;
	unsigned char header[20];
	size_t n = 0;
	FILE *fp;

	/* Messages are "" until a failure, also for NULL (report.h). */
	assert_string_equal(tsr_history_error(NULL), "");
	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	assert_string_equal(tsr_history_error(h), "");
	add(h, "c1", "main", 100, 10, 20);
	tsr_history_free(h);
	/* WAL mode, kept in the file (header bytes 18 and 19 are 2). */
	fp = fopen(f->path, "rb");
	assert_int_equal(fread(header, 1, sizeof(header), fp), sizeof(header));
	fclose(fp);
	assert_int_equal(header[18], 2);
	assert_int_equal(header[19], 2);
	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, NULL, NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(runs[0].commit, "c1");
	assert_string_equal(runs[0].branch, "main");
	assert_null(runs[0].parent);
	assert_string_equal(runs[0].label, "");
	assert_string_equal(runs[0].host, "test");
	assert_string_equal(runs[0].report_sha256, SHA_A);
	assert_int_equal(runs[0].time, 100);
	free(runs);
	tsr_history_free(h);
}

/* Writes `sql` into a new SQLite file at `path`. */
static void make_sqlite(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* Opening `path` fails with `code`, one line naming the file that
 * contains `words`. */
static void assert_refused(const char *path, int code, const char *words)
{
	tsr_history *h = (tsr_history *)1;

	assert_int_equal(tsr_history_open(&h, path, 0), code);
	assert_null(h);
	assert_one_line(tsr_last_error(), path);
	assert_non_null(strstr(tsr_last_error(), words));
}

static void test_refused(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	char path[4200];
	FILE *fp;

	/* Missing, without TSR_HISTORY_CREATE: not made. */
	assert_refused(f->path, TSR_ERR_NOT_FOUND, "cannot open");
	assert_int_equal(access(f->path, F_OK), -1);
	/* Not SQLite. */
	snprintf(path, sizeof(path), "%s/text", f->dir);
	fp = fopen(path, "w");
	fputs("a text file, long enough to hold SQLite's header of one hundred bytes, "
	      "which it does not hold at all: this is not a database\n", fp);
	fclose(fp);
	assert_refused(path, TSR_ERR_NOT_SQLITE, "not an SQLite database");
	/* Another application's SQLite file, and a report. */
	snprintf(path, sizeof(path), "%s/other.sqlite", f->dir);
	make_sqlite(path, "CREATE TABLE t (x)");
	assert_refused(path, TSR_ERR_NOT_REPORT, "another application");
	snprintf(path, sizeof(path), "%s/profile.pop", f->dir);
	make_sqlite(path, "PRAGMA application_id = 1414746182; CREATE TABLE t (x)");
	assert_refused(path, TSR_ERR_NOT_REPORT, "profile.pop report");
	/* A store whose table was changed. */
	assert_int_equal(tsr_history_open(&h, f->other, TSR_HISTORY_CREATE), TSR_OK);
	tsr_history_free(h);
	make_sqlite(f->other, "ALTER TABLE run ADD COLUMN extra TEXT");
	assert_refused(f->other, TSR_ERR_NOT_REPORT, "table run is not as schema version 1 makes it");
	/* A newer store. */
	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	tsr_history_free(h);
	make_sqlite(f->path, "PRAGMA user_version = 7");
	assert_refused(f->path, TSR_ERR_SCHEMA_TOO_NEW, "version 7");
}

static void test_refused_corrupt(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	char junk[4096];
	FILE *fp;

	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	for (int i = 0; i < 50; i++) {
		char c[16];
		snprintf(c, sizeof(c), "c%d", i);
		add(h, c, "main", i, 1000 + i, 2000 + i);
	}
	tsr_history_free(h);
	/* Out of WAL mode, so that the pages are in the main file. */
	make_sqlite(f->path, "PRAGMA journal_mode = DELETE");
	/* Page 1 after its 100-byte header: the schema table's page. */
	memset(junk, 0xa5, sizeof(junk));
	fp = fopen(f->path, "r+b");
	fseek(fp, 100, SEEK_SET);
	fwrite(junk, 1, 1000, fp);
	fclose(fp);
	assert_refused(f->path, TSR_ERR_CORRUPT, "damaged");
}

static void test_add_series(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	tsr_history_point *p = NULL;
	tsr_history_run *runs = NULL;
	tsr_history_metric *m = NULL;
	tsr_history_figure *figs = NULL;
	size_t n = 0;
	int64_t id = 0;
	bool added = true;

	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	add(h, "1111aaaa", "main", 100, 500, 4000);
	add(h, "2222bbbb", "main", 200, 510, 4000);
	add(h, "3333cccc", "topic", 300, 490, 3900);
	add(h, "4444dddd", "main", 400, 520, 4100);
	/* Newest first; a branch; the last N. */
	assert_int_equal(tsr_history_list_series(&p, &n, h, "cycles.total", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 4);
	assert_int_equal(p[0].value, 520);
	assert_string_equal(p[0].run.commit, "4444dddd");
	assert_int_equal(p[1].value, 490);
	assert_int_equal(p[3].value, 500);
	free(p);
	assert_int_equal(tsr_history_list_series(&p, &n, h, "cycles.total", "main", NULL, 2), TSR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].value, 520);
	assert_int_equal(p[1].value, 510);
	assert_string_equal(p[1].run.branch, "main");
	free(p);
	assert_int_equal(tsr_history_list_series(&p, &n, h, "cycles.nope", NULL, NULL, 0),
	                 TSR_ERR_NOT_FOUND);
	/* Runs by commit prefix, by branch; metrics by glob; a run's figures. */
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, "2222", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(runs[0].commit, "2222bbbb");
	id = runs[0].id;
	free(runs);
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, NULL, "main", NULL, 1), TSR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(runs[0].commit, "4444dddd");
	free(runs);
	assert_int_equal(tsr_history_list_metrics(&m, &n, h, "memory.*"), TSR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].name, "memory.total");
	assert_int_equal(m[0].unit, TSR_UNIT_BYTES);
	free(m);
	assert_int_equal(tsr_history_list_figures(&figs, &n, h, id), TSR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(figs[0].metric, "cycles.total");
	assert_int_equal(figs[0].value, 510);
	assert_int_equal(figs[1].value, 4000);
	free(figs);
	/* The same run again is not added. */
	{
		tsr_history_run r = run_of("2222bbbb", "main", 999, SHA_A);
		tsr_history_figure one = {.metric = "cycles.total", .unit = TSR_UNIT_CYCLES, .value = 1};
		assert_int_equal(tsr_history_add(&id, &added, h, &r, &one, 1), TSR_OK);
		assert_false(added);
		assert_int_equal(id, 2);
	}
	tsr_history_free(h);
}

/* What test_query_series's callback compares: each metric's points
 * against tsr_history_list_series of the same metric and filters. */
typedef struct walk_check {
	tsr_history *h;
	const char *branch, *label;
	size_t metrics, points;
} walk_check;

static int check_series(void *ctx, const tsr_history_metric *m, const tsr_history_point *p,
                        size_t n)
{
	walk_check *w = ctx;
	tsr_history_point *q = NULL;
	size_t nq = 0;

	assert_int_equal(tsr_history_list_series(&q, &nq, w->h, m->name, w->branch, w->label, 0),
	                 TSR_OK);
	assert_int_equal(n, nq);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].run.id, q[i].run.id);
		assert_int_equal(p[i].run.time, q[i].run.time);
		assert_string_equal(p[i].run.commit, q[i].run.commit);
		assert_string_equal(p[i].run.label, q[i].run.label);
		assert_string_equal(p[i].run.report_sha256, q[i].run.report_sha256);
		assert_int_equal(p[i].sample, q[i].sample);
		assert_int_equal(p[i].value, q[i].value);
	}
	free(q);
	w->metrics++;
	w->points += n;
	return m->noisy ? TSR_ERR_INVALID_ARGUMENT : TSR_OK;
}

/* tsr_history_query_series gives each metric's series as
 * tsr_history_list_series does, for every branch and label filter: runs
 * added out of time order, a time shared by two runs, a noisy metric's
 * samples, a metric missing from some runs, two labels. */
static void test_query_series(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	const char *branches[] = {NULL, "main", "topic", "none"};
	const char *labels[] = {NULL, "", "big", "none"};

	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	for (int i = 0; i < 12; i++) {
		char commit[16];
		tsr_history_run r = run_of(commit, i % 3 ? "main" : "topic", (i * 7) % 5, SHA_A);
		tsr_history_figure figs[] = {
			{.metric = "cycles.total", .unit = TSR_UNIT_CYCLES, .value = 100 + (uint64_t)i},
			{.metric = "time.compile", .unit = TSR_UNIT_CYCLES, .noisy = true, .value = 7},
			{.metric = "time.compile", .unit = TSR_UNIT_CYCLES, .noisy = true, .sample = 1,
			 .value = 9 + (uint64_t)i},
			{.metric = "memory.total", .unit = TSR_UNIT_BYTES, .value = 4000},
		};

		snprintf(commit, sizeof(commit), "c%02d", i);
		r.label = i % 4 ? "" : "big";
		assert_int_equal(tsr_history_add(NULL, NULL, h, &r, figs, i % 2 ? 4 : 3), TSR_OK);
	}
	for (size_t b = 0; b < 4; b++)
		for (size_t l = 0; l < 4; l++) {
			walk_check w = {h, branches[b], labels[l], 0, 0};

			/* The noisy metric, last by name, stops the walk with its error. */
			assert_int_equal(tsr_history_query_series(h, NULL, w.branch, w.label,
			                                            check_series, &w),
			                 TSR_ERR_INVALID_ARGUMENT);
			assert_int_equal(w.metrics, 3);
			if (!w.branch && !w.label)
				assert_int_equal(w.points, 12 + 6 + 24);
		}
	{
		walk_check w = {h, NULL, NULL, 0, 0};

		assert_int_equal(tsr_history_query_series(h, "memory.*", NULL, NULL, check_series, &w),
		                 TSR_OK);
		assert_int_equal(w.metrics, 1);
		assert_int_equal(w.points, 6);
	}
	assert_int_equal(tsr_history_query_series(h, NULL, NULL, NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	tsr_history_free(h);
}

/* An add that fails half-way writes nothing. */
static void test_add_all_or_nothing(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	tsr_history_run *runs = NULL;
	tsr_history_metric *m = NULL;
	tsr_history_run r = run_of("c2", "main", 10, SHA_B);
	/* The second figure's unit contradicts the store's. */
	tsr_history_figure wrong_unit[] = {
		{.metric = "cycles.new_one", .unit = TSR_UNIT_CYCLES, .value = 5},
		{.metric = "cycles.total", .unit = TSR_UNIT_BYTES, .value = 5},
	};
	/* One metric twice. */
	tsr_history_figure twice[] = {
		{.metric = "memory.total", .unit = TSR_UNIT_BYTES, .value = 5},
		{.metric = "memory.total", .unit = TSR_UNIT_BYTES, .value = 6},
	};
	size_t n = 0;

	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	add(h, "c1", "main", 1, 100, 200);
	assert_int_equal(tsr_history_add(NULL, NULL, h, &r, wrong_unit, 2), TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_history_error(h), "cycles.total"));
	assert_int_equal(tsr_history_add(NULL, NULL, h, &r, twice, 2), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, NULL, NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 1);
	free(runs);
	assert_int_equal(tsr_history_list_metrics(&m, &n, h, NULL), TSR_OK);
	assert_int_equal(n, 2); /* not cycles.new_one */
	free(m);
	tsr_history_free(h);
}

static void test_merge(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL, *o = NULL;
	tsr_history_point *p = NULL;
	size_t n = 0, added = 0;
	tsr_history_figure noisy = {.metric = "time.compile_ns", .unit = TSR_UNIT_COUNT,
	                            .noisy = true, .value = 77};
	tsr_history_run r = run_of("o3", "main", 30, SHA_B);

	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	assert_int_equal(tsr_history_open(&o, f->other, TSR_HISTORY_CREATE), TSR_OK);
	add(h, "c1", "main", 10, 100, 1000);
	add(o, "c1", "main", 10, 100, 1000); /* the same run in both */
	add(o, "o2", "main", 20, 200, 2000);
	assert_int_equal(tsr_history_add(NULL, NULL, o, &r, &noisy, 1), TSR_OK);
	tsr_history_free(o);
	assert_int_equal(tsr_history_merge(&added, h, f->other), TSR_OK);
	assert_int_equal(added, 2);
	assert_int_equal(tsr_history_list_series(&p, &n, h, "cycles.total", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].value, 200);
	assert_string_equal(p[0].run.commit, "o2");
	assert_int_equal(p[1].value, 100);
	free(p);
	assert_int_equal(tsr_history_list_series(&p, &n, h, "time.compile_ns", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].value, 77);
	free(p);
	/* Again: nothing new. A missing store is an error, and not created. */
	assert_int_equal(tsr_history_merge(&added, h, f->other), TSR_OK);
	assert_int_equal(added, 0);
	assert_int_equal(tsr_history_merge(&added, h, "/nonexistent/store.db"), TSR_ERR_NOT_FOUND);
	assert_one_line(tsr_history_error(h), "/nonexistent/store.db");
	tsr_history_free(h);
}

#define WRITERS 4
#define RUNS_EACH 50
#define FIGURES 20

/* Four processes add 50 runs each to one store at once: all 200 runs and
 * their figures are there. */
static void test_concurrent_adds(void **state)
{
	fixture *f = *state;
	pid_t pids[WRITERS];
	tsr_history *h = NULL;
	tsr_history_run *runs = NULL;
	tsr_history_point *p = NULL;
	size_t n = 0;

	/* The store does not exist yet: the writers' first opens race to
	 * create it too. */
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			tsr_history_figure figs[FIGURES];
			char names[FIGURES][32];
			int bad = 0;

			if (tsr_history_open(&h, f->path, TSR_HISTORY_CREATE) != TSR_OK)
				_exit(10);
			for (int k = 0; k < FIGURES; k++) {
				snprintf(names[k], sizeof(names[k]), "cycles.vertex_type.V%d", k);
				figs[k] = (tsr_history_figure){.metric = names[k], .unit = TSR_UNIT_CYCLES};
			}
			for (int i = 0; i < RUNS_EACH && !bad; i++) {
				char commit[32];
				tsr_history_run r = run_of(commit, "main", w * 1000 + i, SHA_A);
				bool added = false;

				snprintf(commit, sizeof(commit), "w%d-%d", w, i);
				for (int k = 0; k < FIGURES; k++)
					figs[k].value = (uint64_t)(w * 1000 + i);
				bad = tsr_history_add(NULL, &added, h, &r, figs, FIGURES) != TSR_OK || !added;
				if (bad)
					fprintf(stderr, "writer %d: %s\n", w, tsr_history_error(h));
			}
			tsr_history_free(h);
			_exit(bad ? 11 : 0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status = 0;
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	/* Then all four add samples of a noisy figure to one run at once. */
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			tsr_history_figure fig = {.metric = "trace.wall_ns", .unit = TSR_UNIT_NS,
			                          .noisy = true};
			tsr_history_run r = {.commit = "w0-0"};
			int bad = tsr_history_open(&h, f->path, 0) != TSR_OK;

			for (int i = 0; i < RUNS_EACH && !bad; i++) {
				fig.value = (uint64_t)(w * 1000 + i);
				bad = tsr_history_add_sample(NULL, NULL, h, &r, &fig, 1) != TSR_OK;
				if (bad)
					fprintf(stderr, "writer %d: %s\n", w, tsr_history_error(h));
			}
			tsr_history_free(h);
			_exit(bad ? 11 : 0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int status = 0;
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, NULL, NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, WRITERS * RUNS_EACH);
	free(runs);
	for (int k = 0; k < FIGURES; k += FIGURES - 1) {
		char name[32];
		uint64_t sum = 0;

		snprintf(name, sizeof(name), "cycles.vertex_type.V%d", k);
		assert_int_equal(tsr_history_list_series(&p, &n, h, name, NULL, NULL, 0), TSR_OK);
		assert_int_equal(n, WRITERS * RUNS_EACH);
		for (size_t i = 0; i < n; i++) {
			sum += p[i].value;
			/* Each run's value is its time, as its writer wrote it. */
			assert_int_equal(p[i].value, (uint64_t)p[i].run.time);
		}
		/* sum over w, i of w * 1000 + i */
		assert_int_equal(sum, (uint64_t)RUNS_EACH * 1000 * (0 + 1 + 2 + 3) +
		                          (uint64_t)WRITERS * (RUNS_EACH * (RUNS_EACH - 1) / 2));
		free(p);
	}
	/* Every sample, numbered 0 .. 199 once each, each writer's in order. */
	assert_int_equal(tsr_history_list_series(&p, &n, h, "trace.wall_ns", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, WRITERS * RUNS_EACH);
	{
		int last[WRITERS] = {-1, -1, -1, -1};

		for (size_t i = 0; i < n; i++) {
			int w = (int)(p[i].value / 1000), k = (int)(p[i].value % 1000);

			assert_int_equal(p[i].sample, i);
			assert_string_equal(p[i].run.commit, "w0-0");
			assert_true(w < WRITERS && k == last[w] + 1);
			last[w] = k;
		}
	}
	free(p);
	tsr_history_free(h);
}

/* Samples added to a run: the noisy figures numbered on, the exact ones
 * checked against the run's; a contradicting or runless add writes
 * nothing. */
static void test_add_sample(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	tsr_history_point *p = NULL;
	tsr_history_run one = {.commit = "c1"}, labelled = {.commit = "c1", .label = "big"};
	tsr_history_figure figs[] = {
		{.metric = "cycles.total", .unit = TSR_UNIT_CYCLES, .value = 10},
		{.metric = "trace.wall_ns", .unit = TSR_UNIT_NS, .noisy = true, .value = 500},
		{.metric = "trace.label.x.count", .unit = TSR_UNIT_COUNT, .noisy = true, .value = 3},
	};
	size_t n = 0;
	int64_t id = 0, first;
	uint32_t sample = 9;

	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	/* No run of c1 yet. */
	assert_int_equal(tsr_history_add_sample(&id, &sample, h, &one, figs, 2), TSR_ERR_NOT_FOUND);
	assert_one_line(tsr_history_error(h), "no run of commit c1 without a label");
	first = add(h, "c1", "main", 100, 10, 20);
	{
		/* An older run of c1, and a newer one of another label. */
		tsr_history_run r = run_of("c1", "main", 50, SHA_B);
		assert_int_equal(tsr_history_add(NULL, NULL, h, &r, figs, 1), TSR_OK);
		r.time = 200;
		r.label = "big";
		figs[0].value = 11;
		assert_int_equal(tsr_history_add(NULL, NULL, h, &r, figs, 1), TSR_OK);
		figs[0].value = 10;
	}
	/* The newest run without a label gets them: wall_ns as sample 0. */
	assert_int_equal(tsr_history_add_sample(&id, &sample, h, &one, figs, 2), TSR_OK);
	assert_int_equal(id, first);
	assert_int_equal(sample, 0);
	figs[1].value = 520;
	assert_int_equal(tsr_history_add_sample(&id, &sample, h, &one, figs, 3), TSR_OK);
	assert_int_equal(sample, 1); /* wall_ns's 1, the new count's 0 */
	assert_int_equal(tsr_history_list_series(&p, &n, h, "trace.wall_ns", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].value, 500);
	assert_int_equal(p[1].sample, 1);
	assert_int_equal(p[1].value, 520);
	free(p);
	assert_int_equal(tsr_history_list_series(&p, &n, h, "trace.label.x.count", NULL, NULL, 0),
	                 TSR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].sample, 0);
	free(p);
	/* An exact figure of another value: refused, the noisy one not added. */
	figs[0].value = 11;
	assert_int_equal(tsr_history_add_sample(&id, &sample, h, &one, figs, 2),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_one_line(tsr_history_error(h), "simulated figure cannot differ");
	assert_int_equal(tsr_history_list_series(&p, &n, h, "trace.wall_ns", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 2);
	free(p);
	/* The label's run is another: its cycles.total is 11. */
	assert_int_equal(tsr_history_add_sample(&id, &sample, h, &labelled, figs, 2), TSR_OK);
	assert_int_equal(sample, 0);
	assert_true(id != first);
	tsr_history_free(h);
}

/* A trace's figures: its label statistics by name, all noisy; added
 * alone, the run is known by the trace's hash; a check of a report
 * against a run with them compares the report's figures only. */
static void test_trace_figures(void **state)
{
	fixture *f = *state;
	const char *path = SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti";
	tsr_trace *t = NULL;
	tsr_report *r = NULL;
	tsr_history *h = NULL;
	tsr_history_figure *figs = NULL;
	tsr_trace_label_stat *stats = NULL;
	tsr_history_run *runs = NULL;
	tsr_comparison *cmp = NULL, *self = NULL;
	tsr_history_run info = {.commit = "c1", .time = 1};
	const tsr_trace_info *ti;
	size_t n = 0, n_stats = 0, labels = 0;
	int64_t id = 0;
	bool added = false;
	char sha[65];

	assert_int_equal(tsr_trace_open(&t, &path, 1, NULL), TSR_OK);
	assert_int_equal(tsr_history_list_trace_figures(&figs, &n, t), TSR_OK);
	assert_int_equal(tsr_trace_list_label_stats(&stats, &n_stats, t, NULL), TSR_OK);
	ti = tsr_trace_get_info(t);
	for (size_t i = 0; i < n; i++)
		assert_true(figs[i].noisy);
	assert_string_equal(figs[0].metric, "trace.wall_ns");
	assert_int_equal(figs[0].unit, TSR_UNIT_NS);
	assert_int_equal(figs[0].value, (uint64_t)(ti->end_ns - ti->start_ns));
	/* Each name's count and total are its spans' over every channel. */
	for (size_t i = 1; i < n; i += 2) {
		const char *name = figs[i].metric + strlen("trace.label.");
		size_t len = strlen(name) - strlen(".count");
		uint64_t count = 0, total = 0;

		assert_string_equal(name + len, ".count");
		assert_int_equal(figs[i].unit, TSR_UNIT_COUNT);
		assert_int_equal(figs[i + 1].unit, TSR_UNIT_NS);
		assert_int_equal(strncmp(figs[i + 1].metric, figs[i].metric, strlen("trace.label.") + len), 0);
		for (size_t k = 0; k < n_stats; k++) {
			const char *s = tsr_trace_get_name(t, stats[k].name);
			if (strlen(s) == len && !strncmp(s, name, len)) {
				count += stats[k].count;
				total += stats[k].total_ns;
				labels++;
			}
		}
		assert_true(count > 0);
		assert_int_equal(figs[i].value, count);
		assert_int_equal(figs[i + 1].value, total);
	}
	assert_int_equal(labels, n_stats);
	free(stats);
	free(figs);
	/* Added alone: the trace's path and hash name the run. */
	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	assert_int_equal(tsr_history_add_files(&id, &added, h, &info, NULL, t), TSR_OK);
	assert_true(added);
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, "c1", NULL, NULL, 0), TSR_OK);
	assert_int_equal(tsr_history_sha256_file(sha, path), 0);
	assert_string_equal(runs[0].report_sha256, sha);
	free(runs);
	/* With the report in one run: check compares the report's figures. */
	info.commit = "c2";
	assert_int_equal(tsr_report_open(&r, SAMPLE_REPORTS "/tut5_ml", NULL), TSR_OK);
	assert_int_equal(tsr_history_add_files(&id, &added, h, &info, r, t), TSR_OK);
	assert_int_equal(tsr_history_compare(&cmp, h, id, r), TSR_OK);
	assert_int_equal(tsr_compare_programs(&self, r, r, NULL), TSR_OK);
	assert_int_equal(tsr_comparison_get_count(cmp), tsr_comparison_get_count(self));
	assert_null(tsr_comparison_lookup_delta(cmp, "trace.wall_ns"));
	tsr_comparison_free(cmp);
	tsr_comparison_free(self);
	tsr_history_free(h);
	tsr_report_free(r);
	tsr_trace_free(t);
}

/* A report added, then compared with itself and with a changed run. */
static void test_compare_report(void **state)
{
	fixture *f = *state;
	tsr_history *h = NULL;
	tsr_report *r = NULL;
	tsr_comparison *cmp = NULL, *self = NULL;
	tsr_history_figure *figs = NULL;
	tsr_history_run *runs = NULL;
	const tsr_delta *d;
	size_t n = 0;
	int64_t id = 0;
	bool added = false;
	tsr_history_run info = {.commit = "c1", .branch = "main", .time = -1};
	char sha[65];

	assert_int_equal(tsr_report_open(&r, SAMPLE_REPORTS "/tut7_mk1", NULL), TSR_OK);
	assert_int_equal(tsr_history_open(&h, f->path, TSR_HISTORY_CREATE), TSR_OK);
	assert_int_equal(tsr_history_add_report(&id, &added, h, &info, r), TSR_OK);
	assert_true(added);
	/* Its hash and path are the profile.pop's. */
	assert_int_equal(tsr_history_list_runs(&runs, &n, h, "c1", NULL, NULL, 0), TSR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(tsr_history_sha256_file(sha, SAMPLE_REPORTS "/tut7_mk1/profile.pop"), 0);
	assert_string_equal(runs[0].report_sha256, sha);
	assert_non_null(strstr(runs[0].report_path, "profile.pop"));
	free(runs);
	/* Against the stored run: every metric of the diff, each the same. */
	assert_int_equal(tsr_history_compare(&cmp, h, id, r), TSR_OK);
	assert_int_equal(tsr_compare_programs(&self, r, r, NULL), TSR_OK);
	assert_int_equal(tsr_comparison_get_count(cmp), tsr_comparison_get_count(self));
	for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++) {
		const tsr_delta *a = tsr_comparison_get_delta(cmp, i);
		const tsr_delta *b = tsr_comparison_get_delta(self, i);

		assert_string_equal(a->metric, b->metric);
		assert_int_equal(a->unit, b->unit);
		assert_int_equal(a->base, b->base);
		assert_int_equal(a->verdict, TSR_VERDICT_SAME);
	}
	tsr_comparison_free(cmp);
	/* A run whose cycles were lower, and which lacked one metric. */
	assert_int_equal(tsr_history_list_figures(&figs, &n, h, id), TSR_OK);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(figs[i].metric, "cycles.total"))
			figs[i].value -= 100;
	{
		tsr_history_run older = {.commit = "c0", .time = 1, .report_path = "x",
		                         .report_sha256 = SHA_A};
		assert_int_equal(tsr_history_add(&id, NULL, h, &older, figs + 1, n - 1), TSR_OK);
	}
	assert_int_equal(tsr_history_compare(&cmp, h, id, r), TSR_OK);
	d = tsr_comparison_lookup_delta(cmp, "cycles.total");
	assert_non_null(d);
	assert_int_equal(d->change, 100);
	assert_int_equal(d->verdict, TSR_VERDICT_WORSE);
	d = tsr_comparison_lookup_delta(cmp, figs[0].metric);
	assert_false(d->in_base);
	assert_true(d->in_new);
	free(figs);
	tsr_comparison_free(cmp);
	tsr_comparison_free(self);
	tsr_history_free(h);
	tsr_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sha256, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_corrupt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_series, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_all_or_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_adds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_add_sample, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_figures, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
