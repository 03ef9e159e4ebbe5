/*
 * autoReport end to end, through the public API and the environment as a
 * user drives it: POPLAR_ENGINE_OPTIONS decides whether profile.pop and
 * debug.cbor are written, where, and how many runs they keep; two engines
 * in one process report to two subdirectories; a compile that runs out of
 * memory still leaves a report; and a model killed with SIGKILL while it
 * rewrites its report never leaves a profile.pop that is not complete.
 *
 * Every test works in its own temporary directory and restores the
 * environment it changed.
 */
#include "test-sqlite.h"
#include "test-util.h"
#include "tut4-model.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>
#include <tilescope/ipu.h>
#include <tilescope/popops.h>
#include <tilescope/profile.h>

#define TSF_PROFILE_APPLICATION_ID 0x54535046 /* db-schema/format.h */

/* --- Helpers -------------------------------------------------------------- */

/* Sets POPLAR_ENGINE_OPTIONS (NULL unsets it). */
static void set_options_env(const char *json)
{
	if (json)
		assert_int_equal(setenv("POPLAR_ENGINE_OPTIONS", json, 1), 0);
	else
		unsetenv("POPLAR_ENGINE_OPTIONS");
}

/* True when `path` exists. */
static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Entries of `dir` other than . and .. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * Checks that `path` is a complete, valid report: a Tilescope profile of
 * this schema, intact, with its graph profile, and with every run it lists
 * whole (its steps and trace all there). Returns the number of runs.
 */
static long long check_complete_report(const char *path)
{
	sqlite3 *db = tsi_test_sqlite_open(path);
	sqlite3_stmt *st = NULL;
	long long runs;

	assert_int_equal(tsi_test_sqlite_int(db, "PRAGMA application_id"), TSF_PROFILE_APPLICATION_ID);
	assert_true(tsi_test_sqlite_int(db, "PRAGMA user_version") >= 1);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	assert_true(tsi_test_sqlite_int(db, "SELECT count(*) FROM tile_memory") > 0);
	assert_true(tsi_test_sqlite_int(db, "SELECT count(*) FROM program") > 0);
	runs = tsi_test_sqlite_int(db, "SELECT count(*) FROM run");
	/* Each run's steps and trace are all there. */
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM run r WHERE r.num_steps != "
	                               "(SELECT count(*) FROM step s WHERE s.run = r.id)"),
	                 0);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM run r WHERE r.trace_length != "
	                               "(SELECT count(*) FROM program_trace t WHERE t.run = r.id)"),
	                 0);
	sqlite3_close(db);
	return runs;
}

/* The schema's own indexes in the report at `path` (those made by
 * CREATE INDEX, not the automatic ones of its constraints). */
static long long count_schema_indexes(const char *path)
{
	sqlite3 *db = tsi_test_sqlite_open(path);
	long long n = tsi_test_sqlite_int(db, "SELECT count(*) FROM sqlite_schema "
	                                      "WHERE type = 'index' AND sql IS NOT NULL");

	sqlite3_close(db);
	return n;
}

/* A small model: x + y on 4 tiles (program 0) and x * y (program 1). */
typedef struct small_model {
	tsi_test_model m;
	tsi_program *progs[2];
} small_model;

static void small_model_build(small_model *s)
{
	tsi_tensor *x, *y;

	memset(s, 0, sizeof(*s));
	tsi_test_model_init(&s->m, 1, 8, 1);
	assert_int_equal(tsi_popops_add_codelets(s->m.graph), TSI_OK);
	x = tsi_graph_add_variable(s->m.graph, TSI_FLOAT, TSI_SHAPE(64), "x");
	y = tsi_graph_add_variable(s->m.graph, TSI_FLOAT, TSI_SHAPE(64), "y");
	assert_non_null(x);
	assert_non_null(y);
	tsi_graph_map_linearly(s->m.graph, x, 1);
	tsi_graph_map_linearly(s->m.graph, y, 1);
	s->progs[0] = tsi_prog_sequence(s->m.graph, NULL);
	s->progs[1] = tsi_prog_sequence(s->m.graph, NULL);
	assert_non_null(tsi_popops_add(s->m.graph, x, y, s->progs[0], "sum"));
	assert_non_null(tsi_popops_mul(s->m.graph, x, y, s->progs[1], "product"));
}

/* Compiles the small model (with engine name `name`, may be NULL). */
static int small_model_compile(small_model *s, tsi_engine **engine, const char *name,
                               const tsi_options *opts)
{
	return tsi_engine_new_named(engine, s->m.graph, s->progs, 2, opts, name);
}

/*
 * What a test made, freed by its teardown whether the test passed or an
 * assertion ended it early (so a failure leaks nothing and leaves no
 * process or directory behind): a temporary directory that is also the
 * working directory, a model, engines, options, child processes and
 * pipe ends. A test clears a field it freed itself.
 */
typedef struct fixture {
	char *path;           /* the temporary directory (tsi_test_mkdtemp) */
	char old[4096];       /* the working directory before it */
	small_model s;        /* zeroed until small_model_build */
	tsi_test_model m;     /* zeroed until tsi_test_model_init */
	tsi_engine *e[2];     /* or NULL */
	tsi_options *o;       /* or NULL */
	pid_t child[2];       /* killed and reaped when still set (> 0) */
	int fd[8];            /* closed when >= 0 */
} fixture;

static int fixture_setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	for (size_t i = 0; i < sizeof(f->fd) / sizeof(f->fd[0]); i++)
		f->fd[i] = -1;
	f->path = tsi_test_mkdtemp();
	if (!getcwd(f->old, sizeof(f->old)) || chdir(f->path) != 0) {
		tsi_test_rmtree(f->path);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	fixture *f = *state;
	int rc = 0;

	for (int i = 0; i < 2; i++)
		if (f->child[i] > 0) {
			kill(f->child[i], SIGKILL);
			waitpid(f->child[i], NULL, 0);
		}
	for (size_t i = 0; i < sizeof(f->fd) / sizeof(f->fd[0]); i++)
		if (f->fd[i] >= 0)
			close(f->fd[i]);
	for (int i = 0; i < 2; i++)
		tsi_engine_free(f->e[i]);
	tsi_options_free(f->o);
	tsi_test_model_free(&f->s.m);
	tsi_test_model_free(&f->m);
	if (chdir(f->old) != 0)
		rc = -1;
	tsi_test_rmtree(f->path);
	set_options_env(NULL);
	free(f);
	return rc;
}

/* Frees *e and clears it (the fixture frees what is left). */
static void drop_engine(tsi_engine **e)
{
	tsi_engine_free(*e);
	*e = NULL;
}

/* --- Tests ----------------------------------------------------------------- */

/* Without any autoReport option nothing is written, not even a directory. */
static void test_nothing_without_options(void **state)
{
	fixture *f = *state;

	set_options_env(NULL);
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f->e[0], f->s.m.device), TSI_OK);
	tsi_test_run(f->e[0], 0);
	drop_engine(&f->e[0]);
	/* Options that do not ask for a report write nothing either. */
	set_options_env("{\"debug.instrument\":\"true\",\"autoReport.directory\":\"r\"}");
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	drop_engine(&f->e[0]);
	assert_int_equal(count_entries("."), 0);
}

/* autoReport.all writes profile.pop and debug.cbor into the directory,
 * created on demand, with the runs kept. */
static void test_all_writes_both_files(void **state)
{
	fixture *f = *state;
	sqlite3 *db;

	set_options_env("{\"autoReport.all\":\"true\",\"autoReport.directory\":\"./deep/report\"}");
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	/* The graph profile is written from the end of compilation, on a
	 * thread of its own (issue 19); complete once waited for. */
	assert_int_equal(tsi_engine_wait_reports(f->e[0]), TSI_OK);
	assert_true(exists("deep/report/profile.pop"));
	assert_true(exists("deep/report/debug.cbor"));
	assert_int_equal(check_complete_report("deep/report/profile.pop"), 0);
	assert_int_equal(tsi_engine_load(f->e[0], f->s.m.device), TSI_OK);
	tsi_test_run(f->e[0], 0);
	tsi_test_run(f->e[0], 1);
	assert_int_equal(check_complete_report("deep/report/profile.pop"), 2);
	drop_engine(&f->e[0]);
	/* Only the two files: no temporary file is left behind. */
	assert_int_equal(count_entries("deep/report"), 2);
	db = tsi_test_sqlite_open("deep/report/profile.pop");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM option WHERE name = "
	                               "'autoReport.all'"),
	                 1);
	sqlite3_close(db);
}

/*
 * Issue 19: without a wait, the first run joins the graph profile's own
 * file before it is renamed into place (no copy of the report on the
 * run's thread). Meanwhile a copy of the graph profile alone is at
 * profile.pop, as soon as the writer thread has written it (so a model
 * that crashes while it runs still leaves it); the first run replaces it
 * complete with that run, and later runs are added as before.
 */
static void test_first_run_joins_graph_profile(void **state)
{
	fixture *f = *state;
	struct timespec tick = {0, 10 * 1000000L};
	long long shown_indexes;

	set_options_env("{\"autoReport.all\":\"true\",\"autoReport.directory\":\"r\"}");
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	/* Liveness only: the writer thread needs milliseconds. */
	for (int i = 0; i < 3000 && !exists("r/profile.pop"); i++)
		nanosleep(&tick, NULL);
	assert_int_equal(check_complete_report("r/profile.pop"), 0); /* the graph profile alone */
	shown_indexes = count_schema_indexes("r/profile.pop");
	assert_true(shown_indexes > 0);
	assert_int_equal(tsi_engine_load(f->e[0], f->s.m.device), TSI_OK);
	tsi_test_run(f->e[0], 0);
	assert_int_equal(check_complete_report("r/profile.pop"), 1);
	/* The copy had every index of the schema, as the final file has. */
	assert_int_equal(count_schema_indexes("r/profile.pop"), shown_indexes);
	assert_int_equal(count_entries("r"), 2); /* profile.pop, debug.cbor */
	tsi_test_run(f->e[0], 1);
	assert_int_equal(check_complete_report("r/profile.pop"), 2);
	drop_engine(&f->e[0]);
	assert_int_equal(count_entries("r"), 2);
}

/* A graph profile alone (no runs will join it) is renamed into place by
 * its writer thread as soon as it is written, with no wait. */
static void test_graph_profile_alone_appears(void **state)
{
	fixture *f = *state;
	struct timespec tick = {0, 10 * 1000000L};

	set_options_env("{\"autoReport.outputGraphProfile\":\"true\"}");
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	/* Liveness only: the writer thread needs milliseconds. */
	for (int i = 0; i < 3000 && !exists("profile.pop"); i++)
		nanosleep(&tick, NULL);
	assert_true(exists("profile.pop"));
	assert_int_equal(check_complete_report("profile.pop"), 0);
	drop_engine(&f->e[0]);
	assert_int_equal(count_entries("."), 1);
}

/* The environment wins over options given in code; code options alone
 * work too. */
static void test_environment_over_code(void **state)
{
	fixture *f = *state;

	assert_non_null(f->o = tsi_options_new());
	small_model_build(&f->s);
	assert_int_equal(tsi_options_set(f->o, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(f->o, "autoReport.directory", "from-code"), TSI_OK);
	set_options_env(NULL);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, f->o), TSI_OK);
	drop_engine(&f->e[0]);
	assert_true(exists("from-code/profile.pop"));
	set_options_env("{\"autoReport.directory\":\"from-env\"}");
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, f->o), TSI_OK);
	drop_engine(&f->e[0]);
	assert_true(exists("from-env/profile.pop"));
	/* An environment that turns the report off wins as well. */
	set_options_env("{\"autoReport.all\":false,\"autoReport.directory\":\"off\"}");
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, f->o), TSI_OK);
	drop_engine(&f->e[0]);
	assert_false(exists("off"));
}

/* Bad options in the environment fail engine creation with a message
 * naming the problem, and write nothing. */
static void test_bad_environment(void **state)
{
	fixture *f = *state;

	small_model_build(&f->s);
	set_options_env("{\"autoReport.all\":\"maybe\"}");
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_ERR_BAD_OPTION);
	assert_null(f->e[0]);
	assert_non_null(strstr(tsi_error_last(), "autoReport.all"));
	set_options_env("{\"autoReport.al\":\"true\"}");
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "autoReport.all"));
	set_options_env("{\"autoReport.all\":\"true\"");
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "POPLAR_ENGINE_OPTIONS"));
	assert_int_equal(count_entries("."), 0);
}

/* Two engines in one process: two subdirectories, one named after the
 * engine's name and one after its creation index; the first engine's
 * files move out of the root when the second arrives. */
static void test_two_engines_two_subdirectories(void **state)
{
	fixture *f = *state;

	set_options_env("{\"autoReport.all\":\"true\",\"autoReport.directory\":\"rep\"}");
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], "training", NULL), TSI_OK);
	assert_int_equal(tsi_engine_wait_reports(f->e[0]), TSI_OK);
	assert_true(exists("rep/profile.pop"));
	assert_int_equal(small_model_compile(&f->s, &f->e[1], NULL, NULL), TSI_OK);
	assert_false(exists("rep/profile.pop"));
	assert_true(exists("rep/training/profile.pop"));
	assert_true(exists("rep/training/debug.cbor"));
	assert_int_equal(count_entries("rep"), 2);
	/* The moved engine keeps writing where its report went. */
	assert_int_equal(tsi_engine_load(f->e[0], f->s.m.device), TSI_OK);
	tsi_test_run(f->e[0], 0);
	assert_int_equal(check_complete_report("rep/training/profile.pop"), 1);
	drop_engine(&f->e[0]);
	drop_engine(&f->e[1]);
	{
		/* The second engine's directory is named engine<index>. */
		DIR *d = opendir("rep");
		struct dirent *de;
		int found = 0;

		assert_non_null(d);
		while ((de = readdir(d)))
			if (strncmp(de->d_name, "engine", 6) == 0) {
				char path[512];

				snprintf(path, sizeof(path), "rep/%s/profile.pop", de->d_name);
				assert_true(exists(path));
				found++;
			}
		closedir(d);
		assert_int_equal(found, 1);
	}
}

/* autoReport.executionProfileProgramRunCount keeps that many runs of each
 * program, in run order. */
static void test_run_count_per_program(void **state)
{
	fixture *f = *state;
	sqlite3 *db;

	set_options_env("{\"autoReport.outputExecutionProfile\":\"true\","
	                "\"autoReport.executionProfileProgramRunCount\":3}");
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f->e[0], f->s.m.device), TSI_OK);
	for (int i = 0; i < 5; i++)
		tsi_test_run(f->e[0], 0);
	tsi_test_run(f->e[0], 1);
	assert_int_equal(tsi_engine_num_run_profiles(f->e[0]), 4);
	drop_engine(&f->e[0]);
	assert_int_equal(check_complete_report("profile.pop"), 4);
	db = tsi_test_sqlite_open("profile.pop");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM run WHERE program = 0"), 3);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT program FROM run ORDER BY id DESC LIMIT 1"), 1);
	sqlite3_close(db);
	/* Only the execution profile was asked for: no debug.cbor. */
	assert_false(exists("debug.cbor"));
}

/* The engine name a report's meta records (a static buffer). */
static const char *engine_name_of(const char *path)
{
	static char name[64];
	sqlite3 *db = tsi_test_sqlite_open(path);
	sqlite3_stmt *st = NULL;

	name[0] = '\0';
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'engine_name'",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(name, sizeof(name), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return name;
}

/* One of two writers (test_two_processes_one_directory): compiles as
 * engine `name` in the current directory, tells the parent on `done`,
 * waits for a byte on `go`, runs program 0, and exits 0 when all went
 * well. */
static void writer_child(const char *name, int done, int go)
{
	small_model s;
	tsi_engine *e = NULL;
	char byte = 'x';

	small_model_build(&s);
	if (small_model_compile(&s, &e, name, NULL) != TSI_OK || tsi_engine_wait_reports(e) ||
	    write(done, &byte, 1) != 1 ||
	    read(go, &byte, 1) != 1 || tsi_engine_load(e, s.m.device) != TSI_OK ||
	    tsi_engine_run(e, 0) != TSI_OK)
		_exit(1);
	tsi_engine_free(e);
	tsi_test_model_free(&s.m);
	_exit(0);
}

/*
 * Issue 18: two processes report to one directory, interleaved as
 * badly as they can be: A writes its graph profile, B replaces it with
 * its own, then A and B each add a run. No report may hold one's graph
 * and the other's run: B's report stays in the directory with B's run
 * alone, A's goes whole (graph and run) to a directory of its own, and
 * both processes succeed.
 */
static void test_two_processes_one_directory(void **state)
{
	fixture *f = *state;
	const char *names[2] = {"A", "B"};
	char byte = 'x', own[64];
	pid_t a_pid;

	set_options_env("{\"autoReport.all\":\"true\"}");
	/* f->fd[4i .. 4i+3]: writer i's "done" pipe (read, write end), then
	 * its "go" pipe (read, write end). */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pipe(&f->fd[4 * i]), 0);
		assert_int_equal(pipe(&f->fd[4 * i + 2]), 0);
	}
	for (int i = 0; i < 2; i++) {
		f->child[i] = fork();
		assert_true(f->child[i] >= 0);
		if (f->child[i] == 0)
			writer_child(names[i], f->fd[4 * i + 1], f->fd[4 * i + 2]);
		/* The parent keeps only its own ends, so a child that dies
		 * before it writes makes the read below see end-of-file
		 * instead of waiting for ever. */
		close(f->fd[4 * i + 1]);
		close(f->fd[4 * i + 2]);
		f->fd[4 * i + 1] = f->fd[4 * i + 2] = -1;
		/* A has written its graph profile before B starts compiling. */
		if (read(f->fd[4 * i], &byte, 1) != 1)
			fail_msg("writer %s ended before it had written its graph profile", names[i]);
	}
	for (int i = 0; i < 2; i++) {
		int status;

		assert_int_equal(write(f->fd[4 * i + 3], &byte, 1), 1);
		assert_int_equal(waitpid(f->child[i], &status, 0), f->child[i]);
		f->child[i] = -f->child[i]; /* reaped: the pid stays for the names below */
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	a_pid = -f->child[0];
	/* B's report in the directory, with its one run. */
	assert_int_equal(check_complete_report("profile.pop"), 1);
	assert_string_equal(engine_name_of("profile.pop"), "B");
	/* A's, whole, in its own directory. */
	snprintf(own, sizeof(own), "pid%ld-A/profile.pop", (long)a_pid);
	assert_int_equal(check_complete_report(own), 1);
	assert_string_equal(engine_name_of(own), "A");
	snprintf(own, sizeof(own), "pid%ld-A/debug.cbor", (long)a_pid);
	assert_true(exists(own));
}

/*
 * Issue 18: a directory the report cannot be written in (/sys/kernel
 * refuses new files even to root) gets the system's reason, not SQLite's
 * "No such file or directory".
 */
static void test_unwritable_directory_says_why(void **state)
{
	fixture *f = *state;
	int fd = open("/sys/kernel/tilescope-probe", O_WRONLY | O_CREAT | O_EXCL, 0600);
	const char *why = strerror(errno);

	if (fd >= 0) { /* a machine where it is writable: nothing to show */
		close(fd);
		unlink("/sys/kernel/tilescope-probe");
		skip();
	}
	set_options_env("{\"autoReport.all\":\"true\",\"autoReport.directory\":\"/sys/kernel\"}");
	small_model_build(&f->s);
	assert_int_not_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	assert_null(f->e[0]);
	if (!strstr(tsi_error_last(), why) || strstr(tsi_error_last(), "No such file"))
		fail_msg("the message does not give the reason (%s): %s", why, tsi_error_last());
	set_options_env(NULL);
}

/* Creates an empty file `name`. */
static void touch(const char *name)
{
	FILE *f = fopen(name, "w");

	assert_non_null(f);
	fclose(f);
}

/*
 * Issue 18: the temporaries a killed writer left (a dead pid in their
 * names) go when a new report is written in the directory; a live
 * writer's stay, and so do files of other names.
 */
static void test_stale_temporaries_removed(void **state)
{
	fixture *f = *state;
	char dead_pop[64], dead_dbg[64], live_pop[64];
	pid_t dead;
	int status;

	dead = fork(); /* a pid that no longer runs */
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	snprintf(dead_pop, sizeof(dead_pop), ".profile.pop.%ld.3.tmp", (long)dead);
	snprintf(dead_dbg, sizeof(dead_dbg), "debug.cbor.tmp.%ld.1", (long)dead);
	snprintf(live_pop, sizeof(live_pop), ".profile.pop.%ld.1.tmp", (long)getppid());
	touch(dead_pop);
	touch(dead_dbg);
	touch(live_pop);
	touch(".profile.pop.notes.tmp");
	set_options_env("{\"autoReport.all\":\"true\"}");
	small_model_build(&f->s);
	assert_int_equal(small_model_compile(&f->s, &f->e[0], NULL, NULL), TSI_OK);
	drop_engine(&f->e[0]);
	assert_false(exists(dead_pop));
	assert_false(exists(dead_dbg));
	assert_true(exists(live_pop));
	assert_true(exists(".profile.pop.notes.tmp"));
	assert_true(exists("profile.pop"));
	unlink(live_pop);
	unlink(".profile.pop.notes.tmp");
	set_options_env(NULL);
}

/*
 * Issue 19 writes the graph profile on a thread of its own: a program
 * that compiles and exits without freeing its engine (or waiting) must
 * still leave the complete report, as when it was written before the
 * compile returned.
 */
static void test_exit_without_free_keeps_report(void **state)
{
	fixture *f = *state;
	int status;

	set_options_env("{\"autoReport.all\":\"true\",\"autoReport.directory\":\"gone\"}");
	f->child[0] = fork();
	assert_true(f->child[0] >= 0);
	if (f->child[0] == 0) {
		small_model s;
		tsi_engine *e = NULL;

		small_model_build(&s);
		exit(small_model_compile(&s, &e, NULL, NULL) == TSI_OK ? 0 : 1);
	}
	assert_int_equal(waitpid(f->child[0], &status, 0), f->child[0]);
	f->child[0] = 0;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(check_complete_report("gone/profile.pop"), 0);
	assert_true(exists("gone/debug.cbor"));
	assert_int_equal(count_entries("gone"), 2); /* no temporary left */
	set_options_env(NULL);
}

/* A compile that does not fit, refused by debug.allowOutOfMemory=false,
 * still leaves its graph profile (with the out-of-memory tiles). */
static void test_out_of_memory_compile_keeps_report(void **state)
{
	fixture *f = *state;
	tsi_tensor *big;
	sqlite3 *db;

	set_options_env("{\"autoReport.all\":\"true\",\"debug.allowOutOfMemory\":\"false\"}");
	tsi_test_model_init(&f->m, 1, 4, 1);
	big = tsi_graph_add_variable(f->m.graph, TSI_FLOAT, TSI_SHAPE(200000), "big");
	assert_int_equal(tsi_graph_set_tile_mapping(f->m.graph, big, 0), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f->m.graph, "big", big), TSI_OK);
	f->m.seq = tsi_prog_sequence(f->m.graph, NULL);
	assert_int_equal(tsi_engine_new(&f->e[0], f->m.graph, &f->m.seq, 1, NULL), TSI_ERR_OUT_OF_MEMORY);
	assert_null(f->e[0]);
	check_complete_report("profile.pop");
	db = tsi_test_sqlite_open("profile.pop");
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM oom_tile"), 1);
	sqlite3_close(db);
}

/*
 * The child of the SIGKILL test: compiles tut4 with a report that keeps
 * every run and runs it until killed, so profile.pop is rewritten (copy,
 * add the run, rename) again and again. After each run, once its report
 * is in place, it writes one byte to `ran`.
 */
static void kill_child(const char *dir, int ran)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tut4_sizes sz = {64, 48, 40, 24};
	tsi_device *dev = NULL;
	tsi_graph *g = NULL;
	tsi_engine *e = NULL;
	tut4_model model;
	static float m1[64 * 48], m2[48 * 40], m3[40 * 24], result[64 * 24];
	char json[512], byte = 'r';

	snprintf(json, sizeof(json),
	         "{\"autoReport.all\":\"true\",\"autoReport.directory\":\"%s\","
	         "\"autoReport.executionProfileProgramRunCount\":100000}",
	         dir);
	setenv("POPLAR_ENGINE_OPTIONS", json, 1);
	o.tiles_per_ipu = 64;
	if (tsi_device_new_ipu_model(&dev, &o) || tsi_graph_new(&g, tsi_device_get_target(dev), 1) ||
	    tut4_model_build(&model, g, &sz) ||
	    tsi_engine_new(&e, g, &model.prog, 1, NULL) || tsi_engine_load(e, dev) ||
	    tut4_model_connect(e, &model, m1, m2, m3, result))
		_exit(3);
	tut4_fill_inputs(&sz, m1, m2, m3);
	for (;;)
		if (tsi_engine_run(e, 0) || write(ran, &byte, 1) != 1)
			_exit(4);
}

/*
 * The SIGKILL test waits for states, never for a time: a round lasts as
 * long as the machine needs (an AddressSanitizer build on a busy core
 * compiles tut4 ten times slower than an idle one), bounded only by
 * these deadlines, far above what any machine needs.
 */
#define KILL_TEST_DEADLINE_S 600.0 /* the whole test (idle, ASan: ~15 s) */
#define KILL_WANTED_REWRITES 8     /* kills that must land inside a rewrite */
#define KILL_WANTED_EARLY 4        /* kills before the first run is in */

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

/* Uniform in [0, 1). */
static double uniform(void)
{
	return (double)rand() / ((double)RAND_MAX + 1.0);
}

/* True when `dir` holds a copy of profile.pop being rewritten (the
 * writer's ".profile.pop.<pid>.<n>.tmp"). */
static bool has_profile_temp(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		found = strncmp(de->d_name, ".profile.pop.", 13) == 0 && n > 17 &&
		        strcmp(de->d_name + n - 4, ".tmp") == 0;
	}
	closedir(d);
	return found;
}

/* Waits until `dir` has (want) or no longer has a profile.pop copy;
 * returns the time it was seen, or a negative number at `deadline`. */
static double wait_temp(const char *dir, bool want, double deadline)
{
	double t;

	while ((t = tsi_test_now_s()) < deadline) {
		if (has_profile_temp(dir) == want)
			return t;
		sleep_s(50e-6);
	}
	return -1;
}

/* Waits for the child's byte on `fd` (one run finished): 1 when it came,
 * 0 when the child ended first, -1 at `deadline`. */
static int wait_run(int fd, double deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char byte;
	double left;

	while ((left = deadline - tsi_test_now_s()) > 0) {
		int n = poll(&p, 1, (int)(left * 1000) + 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		return read(fd, &byte, 1) == 1 ? 1 : 0;
	}
	return -1;
}

/* Starts kill_child on round `i` of `f` (dir "round<i>"); the read end
 * of its pipe is f->fd[0]. Returns the start time. */
static double start_kill_child(fixture *f, int i, char *dir, size_t dir_size)
{
	int p[2];

	snprintf(dir, dir_size, "round%d", i);
	assert_int_equal(pipe(p), 0);
	f->fd[0] = p[0];
	f->child[0] = fork();
	assert_true(f->child[0] >= 0);
	if (f->child[0] == 0) {
		close(p[0]);
		kill_child(dir, p[1]);
	}
	close(p[1]);
	return tsi_test_now_s();
}

/* Kills the round's child, reaps it and closes its pipe; fails the test
 * if it had ended on its own (a failed compile or run). */
static void end_kill_child(fixture *f, int round)
{
	int status;

	kill(f->child[0], SIGKILL);
	assert_int_equal(waitpid(f->child[0], &status, 0), f->child[0]);
	f->child[0] = 0;
	close(f->fd[0]);
	f->fd[0] = -1;
	if (WIFEXITED(status))
		fail_msg("round %d: the model exited with %d before it was killed", round,
		         WEXITSTATUS(status));
}

/*
 * Kills a model with SIGKILL at random moments while it rewrites its
 * report: profile.pop is always absent or complete. A round waits for the
 * first run to be in the report (the child says so on a pipe), watches
 * one rewrite to learn how long the copy lives on this machine, then
 * kills at a random moment of the next rewrite; a kill that leaves the
 * copy behind landed inside it. Rounds go on until KILL_WANTED_REWRITES
 * kills have landed inside a rewrite. A few rounds instead kill at a
 * random moment before the first run is in (compile, the graph
 * profile's write and first publish), scaled by how long that took in
 * the previous round.
 */
static void test_sigkill_never_leaves_partial_report(void **state)
{
	fixture *f = *state;
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	double t0 = tsi_test_now_s(), deadline = t0 + KILL_TEST_DEADLINE_S, to_first_run = -1;
	int rounds = 0, inside = 0, after = 0, early = 0, early_reports = 0;

	srand(seed);
	while (inside < KILL_WANTED_REWRITES || early < KILL_WANTED_EARLY) {
		char dir[64], path[128];
		bool early_round = to_first_run > 0 && early < KILL_WANTED_EARLY && rounds % 2;
		double start, seen, gone, life;
		int got;

		if (tsi_test_now_s() > deadline)
			fail_msg("after %d rounds in %.0f s only %d kills landed inside a rewrite of "
			         "profile.pop (%d wanted) and %d before the first run (%d wanted); "
			         "seed %u",
			         rounds, tsi_test_now_s() - t0, inside, KILL_WANTED_REWRITES, early,
			         KILL_WANTED_EARLY, seed);
		start = start_kill_child(f, rounds, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/profile.pop", dir);
		if (early_round) {
			sleep_s(uniform() * to_first_run);
			end_kill_child(f, rounds);
			early++;
			if (exists(path)) {
				early_reports++;
				check_complete_report(path);
			}
			rounds++;
			continue;
		}
		got = wait_run(f->fd[0], deadline);
		if (got <= 0)
			fail_msg("round %d: %s", rounds,
			         got == 0 ? "the model ended before its first run was in the report"
			                  : "no run of the model had finished by the deadline");
		to_first_run = tsi_test_now_s() - start;
		assert_true(check_complete_report(path) >= 1);
		/* One whole rewrite, to learn how long the copy lives here. */
		seen = wait_temp(dir, true, deadline);
		gone = seen < 0 ? -1 : wait_temp(dir, false, deadline);
		if (gone < 0)
			fail_msg("round %d: no rewrite of %s began and ended by the deadline", rounds, path);
		life = gone - seen;
		/* The next one, killed at a random moment of its life. */
		if (wait_temp(dir, true, deadline) < 0)
			fail_msg("round %d: the second rewrite of %s never began", rounds, path);
		sleep_s(uniform() * life);
		end_kill_child(f, rounds);
		if (has_profile_temp(dir))
			inside++;
		else
			after++;
		/* Whatever the moment, the report is whole, with the runs it had. */
		assert_true(check_complete_report(path) >= 1);
		rounds++;
	}
	print_message("SIGKILL: %d rounds in %.1f s (seed %u): %d kills inside a rewrite, %d just "
	              "after one, %d before the first run (%d of them left a report); every "
	              "profile.pop complete\n",
	              rounds, tsi_test_now_s() - t0, seed, inside, after, early, early_reports);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nothing_without_options, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_all_writes_both_files, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_first_run_joins_graph_profile, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_graph_profile_alone_appears, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_environment_over_code, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_bad_environment, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_engines_two_subdirectories, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_run_count_per_program, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_two_processes_one_directory, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporaries_removed, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_unwritable_directory_says_why, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_exit_without_free_keeps_report, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory_compile_keeps_report, fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_sigkill_never_leaves_partial_report, fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
