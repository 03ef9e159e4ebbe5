/*
 * The call tree of a trace (trace.h, tsr_trace_call_tree_new).
 *
 * Hand-worked: a file whose spans are written here with known times (a
 * trace made by the pvti API, its chunks replaced by hand-encoded ones
 * and its summaries removed), so every node's count, inclusive and
 * exclusive time is worked out below from the picture:
 *
 *   thread 1  0   10 15 25  40  50  70  75  95 100   200 210 230 260   300 310 320 330 390 400
 *             [A0 ─────────────────────────────────]  [B5 ──────────]  [A7 ─────────────────────]
 *                 [B1 ─────────]  [C3 ─]  [B4 ─]          [C6 ─]           [A8 ──────────────]
 *                    [C2 ─]                                                     [B9 ─]
 *   thread 2  [A0 ─── 0 to 50 ───]
 *
 * (Letters are names, digits seqs.) The chunks of thread 1 are split so
 * that a parent lies in a later chunk than its children.
 *
 * Against the statistics: on a trace made by the pvti API (two threads,
 * three depths, a user channel), for several windows and threads, the
 * nodes of each label add up to tsr_trace_list_label_stats' count, total
 * and self, and the tree is well formed (children together and sorted,
 * depths and parents consistent, a parent's inclusive time at least its
 * children's).
 */
#include "test-util.h"

#include "event-chunk.h" /* db-schema/: the chunk encoder */

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state)
{
	*state = tsi_test_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	pvti_close();
	tsi_test_rmtree(*state);
	return 0;
}

/* --- The hand-made file -------------------------------------------------------- */

static int64_t query_id(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t id;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return id;
}

/* Writes events ev[0..n) (in end order) as one chunk of thread `thread`. */
static void insert_chunk(sqlite3 *db, int64_t thread, const tsf_event *ev, size_t n)
{
	tsf_chunk_enc enc;
	sqlite3_stmt *st = NULL;

	memset(&enc, 0, sizeof(enc));
	tsf_chunk_enc_reset(&enc);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tsf_chunk_enc_add(&enc, &ev[i]), 0);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "INSERT INTO event_chunk(thread, first_ns, last_ns, count, "
	                                    "data) VALUES (?, ?, ?, ?, ?)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_int64(st, 1, thread);
	sqlite3_bind_int64(st, 2, enc.first_ns);
	sqlite3_bind_int64(st, 3, enc.last_ns);
	sqlite3_bind_int64(st, 4, enc.count);
	sqlite3_bind_blob(st, 5, enc.data, (int)enc.len, SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	tsf_chunk_enc_clear(&enc);
}

/* The file of the picture above; returns its path. */
static char *make_hand_trace(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	sqlite3 *db = NULL;
	char *path, *err = NULL;
	uint32_t a, b, c, ch;
	int64_t t1, t2;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	assert_non_null(path);
	pvti_begin(fw, "A");
	pvti_end(fw);
	pvti_begin(fw, "B");
	pvti_end(fw);
	pvti_begin(fw, "C");
	pvti_end(fw);
	assert_int_equal(pvti_close(), 0);

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db,
	                 "DELETE FROM event_chunk; DELETE FROM label_stats; DELETE FROM timeline_lod; "
	                 "DELETE FROM trace_metadata WHERE key = 'pvti.complete'; "
	                 "UPDATE thread SET events = NULL; "
	                 "INSERT INTO thread(id, tid, name) VALUES ((SELECT max(id) FROM thread) + 1, "
	                 "99999, 'second')",
	                 NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s", err);
	a = (uint32_t)query_id(db, "SELECT id FROM string WHERE value = 'A'");
	b = (uint32_t)query_id(db, "SELECT id FROM string WHERE value = 'B'");
	c = (uint32_t)query_id(db, "SELECT id FROM string WHERE value = 'C'");
	ch = (uint32_t)query_id(db, "SELECT id FROM channel WHERE name = 'Framework'");
	t1 = query_id(db, "SELECT min(id) FROM thread");
	t2 = query_id(db, "SELECT max(id) FROM thread");
	{
		/* start, end, seq, parent, name, channel, depth; in end order. */
		const tsf_event c1[] = {
			{15, 25, 2, 1, c, ch, 2}, {10, 40, 1, 0, b, ch, 1}, {50, 70, 3, 0, c, ch, 1},
		};
		const tsf_event c2[] = {
			{75, 95, 4, 0, b, ch, 1}, {0, 100, 0, -1, a, ch, 0}, {210, 230, 6, 5, c, ch, 1},
			{200, 260, 5, -1, b, ch, 0},
		};
		const tsf_event c3[] = {
			{320, 330, 9, 8, b, ch, 2}, {310, 390, 8, 7, a, ch, 1}, {300, 400, 7, -1, a, ch, 0},
		};
		const tsf_event other[] = {{0, 50, 0, -1, a, ch, 0}};

		insert_chunk(db, t1, c1, 3);
		insert_chunk(db, t1, c2, 4);
		insert_chunk(db, t1, c3, 3);
		insert_chunk(db, t2, other, 1);
	}
	sqlite3_close(db);
	return path;
}

/* What a node should be: its path ("A/B/C"), count, inclusive, exclusive. */
typedef struct want_node {
	const char *path;
	uint64_t count, incl, excl;
} want_node;

/* Node i's path, names joined by '/'. */
static void path_of(char *buf, size_t size, tsr_trace *tr, const tsr_trace_call_tree *t, size_t i)
{
	const char *names[64];
	size_t n = 0;

	for (size_t k = i; k != TSR_TRACE_NO_NODE && n < 64; k = t->nodes[k].parent)
		names[n++] = tsr_trace_get_name(tr, t->nodes[k].name);
	buf[0] = '\0';
	while (n-- > 0) {
		strncat(buf, names[n], size - strlen(buf) - 1);
		if (n)
			strncat(buf, "/", size - strlen(buf) - 1);
	}
}

/* The tree holds exactly want[0..n), in that (breadth-first) order. */
static void expect_tree(tsr_trace *tr, const tsr_trace_call_tree *t, const want_node *want,
                        size_t n, size_t roots)
{
	char path[256];
	uint64_t spans = 0;

	assert_int_equal(t->n_nodes, n);
	assert_int_equal(t->n_roots, roots);
	for (size_t i = 0; i < n; i++) {
		path_of(path, sizeof(path), tr, t, i);
		if (strcmp(path, want[i].path) != 0)
			fail_msg("node %zu is %s, not %s", i, path, want[i].path);
		assert_int_equal(t->nodes[i].count, want[i].count);
		assert_int_equal(t->nodes[i].inclusive_ns, want[i].incl);
		assert_int_equal(t->nodes[i].exclusive_ns, want[i].excl);
		spans += want[i].count;
	}
	assert_int_equal(t->spans, spans);
}

static void test_hand_worked(void **state)
{
	char *path = make_hand_trace(*state);
	tsr_trace *tr = tsi_test_open_trace(path);
	tsr_trace_call_tree *t = NULL;
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;

	/* Thread 1, the whole trace: A (seq 0, 7) self 100-30-20-20 + 100-80. */
	{
		const want_node want[] = {
			{"A", 2, 200, 50},    {"B", 1, 60, 40},      {"A/A", 1, 80, 70},
			{"A/B", 2, 50, 40},   {"A/C", 1, 20, 20},    {"B/C", 1, 20, 20},
			{"A/A/B", 1, 10, 10}, {"A/B/C", 1, 10, 10},
		};

		o.thread = 0;
		assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
		expect_tree(tr, t, want, 8, 2);
		assert_int_equal(t->inclusive_ns, 260);
		/* Children together, after the roots, breadth first. */
		assert_int_equal(t->nodes[0].first_child, 2);
		assert_int_equal(t->nodes[0].n_children, 3);
		assert_int_equal(t->nodes[1].first_child, 5);
		assert_int_equal(t->nodes[2].first_child, 6);
		assert_int_equal(t->nodes[3].first_child, 7);
		assert_int_equal(t->nodes[7].parent, 3);
		assert_int_equal(t->nodes[7].depth, 2);
		tsr_trace_call_tree_free(t);
	}
	/* Both threads: thread 2's A [0, 50) joins the root A. */
	{
		const want_node want[] = {
			{"A", 3, 250, 100},   {"B", 1, 60, 40},      {"A/A", 1, 80, 70},
			{"A/B", 2, 50, 40},   {"A/C", 1, 20, 20},    {"B/C", 1, 20, 20},
			{"A/A/B", 1, 10, 10}, {"A/B/C", 1, 10, 10},
		};

		assert_int_equal(tsr_trace_call_tree_new(&t, tr, NULL), TSR_OK);
		expect_tree(tr, t, want, 8, 2);
		tsr_trace_call_tree_free(t);
	}
	/* Spans starting in [50, 300) of thread 1: C3 and B4 lose their
	 * parent A0 (it starts before the window) and become roots; B4 and
	 * B5 share the root B. */
	{
		const want_node want[] = {{"B", 2, 80, 60}, {"C", 1, 20, 20}, {"B/C", 1, 20, 20}};

		o.thread = 0;
		o.from_ns = 50;
		o.to_ns = 300;
		assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
		expect_tree(tr, t, want, 3, 2);
		tsr_trace_call_tree_free(t);
	}
	/* [0, 150): the outermost B5 at 200 ends the walk; B1's self is its
	 * 30 less C2's 10 even though nothing after the window is read. */
	{
		const want_node want[] = {{"A", 1, 100, 30}, {"A/B", 2, 50, 40}, {"A/C", 1, 20, 20},
		                          {"A/B/C", 1, 10, 10}};

		o.from_ns = 0;
		o.to_ns = 150;
		assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
		expect_tree(tr, t, want, 4, 1);
		tsr_trace_call_tree_free(t);
	}
	/* One span: A8 (seq 8) and what it holds, not its parent A7. */
	{
		const want_node want[] = {{"A", 1, 80, 70}, {"A/B", 1, 10, 10}};

		o.from_ns = 310;
		o.to_ns = 391;
		o.span = 8;
		assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
		expect_tree(tr, t, want, 2, 1);
		tsr_trace_call_tree_free(t);
		/* A window that holds its parent too: still only the span. */
		o.from_ns = 0;
		o.to_ns = INT64_MAX;
		assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
		expect_tree(tr, t, want, 2, 1);
		tsr_trace_call_tree_free(t);
	}
	/* Nothing in the window: an empty tree. */
	o = (tsr_trace_call_tree_options)TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	o.from_ns = 500;
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
	assert_int_equal(t->n_nodes, 0);
	assert_int_equal(t->spans, 0);
	tsr_trace_call_tree_free(t);
	/* Bad options. */
	o = (tsr_trace_call_tree_options)TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	o.thread = 2;
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_ERR_OUT_OF_RANGE);
	assert_null(t);
	assert_true(strlen(tsr_trace_error(tr)) > 0);
	o.thread = -1;
	o.span = 3;
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_ERR_INVALID_ARGUMENT);
	o.span = -1;
	o.from_ns = 10;
	o.to_ns = 5;
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_ERR_INVALID_ARGUMENT);
	o = (tsr_trace_call_tree_options)TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	o.version = 99;
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_call_tree_new(NULL, tr, NULL), TSR_ERR_INVALID_ARGUMENT);
	tsr_trace_call_tree_free(NULL);
	tsr_trace_free(tr);
	free(path);
}

/* --- Against the statistics ----------------------------------------------------- */

static void *worker_main(void *arg)
{
	pvti_channel *ch = pvti_channel_new("TestChan");

	(void)arg;
	pvti_thread_set_name("worker");
	for (int i = 0; i < 3000; i++) {
		pvti_begin(ch, "work");
		pvti_begin(ch, "sub");
		if (i % 3 == 0) {
			pvti_begin(ch, "work");
			pvti_end(ch);
		}
		pvti_end(ch);
		pvti_end(ch);
	}
	return NULL;
}

static char *make_api_trace(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework(), *user = pvti_channel_new("TestChan");
	pthread_t th;
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	pvti_thread_set_name("main");
	assert_int_equal(pthread_create(&th, NULL, worker_main, NULL), 0);
	for (int i = 0; i < 5000; i++) {
		pvti_begin(fw, "outer");
		for (int j = 0; j < 3; j++) {
			pvti_begin(fw, "inner");
			if (j == 1) {
				pvti_begin(user, "leaf");
				pvti_end(user);
			}
			pvti_end(fw);
		}
		pvti_end(fw);
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(pvti_close(), 0);
	return path;
}

/* The tree is well formed: breadth first, children together and sorted
 * by inclusive time, depths and parents consistent. */
static void check_shape(const tsr_trace_call_tree *t)
{
	uint64_t roots = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const tsr_trace_call_node *nd = &t->nodes[i];
		uint64_t kids = 0;

		assert_true(nd->count > 0);
		assert_true(nd->exclusive_ns <= nd->inclusive_ns);
		if (i < t->n_roots) {
			assert_int_equal(nd->parent, TSR_TRACE_NO_NODE);
			assert_int_equal(nd->depth, 0);
			roots += nd->inclusive_ns;
		} else {
			assert_true(nd->parent < i);
			assert_int_equal(nd->depth, t->nodes[nd->parent].depth + 1);
		}
		assert_true(nd->first_child + nd->n_children <= t->n_nodes);
		for (size_t k = 0; k < nd->n_children; k++) {
			const tsr_trace_call_node *ch = &t->nodes[nd->first_child + k];

			assert_int_equal(ch->parent, i);
			if (k)
				assert_true(ch->inclusive_ns <= t->nodes[nd->first_child + k - 1].inclusive_ns);
			kids += ch->inclusive_ns;
		}
		/* A child's time lies inside its parent's (nested spans). */
		assert_true(kids <= nd->inclusive_ns);
		/* Self time also leaves out children outside the view. */
		assert_true(nd->inclusive_ns - kids >= nd->exclusive_ns);
	}
	assert_int_equal(roots, t->inclusive_ns);
}

/* The nodes of each label add up to its statistics over the same view. */
static void check_against_stats(tsr_trace *tr, int64_t thread, int64_t from, int64_t to)
{
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_call_tree *t = NULL;
	tsr_trace_label_stat *s = NULL;
	size_t n = 0;
	uint64_t spans = 0;

	o.thread = so.thread = thread;
	o.from_ns = so.from_ns = from;
	o.to_ns = so.to_ns = to;
	so.median = false;
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, &o), TSR_OK);
	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, &so), TSR_OK);
	check_shape(t);
	for (size_t i = 0; i < n; i++) {
		uint64_t count = 0, incl = 0, excl = 0;

		for (size_t k = 0; k < t->n_nodes; k++) {
			if (t->nodes[k].name != s[i].name || t->nodes[k].channel != s[i].channel)
				continue;
			count += t->nodes[k].count;
			incl += t->nodes[k].inclusive_ns;
			excl += t->nodes[k].exclusive_ns;
		}
		assert_int_equal(count, s[i].count);
		assert_int_equal(incl, s[i].total_ns);
		assert_int_equal(excl, s[i].self_ns);
		spans += s[i].count;
	}
	assert_int_equal(t->spans, spans);
	free(s);
	tsr_trace_call_tree_free(t);
}

static void test_against_stats(void **state)
{
	char *path = make_api_trace(*state);
	tsr_trace *tr = tsi_test_open_trace(path);
	const tsr_trace_info *info = tsr_trace_get_info(tr);
	int64_t len = info->end_ns - info->start_ns;
	tsr_trace_call_tree *t = NULL;

	assert_true(info->events > 20000);
	check_against_stats(tr, -1, INT64_MIN, INT64_MAX);
	for (int64_t th = -1; th < (int64_t)info->threads; th++) {
		check_against_stats(tr, th, info->start_ns + len / 3, info->start_ns + len / 2);
		check_against_stats(tr, th, info->start_ns, info->start_ns + len / 7);
		check_against_stats(tr, th, info->start_ns + len * 9 / 10, INT64_MAX);
	}
	/* The whole trace: the roots are "outer" and "work" (with a "work"
	 * below "sub" below "work"). */
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, NULL), TSR_OK);
	assert_int_equal(t->n_roots, 2);
	assert_int_equal(t->spans, info->events);
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].depth == 2 &&
		    strcmp(tsr_trace_get_name(tr, t->nodes[i].name), "work") == 0)
			assert_int_equal(t->nodes[i].count, 1000);
	tsr_trace_call_tree_free(t);
	tsr_trace_free(tr);
	free(path);
}

/* A progress callback that cancels. */
static int cancel_cb(double fraction, const char *message, void *data)
{
	(void)fraction;
	(void)message;
	(void)data;
	return 1;
}

static void test_cancel(void **state)
{
	char *path = make_api_trace(*state);
	tsr_trace *tr = tsi_test_open_trace(path);
	tsr_trace_call_tree *t = NULL;

	assert_int_equal(tsr_trace_set_progress(tr, cancel_cb, NULL), TSR_OK);
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, NULL), TSR_ERR_CANCELLED);
	assert_null(t);
	assert_int_equal(tsr_trace_set_progress(tr, NULL, NULL), TSR_OK);
	assert_int_equal(tsr_trace_call_tree_new(&t, tr, NULL), TSR_OK);
	tsr_trace_call_tree_free(t);
	tsr_trace_free(tr);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hand_worked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_against_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
