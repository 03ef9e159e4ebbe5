/*
 * System tracing through its public API (pvti.h), read back with plain
 * SQLite as any reader would: PVTI_OPTIONS parsing and its environment
 * behaviour (unset, unparseable, "true" and true, enable false), the
 * file's name, identity and journal, channels and channel lists, spans
 * with their statistics and nesting (self time), scoped spans, unbalanced
 * ends, instants, graphs, heatmaps, metadata, thread names, the duration
 * option and reopening. The packed events themselves are decoded in
 * test_pvti_writer.
 */
#include "test-sqlite.h"
#include "test-util.h"

#include <tilescope/log.h>
#include <tilescope/pvti.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- Helpers --------------------------------------------------------------- */

static int setup(void **state)
{
	*state = tsi_test_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	pvti_close();
	unsetenv("PVTI_OPTIONS");
	tsi_test_rmtree(*state);
	return 0;
}

/* Opens a trace in `dir` with the defaults otherwise; returns its file name
 * (the caller frees). */
static char *open_in(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), TSI_OK);
	assert_true(pvti_is_recording());
	return pvti_dup_file_name();
}

/* How many entries `dir` holds (besides . and ..). */
static int count_entries(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name), sl = suffix ? strlen(suffix) : 0;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (!suffix || (len >= sl && strcmp(e->d_name + len - sl, suffix) == 0))
			n++;
	}
	closedir(d);
	return n;
}

/* Same, as text copied into a static buffer ("" for NULL). */
static const char *q_text(sqlite3 *db, const char *sql)
{
	static char buf[1024];
	sqlite3_stmt *st = NULL;
	const unsigned char *t;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		print_error("%s: %s\n", sql, sqlite3_errmsg(db));
		fail();
	}
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	t = sqlite3_column_text(st, 0);
	snprintf(buf, sizeof(buf), "%s", t ? (const char *)t : "");
	sqlite3_finalize(st);
	return buf;
}

/* Reads a small text file into a static buffer. */
static const char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* --- PVTI_OPTIONS ---------------------------------------------------------- */

static void test_options_valid(void **state)
{
	pvti_options *o = NULL;

	(void)state;
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":\"true\",\"directory\":\"./trace\","
	                                        "\"channels\":[\"Poplar\",\"Framework\"],"
	                                        "\"duration\":2.5}"),
	                 TSI_OK);
	assert_non_null(o);
	assert_int_equal(o->version, PVTI_OPTIONS_VERSION);
	assert_true(o->enable);
	assert_string_equal(o->directory, "./trace");
	assert_int_equal(o->n_channels, 2);
	assert_string_equal(o->channels[0], "Poplar");
	assert_string_equal(o->channels[1], "Framework");
	assert_close(o->duration, 2.5, 1e-12);
	pvti_options_free(o);

	/* Absent keys take the defaults; true and "true" agree; an unknown key
	 * is ignored, with a reason. */
	assert_int_equal(pvti_options_parse(&o, "{\"verbose\":1}"), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "unknown key \"verbose\" (known: enable,"));
	assert_true(o->enable);
	assert_null(o->directory);
	assert_int_equal(o->n_channels, 0);
	assert_close(o->duration, 0, 0);
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":true}"), TSI_OK);
	assert_true(o->enable);
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":\"false\",\"duration\":\"10\"}"),
	                 TSI_OK);
	assert_false(o->enable);
	assert_close(o->duration, 10, 0);
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":false}"), TSI_OK);
	assert_false(o->enable);
	pvti_options_free(o);
	pvti_options_free(NULL);
}

static void test_options_bad(void **state)
{
	pvti_options *o = NULL;

	(void)state;
	/* Not JSON: tracing on with the defaults, and a reason. */
	assert_int_equal(pvti_options_parse(&o, "{enable: yes"), TSI_ERR_BAD_OPTION);
	assert_non_null(o);
	assert_true(o->enable);
	assert_null(o->directory);
	assert_non_null(strstr(tsi_error_last(), "not valid JSON: it breaks at byte 2 (\"nable: yes\";"));
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":true} x"), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "breaks at byte 16 (\"x\";"));
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":true"), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "it ends at byte 14 before it is complete"));
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "[1, 2]"), TSI_ERR_BAD_OPTION);
	assert_true(o->enable);
	assert_non_null(strstr(tsi_error_last(), "not a JSON object"));
	pvti_options_free(o);

	/* A typo of a key: its default, and the key it is nearest to. */
	assert_int_equal(pvti_options_parse(&o, "{\"dir\":\"x\",\"enable\":true}"),
	                 TSI_ERR_BAD_OPTION);
	assert_true(o->enable);
	assert_null(o->directory);
	assert_non_null(strstr(tsi_error_last(), "unknown key \"dir\" (did you mean \"directory\"?)"));
	pvti_options_free(o);
	assert_int_equal(pvti_options_parse(&o, "{\"Duration\":1}"), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "did you mean \"duration\"?"));
	pvti_options_free(o);

	/* A bad value keeps its default; the other keys still count. */
	assert_int_equal(pvti_options_parse(&o, "{\"enable\":\"maybe\",\"directory\":7,"
	                                        "\"duration\":-1,\"channels\":[\"A\",3]}"),
	                 TSI_ERR_BAD_OPTION);
	assert_true(o->enable);
	assert_null(o->directory);
	assert_close(o->duration, 0, 0);
	assert_int_equal(o->n_channels, 1);
	assert_string_equal(o->channels[0], "A");
	assert_non_null(strstr(tsi_error_last(), "\"enable\""));
	assert_non_null(strstr(tsi_error_last(), "\"directory\""));
	assert_non_null(strstr(tsi_error_last(), "\"duration\""));
	pvti_options_free(o);

	assert_int_equal(pvti_options_parse(NULL, "{}"), TSI_ERR_INVALID_ARGUMENT);
}

/* Unset or blank: nothing is written and nothing records. */
static void test_env_unset(void **state)
{
	const char *dir = *state;
	char *cwd = getcwd(NULL, 0);

	assert_non_null(cwd);
	assert_int_equal(chdir(dir), 0);
	unsetenv("PVTI_OPTIONS");
	assert_int_equal(pvti_open_from_env(), TSI_OK);
	assert_false(pvti_is_recording());
	assert_null(pvti_dup_file_name());
	pvti_begin(pvti_channel_framework(), "nothing");
	pvti_end(pvti_channel_framework());
	assert_int_equal(pvti_flush(), TSI_OK);
	setenv("PVTI_OPTIONS", "  ", 1);
	assert_int_equal(pvti_open_from_env(), TSI_OK);
	assert_false(pvti_is_recording());
	assert_int_equal(pvti_close(), TSI_OK);
	assert_int_equal(count_entries(dir, NULL), 0);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
}

/* Unparseable: a trace in "." with the defaults, one warning line on
 * stderr although logging is off, the reason in the trace's metadata.
 * The file is named <date>_<time>_<TZ>_<pid>.pvti. */
static void test_env_unparseable(void **state)
{
	const char *dir = *state;
	char *cwd = getcwd(NULL, 0), *file, err_path[512], pattern[128];
	const char *err;
	regex_t re;
	sqlite3 *db;
	int saved_stderr, fd;

	assert_non_null(cwd);
	snprintf(err_path, sizeof(err_path), "%s/stderr.txt", dir);
	unsetenv("POPLAR_LOG_LEVEL"); /* OFF, the default */
	tsi_log_reconfigure();
	assert_int_equal(chdir(dir), 0);
	setenv("PVTI_OPTIONS", "{\"enable\": tru", 1);
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved_stderr >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	assert_int_equal(pvti_open_from_env(), TSI_OK);
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	err = slurp(err_path);
	assert_non_null(strstr(err, "PVTI_OPTIONS: not valid JSON: it breaks at byte 11 (\"tru\";"));
	/* One line. */
	assert_non_null(strchr(err, '\n'));
	assert_null(strchr(strchr(err, '\n') + 1, '\n'));
	assert_true(pvti_is_recording());
	file = pvti_dup_file_name();
	assert_non_null(file);
	assert_true(strncmp(file, "./", 2) == 0);
	snprintf(pattern, sizeof(pattern), "^\\./[0-9]{8}_[0-9]{6}_[A-Za-z0-9+-]+_%d\\.pvti$",
	         (int)getpid());
	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regexec(&re, file, 0, NULL, 0), 0);
	regfree(&re);
	pvti_begin(pvti_channel_framework(), "step");
	pvti_end(pvti_channel_framework());
	assert_int_equal(pvti_close(), TSI_OK);
	assert_false(pvti_is_recording());
	assert_int_equal(count_entries(".", ".pvti"), 1);

	db = tsi_test_sqlite_open(file);
	assert_non_null(strstr(q_text(db, "SELECT value FROM trace_metadata "
	                                  "WHERE key = 'pvti.options_warning'"),
	                       "not valid JSON"));
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'step'"), 1);
	sqlite3_close(db);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	free(file);
}

/* The issue's own value: "true" as a string, a directory that does not
 * exist yet; then enable false (either spelling) writes nothing. */
static void test_env_enable(void **state)
{
	const char *dir = *state;
	char value[600], sub[520];

	snprintf(sub, sizeof(sub), "%s/trace/deeper", dir);
	snprintf(value, sizeof(value), "{\"enable\":\"true\",\"directory\":\"%s\"}", sub);
	setenv("PVTI_OPTIONS", value, 1);
	assert_int_equal(pvti_open_from_env(), TSI_OK);
	assert_true(pvti_is_recording());
	assert_int_equal(pvti_close(), TSI_OK);
	assert_int_equal(count_entries(sub, ".pvti"), 1);
	assert_int_equal(count_entries(sub, NULL), 1); /* no -wal or -shm left */

	snprintf(value, sizeof(value), "{\"enable\":false,\"directory\":\"%s/off\"}", dir);
	setenv("PVTI_OPTIONS", value, 1);
	assert_int_equal(pvti_open_from_env(), TSI_OK);
	assert_false(pvti_is_recording());
	snprintf(value, sizeof(value), "{\"enable\":\"false\",\"directory\":\"%s/off\"}", dir);
	setenv("PVTI_OPTIONS", value, 1);
	assert_int_equal(pvti_open_from_env(), TSI_OK);
	assert_false(pvti_is_recording());
	snprintf(sub, sizeof(sub), "%s/off", dir);
	assert_int_not_equal(access(sub, F_OK), 0);
}

/* --- The file ------------------------------------------------------------- */

/* A span that returns early from inside PVTI_SCOPE still ends. */
static int scoped(int early)
{
	PVTI_SCOPE(pvti_channel_framework(), "scoped");
	if (early)
		return 1;
	pvti_begin(pvti_channel_framework(), "in-scope");
	pvti_end(pvti_channel_framework());
	return 0;
}

static void test_spans_and_stats(void **state)
{
	pvti_channel *fw = pvti_channel_framework();
	char *file = open_in(*state);
	struct timespec pause = {0, 2000000}; /* 2 ms */
	sqlite3 *db;
	int i;

	/* Everything inside "outer", so that it is the longest span and the
	 * only outermost one however the scheduler stretches the others. */
	pvti_begin(fw, "outer");
	for (i = 0; i < 3; i++) {
		pvti_begin(fw, "inner");
		nanosleep(&pause, NULL);
		pvti_end(fw);
	}
	scoped(1);
	scoped(0);
	pvti_end(fw);
	assert_int_equal(pvti_close(), TSI_OK);
	assert_null(pvti_dup_file_name());

	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "PRAGMA application_id"), 0x54535654);
	assert_int_equal(tsi_test_sqlite_int(db, "PRAGMA user_version"), 1);
	assert_string_equal(q_text(db, "PRAGMA journal_mode"), "delete");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT pid FROM process"), getpid());
	assert_string_equal(q_text(db, "SELECT value FROM trace_metadata WHERE key = 'pvti.complete'"),
	                    "true");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT total(count) FROM event_chunk"), 7);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT events FROM thread"), 7);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'outer'"), 1);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'inner'"), 3);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'scoped'"), 2);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'in-scope'"), 1);
	assert_string_equal(q_text(db, "SELECT channel FROM tracepoint_stats WHERE name = 'outer'"),
	                    "Framework");
	/* Three 2 ms sleeps: each inner span is at least 2 ms; the outer's self
	 * time is its total less its children's (the inners and the scoped
	 * spans; in-scope is a grandchild), to the nanosecond. */
	assert_true(tsi_test_sqlite_int(db, "SELECT min_ns FROM label_stats JOIN string ON string.id = name "
	                      "WHERE value = 'inner'") >= 2000000);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT o.self_ns - (o.total_ns - i.total_ns - s.total_ns) "
	                           "FROM tracepoint_stats o, tracepoint_stats i, tracepoint_stats s "
	                           "WHERE o.name = 'outer' AND i.name = 'inner' AND s.name = 'scoped'"),
	                 0);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT s.self_ns - (s.total_ns - c.total_ns) FROM "
	                           "tracepoint_stats s, tracepoint_stats c "
	                           "WHERE s.name = 'scoped' AND c.name = 'in-scope'"),
	                 0);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT self_ns = total_ns FROM tracepoint_stats "
	                           "WHERE name = 'inner'"),
	                 1);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT value FROM trace_metadata "
	                           "WHERE key = 'pvti.unbalanced_ends'"),
	                 0);
	/* "Top tracepoints" from the plain shell. */
	assert_string_equal(q_text(db, "SELECT name FROM tracepoint_stats ORDER BY total_ns DESC"),
	                    "outer");
	/* The timeline summary covers the outermost spans' time. */
	assert_true(tsi_test_sqlite_int(db, "SELECT count(*) FROM timeline_lod WHERE level = 0") > 0);
	assert_true(tsi_test_sqlite_int(db, "SELECT sum(busy_ns) FROM timeline_lod WHERE level = 0") >=
	            tsi_test_sqlite_int(db, "SELECT total_ns FROM tracepoint_stats WHERE name = 'outer'"));
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM timeline_lod t JOIN string s "
	                           "ON s.id = t.top_name WHERE t.level = "
	                           "(SELECT max(level) FROM timeline_lod) AND s.value = 'outer'"),
	                 1);
	sqlite3_close(db);
	free(file);
}

static void test_channels(void **state)
{
	const char *wanted[] = {"Framework", "Late"};
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *late, *other, *mine;
	char *file;
	sqlite3 *db;
	size_t i, n;
	bool seen = false;

	assert_true(pvti_channel_count() >= 3);
	assert_string_equal(pvti_channel_name(pvti_channel_at(0)), "Drivers");
	assert_string_equal(pvti_channel_name(pvti_channel_poplar()), "Poplar");
	assert_ptr_equal(pvti_channel_lookup("Framework"), pvti_channel_framework());
	assert_ptr_equal(pvti_channel_new("Poplar"), pvti_channel_poplar());
	assert_null(pvti_channel_new(""));
	assert_null(pvti_channel_lookup("No such channel"));
	mine = pvti_channel_new("Mine");
	assert_non_null(mine);
	assert_ptr_equal(pvti_channel_new("Mine"), mine);
	n = pvti_channel_count();
	for (i = 0; i < n; i++)
		seen = seen || pvti_channel_at(i) == mine;
	assert_true(seen);
	assert_null(pvti_channel_at(n));

	opts.directory = *state;
	opts.channels = wanted;
	opts.n_channels = 2;
	assert_int_equal(pvti_open(&opts), TSI_OK);
	assert_int_equal(pvti_open(&opts), TSI_ERR_INVALID_ARGUMENT); /* already open */
	file = pvti_dup_file_name();
	assert_true(pvti_channel_is_enabled(pvti_channel_framework()));
	assert_false(pvti_channel_is_enabled(pvti_channel_poplar()));
	assert_false(pvti_channel_is_enabled(mine));
	late = pvti_channel_new("Late");
	other = pvti_channel_new("Other");
	assert_true(pvti_channel_is_enabled(late));
	assert_false(pvti_channel_is_enabled(other));

	pvti_begin(pvti_channel_poplar(), "off");
	pvti_end(pvti_channel_poplar());
	pvti_begin(late, "late-span");
	pvti_begin(other, "off");
	pvti_end(other);
	pvti_end(late);
	pvti_channel_enable(other);
	assert_true(pvti_channel_is_enabled(other));
	pvti_begin(other, "switched-on");
	pvti_end(other);
	pvti_channel_disable(other);
	pvti_begin(other, "off");
	pvti_end(other);
	assert_int_equal(pvti_close(), TSI_OK);

	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM tracepoint_stats WHERE name = 'off'"), 0);
	assert_string_equal(q_text(db, "SELECT channel FROM tracepoint_stats "
	                               "WHERE name = 'late-span'"),
	                    "Late");
	assert_string_equal(q_text(db, "SELECT channel FROM tracepoint_stats "
	                               "WHERE name = 'switched-on'"),
	                    "Other");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT enabled FROM channel WHERE name = 'Poplar'"), 0);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT enabled FROM channel WHERE name = 'Late'"), 1);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT value FROM trace_metadata "
	                           "WHERE key = 'pvti.unbalanced_ends'"),
	                 0);
	sqlite3_close(db);
	free(file);

	/* The next trace with no list records every channel again. */
	free(open_in(*state));
	assert_true(pvti_channel_is_enabled(pvti_channel_poplar()));
	assert_true(pvti_channel_is_enabled(other));
	assert_int_equal(pvti_close(), TSI_OK);
}

/* Unbalanced ends are counted, not fatal, and a warning at close says so;
 * spans left open are counted. */
static void test_unbalanced(void **state)
{
	pvti_channel *fw = pvti_channel_framework(), *pop = pvti_channel_poplar();
	char *file = open_in(*state), log_path[512];
	sqlite3 *db;

	snprintf(log_path, sizeof(log_path), "%s/poplar.log", (const char *)*state);
	setenv("POPLAR_LOG_LEVEL", "WARN", 1);
	setenv("POPLAR_LOG_DEST", log_path, 1);
	tsi_log_reconfigure();

	pvti_end(fw);            /* nothing open */
	pvti_begin(fw, "a");
	pvti_end(pop);           /* open span is on another channel */
	pvti_end(fw);            /* closes "a" */
	pvti_end(fw);            /* nothing open again */
	pvti_begin(pop, "left open");
	assert_int_equal(pvti_close(), TSI_OK);
	assert_non_null(strstr(slurp(log_path), "3 pvti_end call(s) had no open tracepoint"));
	unsetenv("POPLAR_LOG_LEVEL");
	unsetenv("POPLAR_LOG_DEST");
	tsi_log_reconfigure();

	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT value FROM trace_metadata "
	                           "WHERE key = 'pvti.unbalanced_ends'"),
	                 3);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT value FROM trace_metadata "
	                           "WHERE key = 'pvti.unclosed_begins'"),
	                 1);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'a'"), 1);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM tracepoint_stats "
	                           "WHERE name = 'left open'"),
	                 0);
	sqlite3_close(db);
	free(file);
}

static void test_instants_graphs_metadata(void **state)
{
	pvti_channel *fw = pvti_channel_framework();
	pvti_graph *g = pvti_graph_new("Loss", "");
	pvti_series *train = pvti_graph_add_series(g, "train");
	pvti_series *eval = pvti_graph_add_series(g, "eval");
	const double edges[] = {1.0, 10.0, 100.0};
	const double values[] = {0.5, 1.0, 5.0, 50.0, 500.0, 1000.0};
	pvti_heatmap *hm = pvti_heatmap_new("Latency", "ms", edges, 3);
	const double bad_edges[] = {2.0, 1.0};
	double wide[4097];
	char *file, name[32];
	sqlite3 *db;
	int i;

	assert_non_null(g);
	assert_ptr_equal(pvti_graph_new("Loss", "ignored"), g);
	assert_ptr_equal(pvti_graph_add_series(g, "train"), train);
	assert_non_null(eval);
	assert_non_null(hm);
	assert_null(pvti_heatmap_new("Bad", "", bad_edges, 2));
	/* The readers' bound (db-schema/heatmap-edges.h): 4096 edges, not one more. */
	for (i = 0; i <= 4096; i++)
		wide[i] = i;
	assert_null(pvti_heatmap_new("Wide", "", wide, 4097));
	assert_non_null(strstr(tsi_error_last(), "edges of 'Wide': more than 4096 edges"));
	assert_non_null(pvti_heatmap_new("Wide", "", wide, 4096));
	assert_null(pvti_graph_new(NULL, NULL));

	/* Before a trace: accepted, nothing kept. */
	pvti_series_add(train, -1.0);
	assert_int_equal(pvti_trace_metadata("early", "1"), TSI_OK);

	file = open_in(*state);
	pvti_thread_set_name("main loop");
	for (i = 0; i < 10; i++) {
		pvti_series_add(train, 1.0 / (i + 1));
		if (i % 2 == 0)
			pvti_series_add(eval, 2.0 / (i + 1));
	}
	pvti_begin(fw, "batch");
	assert_int_equal(pvti_event_metadata("{\"batch\": 7, \"size\": 32}"), TSI_OK);
	assert_int_equal(pvti_event_metadata("{oops"), TSI_ERR_INVALID_ARGUMENT);
	/* The name buffer is reused: names are copied during the call. */
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "mark %d", i);
		pvti_instant(fw, name);
	}
	pvti_end(fw);
	pvti_instant(fw, "outside");
	assert_int_equal(pvti_event_metadata("1"), TSI_ERR_INVALID_ARGUMENT); /* none open */
	assert_int_equal(pvti_heatmap_add(hm, values, 6), TSI_OK);
	assert_int_equal(pvti_trace_metadata("model", "{\"layers\": [784, 10]}"), TSI_OK);
	assert_int_equal(pvti_trace_metadata("model", "{\"layers\": [784, 100, 10]}"), TSI_OK);
	assert_int_equal(pvti_trace_metadata("bad", "{"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(pvti_trace_metadata("pvti.complete", "false"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(pvti_close(), TSI_OK);

	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM sample s JOIN series r ON r.id = s.series "
	                           "WHERE r.name = 'train'"),
	                 10);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM sample s JOIN series r ON r.id = s.series "
	                           "WHERE r.name = 'eval'"),
	                 5);
	assert_close(tsi_test_sqlite_int(db, "SELECT round(sum(value) * 1000) FROM sample s JOIN series r "
	                       "ON r.id = s.series WHERE r.name = 'eval'"),
	             1000.0 * (2.0 + 2.0 / 3 + 2.0 / 5 + 2.0 / 7 + 2.0 / 9), 1);
	assert_string_equal(q_text(db, "SELECT g.name FROM graph g JOIN series s ON s.graph = g.id "
	                               "WHERE s.name = 'eval'"),
	                    "Loss");
	/* Samples are in time order within a series. */
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM sample a JOIN sample b ON a.series = b.series "
	                           "AND a.rowid < b.rowid AND a.t_ns > b.t_ns"),
	                 0);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM instant i JOIN string s ON s.id = i.name "
	                           "WHERE s.value LIKE 'mark %' AND i.depth = 1 "
	                           "AND i.parent IS NOT NULL"),
	                 3);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM instant i JOIN string s ON s.id = i.name "
	                           "WHERE s.value = 'mark 2'"),
	                 1);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT parent IS NULL FROM instant i JOIN string s "
	                           "ON s.id = i.name WHERE s.value = 'outside'"),
	                 1);
	assert_string_equal(q_text(db, "SELECT json FROM event_metadata"),
	                    "{\"batch\": 7, \"size\": 32}");
	assert_string_equal(q_text(db, "SELECT edges FROM heatmap WHERE name = 'Latency'"),
	                    "[1.0,10.0,100.0]");
	/* Buckets: <1: 0.5; [1,10): 1, 5; [10,100): 50; >=100: 500, 1000. */
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT group_concat(bucket || ':' || count) = '0:1,1:2,2:1,3:2' "
	                           "FROM (SELECT * FROM heatmap_sample ORDER BY bucket)"),
	                 1);
	assert_string_equal(q_text(db, "SELECT value FROM trace_metadata WHERE key = 'model'"),
	                    "{\"layers\": [784, 100, 10]}");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM trace_metadata "
	                           "WHERE key IN ('early', 'bad')"),
	                 0);
	assert_string_equal(q_text(db, "SELECT name FROM thread"), "main loop");
	sqlite3_close(db);
	free(file);
}

/* Worker for test_thread_names. */
static void *named_worker(void *arg)
{
	pvti_thread_set_name(arg);
	pvti_begin(pvti_channel_framework(), "work");
	pvti_end(pvti_channel_framework());
	return NULL;
}

static void test_thread_names(void **state)
{
	char *file = open_in(*state);
	pthread_t a, b;
	sqlite3 *db;

	assert_int_equal(pthread_create(&a, NULL, named_worker, "loader"), 0);
	assert_int_equal(pthread_create(&b, NULL, named_worker, "trainer"), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_int_equal(pvti_close(), TSI_OK);
	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM thread WHERE name IN ('loader', 'trainer') "
	                           "AND events = 1"),
	                 2);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(DISTINCT tid) FROM thread"),
	                 tsi_test_sqlite_int(db, "SELECT count(*) FROM thread"));
	sqlite3_close(db);
	free(file);
}

/*
 * duration: recording stops by itself; the file keeps what came before.
 * The writer stops recording when it wakes at the deadline, which a
 * loaded machine may delay: the loop waits for that (up to 60 s, where it
 * normally takes 0.2 s) and asserts no upper bound on it. How many ticks
 * are recorded depends on how many the machine managed before the
 * deadline, so the count is checked against what this test saw: a tick
 * is surely recorded when it began before 0.15 s by a clock started
 * before the trace's (the margin covers the calibration of the trace's
 * tick rate) and recording was still on after it ended; none is recorded
 * that was not made.
 */
static void test_duration(void **state)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	struct timespec pause = {0, 100000}; /* 0.1 ms */
	struct timespec t0, t;
	double waited = 0;
	long long ticks = 0, sure = 0, recorded;
	char *file;
	sqlite3 *db;

	opts.directory = *state;
	opts.duration = 0.2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pvti_open(&opts), TSI_OK);
	file = pvti_dup_file_name();
	while (pvti_is_recording() && waited < 60.0) {
		pvti_begin(fw, "tick");
		clock_gettime(CLOCK_MONOTONIC, &t); /* after the span's start */
		waited = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
		nanosleep(&pause, NULL);
		pvti_end(fw);
		ticks++;
		sure += waited < 0.15 && pvti_is_recording();
	}
	if (pvti_is_recording()) {
		free(file);
		fail_msg("still recording %.1f s into a 0.2 s trace", waited);
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	waited = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
	assert_true(waited >= 0.15); /* 0.2 s of the trace's clock, less its calibration error */
	assert_non_null(file); /* still open until closed */
	pvti_begin(fw, "after");
	pvti_end(fw);
	assert_int_equal(pvti_close(), TSI_OK);
	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT value FROM trace_metadata WHERE key = 'pvti.stopped_ns'"),
	                 200000000);
	recorded = tsi_test_sqlite_int(db, "SELECT coalesce(sum(count), 0) FROM tracepoint_stats "
	                                   "WHERE name = 'tick'");
	print_message("%lld ticks made, %lld surely recorded, %lld recorded\n", ticks, sure, recorded);
	assert_true(recorded >= sure && recorded <= ticks);
	assert_true(tsi_test_sqlite_int(db, "SELECT max(first_ns) FROM event_chunk") <= 200000000);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM tracepoint_stats WHERE name = 'after'"), 0);
	sqlite3_close(db);
	free(file);
}

/* Two traces in a row from one process, in one directory: two files, the
 * second holding only its own spans. */
static void test_reopen(void **state)
{
	pvti_channel *fw = pvti_channel_framework();
	char *first = open_in(*state), *second;
	sqlite3 *db;

	pvti_begin(fw, "first");
	pvti_end(fw);
	assert_int_equal(pvti_close(), TSI_OK);
	second = open_in(*state);
	assert_string_not_equal(first, second);
	pvti_begin(fw, "second");
	pvti_end(fw);
	assert_int_equal(pvti_flush(), TSI_OK);
	assert_int_equal(pvti_close(), TSI_OK);
	assert_int_equal(pvti_close(), TSI_OK); /* closing twice is harmless */
	assert_int_equal(count_entries(*state, ".pvti"), 2);
	db = tsi_test_sqlite_open(second);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM tracepoint_stats"), 1);
	assert_string_equal(q_text(db, "SELECT name FROM tracepoint_stats"), "second");
	sqlite3_close(db);
	free(first);
	free(second);
}

static void test_bad_directory(void **state)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/a-file", (const char *)*state);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	opts.directory = path; /* a file, not a directory */
	assert_true(pvti_open(&opts) < 0);
	assert_true(strlen(tsi_error_last()) > 0);
	assert_false(pvti_is_recording());
	assert_null(pvti_dup_file_name());
	opts.directory = *state;
	opts.version = 99;
	assert_int_equal(pvti_open(&opts), TSI_ERR_INVALID_ARGUMENT);
}

/*
 * Issue 18: with logging off (the default), a trace PVTI_OPTIONS asked for
 * that cannot start (its directory is under a file) or cannot be written
 * (the disk fills: a file size limit, RLIMIT_FSIZE, stands in for it) says
 * so in one line on stderr. Run in a child: it changes its limits and
 * stderr.
 */
static void test_loud_failures(void **state)
{
	const char *dir = *state;
	char err_path[512], value[700], path[600];
	const char *err;
	int status;
	pid_t pid;
	FILE *f;

	snprintf(err_path, sizeof(err_path), "%s/stderr.txt", dir);
	snprintf(path, sizeof(path), "%s/a-file", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = {256 << 10, 256 << 10};
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(10);
		unsetenv("POPLAR_LOG_LEVEL");
		tsi_log_reconfigure();
		snprintf(value, sizeof(value), "{\"directory\":\"%s/sub\"}", path);
		setenv("PVTI_OPTIONS", value, 1);
		if (pvti_open_from_env() == TSI_OK)
			_exit(11);
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
			_exit(12);
		snprintf(value, sizeof(value), "{\"directory\":\"%s/full\"}", dir);
		setenv("PVTI_OPTIONS", value, 1);
		if (pvti_open_from_env() != TSI_OK)
			_exit(13);
		for (int i = 0; i < 2000000 && pvti_is_recording(); i++) {
			char name[32];

			snprintf(name, sizeof(name), "span %d", i % 50000); /* new names grow the file */
			pvti_begin(pvti_channel_framework(), name);
			pvti_end(pvti_channel_framework());
			if (i % 20000 == 0)
				pvti_flush();
		}
		pvti_close();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	err = slurp(err_path);
	assert_non_null(strstr(err, "PO:PVTI"));
	assert_non_null(strstr(err, "cannot start the trace PVTI_OPTIONS asks for: "));
	assert_non_null(strstr(err, "Not a directory"));
	assert_non_null(strstr(err, "writing the trace failed, recording stopped: "));

	/* A directory that refuses new files (/sys/kernel, even to root): the
	 * line gives the system's reason. */
	{
		int probe = open("/sys/kernel/tilescope-probe", O_WRONLY | O_CREAT | O_EXCL, 0600);
		char why[128];

		snprintf(why, sizeof(why), "%s", strerror(errno));
		if (probe >= 0) {
			close(probe);
			unlink("/sys/kernel/tilescope-probe");
			return;
		}
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(10);
			setenv("PVTI_OPTIONS", "{\"directory\":\"/sys/kernel\"}", 1);
			_exit(pvti_open_from_env() == TSI_OK ? 11 : 0);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		err = slurp(err_path);
		if (!strstr(err, "cannot start the trace PVTI_OPTIONS asks for: ") || !strstr(err, why))
			fail_msg("no reason (%s) in: %s", why, err);
	}
}

/* The child of test_load_and_exit, run as "test_pvti --traced-child": the
 * library opened the trace from PVTI_OPTIONS before main; exit closes it. */
static int traced_child(void)
{
	if (!pvti_is_recording())
		return 3;
	pvti_begin(pvti_channel_framework(), "child-span");
	pvti_end(pvti_channel_framework());
	return 0; /* no pvti_close: the library's destructor must do it */
}

static void test_load_and_exit(void **state)
{
	const char *dir = *state;
	char value[600], *file;
	int status;
	pid_t pid;
	sqlite3 *db;
	DIR *d;
	struct dirent *e;

	snprintf(value, sizeof(value), "{\"directory\":\"%s\"}", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("PVTI_OPTIONS", value, 1);
		execl("/proc/self/exe", "test_pvti", "--traced-child", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(count_entries(dir, NULL), 1); /* the .pvti alone: no -wal, no -shm */
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)) != NULL && e->d_name[0] == '.')
		;
	assert_non_null(e);
	file = malloc(strlen(dir) + strlen(e->d_name) + 2);
	assert_non_null(file);
	sprintf(file, "%s/%s", dir, e->d_name);
	closedir(d);
	db = tsi_test_sqlite_open(file);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT pid FROM process"), pid);
	assert_string_equal(q_text(db, "SELECT name FROM process"), "test_pvti");
	assert_string_equal(q_text(db, "SELECT value FROM trace_metadata WHERE key = 'pvti.complete'"),
	                    "true");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count FROM tracepoint_stats WHERE name = 'child-span'"), 1);
	sqlite3_close(db);
	free(file);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_valid),
		cmocka_unit_test(test_options_bad),
		cmocka_unit_test_setup_teardown(test_env_unset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_unparseable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_enable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spans_and_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_channels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbalanced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instants_graphs_metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loud_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_and_exit, setup, teardown),
	};

	if (argc > 1 && strcmp(argv[1], "--traced-child") == 0)
		return traced_child();

	/* Whatever the environment asked for at load, the tests start with no
	 * trace and the log off. */
	pvti_close();
	unsetenv("PVTI_OPTIONS");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
