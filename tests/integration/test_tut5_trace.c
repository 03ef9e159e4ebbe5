/*
 * System tracing end to end: tut5_ml run as a user runs it, with
 * PVTI_OPTIONS='{"enable":"true","directory":"./trace"}', must leave one
 * .pvti file whose events nest (every event lies inside its parent, one
 * level deeper), whose compile phases lie inside the compile span, whose
 * runs lie inside the Framework channel's epoch span, and whose loss graph
 * has one sample per training batch.
 *
 * usage: test_tut5_trace TUT5_ML_EXECUTABLE
 * White-box: reads the event chunks with the format library's decoder.
 */
#include "test-sqlite.h"
#include "test-util.h"

#include "event-chunk.h" /* db-schema/ */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

static const char *tut5_exe;

/* One decoded event with its name and channel as text. */
typedef struct event {
	tsf_event ev;
	int64_t thread;
	char name[96];
	char channel[32];
} event;

typedef struct trace {
	event *events;
	size_t n, cap;
} trace;

/* The text of string `id` (and of channel `id`) in `db`, into buf. */
static void lookup_text(sqlite3 *db, const char *sql, int64_t id, char *buf, size_t size)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* Decodes every event chunk of the trace. */
static void read_events(sqlite3 *db, trace *t)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, "SELECT thread, count, data FROM event_chunk "
	                                        "ORDER BY id",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		tsf_chunk_dec dec;
		tsf_event ev;
		int64_t thread = sqlite3_column_int64(st, 0);
		long long count = sqlite3_column_int64(st, 1), got = 0;
		int r;

		assert_int_equal(tsf_chunk_dec_init(&dec, sqlite3_column_blob(st, 2),
		                                     (size_t)sqlite3_column_bytes(st, 2)),
		                 TSI_OK);
		while ((r = tsf_chunk_dec_next(&dec, &ev)) == 1) {
			if (t->n == t->cap) {
				t->cap = t->cap ? t->cap * 2 : 256;
				t->events = realloc(t->events, t->cap * sizeof(*t->events));
				assert_non_null(t->events);
			}
			t->events[t->n].ev = ev;
			t->events[t->n].thread = thread;
			t->n++;
			got++;
		}
		assert_int_equal(r, 0);
		assert_int_equal(got, count);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < t->n; i++) {
		lookup_text(db, "SELECT value FROM string WHERE id = ?", t->events[i].ev.name,
		            t->events[i].name, sizeof(t->events[i].name));
		lookup_text(db, "SELECT name FROM channel WHERE id = ?", t->events[i].ev.channel,
		            t->events[i].channel, sizeof(t->events[i].channel));
	}
}

/* The event of `thread` with sequence number `seq`, or NULL. */
static const event *find_seq(const trace *t, int64_t thread, int64_t seq)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->events[i].thread == thread && (int64_t)t->events[i].ev.seq == seq)
			return &t->events[i];
	return NULL;
}

/* The first event whose name starts with `prefix`, or NULL. */
static const event *find_name(const trace *t, const char *prefix)
{
	for (size_t i = 0; i < t->n; i++)
		if (strncmp(t->events[i].name, prefix, strlen(prefix)) == 0)
			return &t->events[i];
	return NULL;
}

/* True when `inner` is a descendant of `outer` (through parents). */
static bool descends_from(const trace *t, const event *inner, const event *outer)
{
	const event *e = inner;

	while (e && e->ev.parent >= 0) {
		e = find_seq(t, e->thread, e->ev.parent);
		if (e == outer)
			return true;
	}
	return false;
}

static void test_tut5_trace(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char cmd[4096], line[256], *path;
	long long batches = -1;
	FILE *out;
	sqlite3 *db = NULL;
	trace t = {0};
	const event *compile, *epoch, *run;
	static const char *phases[] = {"Graph checks", "Compiler model: lowering and exchange planning",
	                               "Compiler model: cycle estimation",
	                               "Compiler model: liveness", "Compiler model: memory layout"};

	(void)state;
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && PVTI_OPTIONS='{\"enable\":\"true\",\"directory\":\"./trace\"}' '%s' "
	         "--synthetic --epochs 1 > out.txt 2> err.txt",
	         dir, tut5_exe);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/out.txt", dir);
	out = fopen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out)) {
		const char *in = strstr(line, " in ");

		if (in && strstr(line, " batches of "))
			batches = strtoll(in + 4, NULL, 10);
	}
	fclose(out);
	assert_true(batches > 1);

	snprintf(cmd, sizeof(cmd), "%s/trace", dir);
	path = tsi_test_only_file(cmd, ".pvti");
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	read_events(db, &t);
	assert_true(t.n > 10);

	/* Every event nests inside its parent, one level deeper. */
	for (size_t i = 0; i < t.n; i++) {
		const event *e = &t.events[i];
		const event *p;

		if (e->ev.parent < 0) {
			assert_int_equal(e->ev.depth, 0);
			continue;
		}
		p = find_seq(&t, e->thread, e->ev.parent);
		if (!p)
			fail_msg("'%s' names a parent that is not in the file", e->name);
		assert_int_equal(e->ev.depth, p->ev.depth + 1);
		if (e->ev.start_ns < p->ev.start_ns || e->ev.end_ns > p->ev.end_ns)
			fail_msg("'%s' [%lld, %lld] is not inside its parent '%s' [%lld, %lld]", e->name,
			         (long long)e->ev.start_ns, (long long)e->ev.end_ns, p->name,
			         (long long)p->ev.start_ns, (long long)p->ev.end_ns);
	}

	/* The compile phases lie inside the compile span. */
	compile = find_name(&t, "Compiling ");
	assert_non_null(compile);
	assert_string_equal(compile->channel, "Poplar");
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
		const event *ph = find_name(&t, phases[i]);

		if (!ph)
			fail_msg("no '%s' span", phases[i]);
		assert_true(descends_from(&t, ph, compile));
	}
	assert_non_null(find_name(&t, "Graph construction"));
	assert_non_null(find_name(&t, "Loading engine"));

	/* The training run lies inside the Framework channel's epoch span. */
	epoch = find_name(&t, "Epoch 1");
	assert_non_null(epoch);
	assert_string_equal(epoch->channel, "Framework");
	run = find_name(&t, "Run program 1");
	assert_non_null(run);
	assert_true(descends_from(&t, run, epoch));

	/* One loss sample and one batch marker per training batch. */
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM sample s JOIN series r ON r.id = "
	                               "s.series JOIN graph g ON g.id = r.graph WHERE g.name = "
	                               "'Loss' AND r.name = 'train'"),
	                 batches);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM instant i JOIN string s ON s.id = "
	                               "i.name WHERE s.value = 'batch'"),
	                 batches);
	print_message("tut5 trace: %zu events, %lld loss samples\n", t.n, batches);

	sqlite3_close(db);
	free(t.events);
	free(path);
	tsi_test_rmtree(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tut5_trace),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_tut5_trace TUT5_ML_EXECUTABLE\n");
		return 2;
	}
	/* The test runs it from a temporary directory. */
	tut5_exe = realpath(argv[1], NULL);
	if (!tut5_exe) {
		fprintf(stderr, "test_tut5_trace: %s: not found\n", argv[1]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
