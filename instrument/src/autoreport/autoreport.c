/*
 * The autoReport driver: what POPLAR_ENGINE_OPTIONS' autoReport.* options
 * make an engine write, where, and when.
 *
 * - Where: autoReport.directory (default: the current directory), created
 *   if missing. When one process makes several engines that report to the
 *   same directory, each gets a subdirectory named after the engine's name
 *   (tsi_engine_new_named) or "engine<creation index>"; the first engine's
 *   files, written before anyone knew a second would come, move into their
 *   own subdirectory at that moment (rename, so they stay complete).
 * - When: the graph profile from the moment the compiler model finishes
 *   (before an out-of-memory program is refused, so a failed compile
 *   still has a report): the files are created then and filled by a
 *   thread of their own while the program loads and runs, complete by the
 *   time the first run's profile is added or the engine is freed (issue
 *   19: writing it took about 5 % of a profiled large run); execution
 *   data after each kept run (streamAtEachRun, the default) or once when
 *   the engine is freed. profile.pop stays under its temporary name until
 *   the first runs join it (no copy of the whole report on the run's
 *   thread) or something waits for it (wait_reports, a graph report, a
 *   second engine moving the files, freeing the engine, exit).
 * - What: profile.pop (graph and execution profiles), debug.cbor
 *   (outputDebugInfo). Nothing at all when no output is asked for.
 * - Whose: every engine's report has an identity (128 random bits, in
 *   profile.pop's meta "report_id" and debug.cbor's "report"), so a reader
 *   can tell a pair of files that belong together from a pair mixed by
 *   two writers. Two processes reporting to one directory: the later
 *   graph profile replaces the earlier; the engine whose report was
 *   replaced notices when it next adds a run (the file is no longer its
 *   identity), says so on stderr, and writes its whole report again in a
 *   directory of its own, "<dir>/pid<PID>-<engine>", so no report ever
 *   holds one process's graph and another's runs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* pthread_setname_np */
#endif
#include <tilescope/alloc.h>
#include "autoreport-private.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/random.h>
#include <unistd.h>

#ifndef TSI_VERSION
#define TSI_VERSION "unknown"
#endif

struct tsi_autoreport {
	tsi_engine_config cfg_copy;      /* the flags we act on (strings not owned) */
	const tsi_options *options;      /* the engine's effective options (borrowed) */
	char *engine_name;               /* or NULL */
	unsigned engine_index;
	char *command_line;              /* or NULL */
	int64_t created_unix_ns;
	char report_id[33];              /* 32 hex digits: this report's identity */
	tsi_report_meta meta;            /* what profile.pop's meta says (strings borrowed) */
	struct dir_entry *entry;         /* this engine's place in the registry */

	const tsi_graph_profile *gp;     /* set by the hook; owned by the engine */
	tsi_report_writer *writer;       /* profile.pop, once written */
	size_t runs_written;

	/* The graph profile's files, written by a thread of their own while
	 * the program loads and runs (see write_in_background). Everything
	 * below is the job's until it is joined (under job_lock). */
	pthread_mutex_t job_lock;        /* serialises joins */
	pthread_t job;
	bool job_running;                /* started and not yet joined */
	tsi_report_writer *job_writer;   /* created; the thread writes it */
	char *job_debug_path;            /* debug.cbor to write, or NULL */
	char *job_earlier_debug;         /* debug.cbor to remove before profile.pop is first
	                                    renamed into place (remove_earlier_debug), or NULL */
	int job_rc;                      /* the job's first failure */
	char job_message[1024];
	bool job_wrote_profile, job_wrote_debug;

	int error;                       /* first failure, TSI_OK when none */
	char message[1024];
};

/* --- The registry of report directories ---------------------------------- */

/*
 * One engine that reports to a directory. Entries outlive their engines
 * (the files stay), so that a later engine can still move an earlier
 * engine's files into a subdirectory.
 */
typedef struct dir_entry {
	struct dir_entry *next;
	char *dir;               /* absolute report directory given */
	char *subdir;            /* the engine's own subdirectory name */
	bool in_root;            /* files are in dir itself, not dir/subdir */
	tsi_autoreport *owner;   /* NULL once the engine is freed */
	bool wrote_profile, wrote_debug;
} dir_entry;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static dir_entry *registry;

static void job_join(tsi_autoreport *ar, bool registry_locked, bool publish);

/* mkdir -p `path`. Returns 0, or -1 with errno set. */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* `dir`/`name` in a malloc'd string (name may be NULL: dir itself). */
static char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + (name ? strlen(name) + 2 : 1);
	char *s = tsb_malloc(n);

	if (!s)
		return NULL;
	if (name)
		snprintf(s, n, "%s/%s", dir, name);
	else
		snprintf(s, n, "%s", dir);
	return s;
}

/* The directory an entry's files are in (malloc'd). */
static char *entry_dir(const dir_entry *e)
{
	return path_join(e->dir, e->in_root ? NULL : e->subdir);
}

/* A subdirectory name for an engine: its name with '/' replaced, or
 * "engine<index>"; made unique among the entries of `dir`. */
static char *subdir_name(const char *dir, const char *engine_name, unsigned index)
{
	char base[256], name[300];
	unsigned suffix = 1;

	if (engine_name && *engine_name && strcmp(engine_name, ".") && strcmp(engine_name, "..")) {
		snprintf(base, sizeof(base), "%s", engine_name);
		for (char *p = base; *p; p++)
			if (*p == '/')
				*p = '_';
	} else {
		snprintf(base, sizeof(base), "engine%u", index);
	}
	snprintf(name, sizeof(name), "%s", base);
	for (;;) {
		bool taken = false;

		for (dir_entry *e = registry; e && !taken; e = e->next)
			taken = strcmp(e->dir, dir) == 0 && strcmp(e->subdir, name) == 0;
		if (!taken)
			break;
		snprintf(name, sizeof(name), "%s.%u", base, ++suffix);
	}
	return tsb_strdup(name);
}

/*
 * Moves the files of `e` from the root of its directory into its
 * subdirectory, telling a live writer where its file went. Called with the
 * registry locked.
 */
static int entry_move_to_subdir(dir_entry *e)
{
	char *sub = path_join(e->dir, e->subdir);
	char *from = NULL, *to = NULL;
	int rc = TSI_OK;

	if (!sub)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory moving a report");
	if (e->owner)
		job_join(e->owner, true, true); /* its files must be complete to move */
	if (make_dirs(sub) != 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot create report directory '%s': %s", sub,
		                   strerror(errno));
		goto out;
	}
	if (e->wrote_profile) {
		from = path_join(e->dir, "profile.pop");
		to = path_join(sub, "profile.pop");
		if (!from || !to) {
			rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory moving a report");
			goto out;
		}
		if (e->owner && e->owner->writer)
			rc = tsi_report_writer_move(e->owner->writer, to);
		else if (rename(from, to) != 0)
			rc = tsi_set_error(TSI_ERR_IO, "cannot move report '%s' to '%s': %s", from, to,
			                   strerror(errno));
		if (rc)
			goto out;
		free(from);
		free(to);
		from = to = NULL;
	}
	if (e->wrote_debug) {
		from = path_join(e->dir, "debug.cbor");
		to = path_join(sub, "debug.cbor");
		if (!from || !to) {
			rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory moving a report");
			goto out;
		}
		if (rename(from, to) != 0) {
			rc = tsi_set_error(TSI_ERR_IO, "cannot move '%s' to '%s': %s", from, to,
			                   strerror(errno));
			goto out;
		}
	}
	e->in_root = false;
	tsi_log(TSI_LOG_INFO, "AUTOREPORT",
	        "A second engine reports to '%s': the first engine's report moved to '%s'", e->dir,
	        sub);
out:
	free(sub);
	free(from);
	free(to);
	return rc;
}

/*
 * Registers an engine reporting to `dir` (absolute). The first engine of a
 * directory writes into it directly; the next ones each get a
 * subdirectory, and the first one's files move into theirs.
 */
static int registry_add(tsi_autoreport *ar, const char *dir)
{
	dir_entry *e = tsb_calloc(1, sizeof(*e));
	dir_entry *first = NULL;
	size_t n_same = 0;
	int rc = TSI_OK;

	if (!e)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory registering a report");
	pthread_mutex_lock(&registry_lock);
	for (dir_entry *it = registry; it; it = it->next)
		if (strcmp(it->dir, dir) == 0) {
			n_same++;
			if (it->in_root)
				first = it;
		}
	e->dir = tsb_strdup(dir);
	e->subdir = subdir_name(dir, ar->engine_name, ar->engine_index);
	if (!e->dir || !e->subdir) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory registering a report");
		goto fail;
	}
	e->in_root = n_same == 0;
	if (first) {
		rc = entry_move_to_subdir(first);
		if (rc)
			goto fail;
	}
	e->owner = ar;
	e->next = registry;
	registry = e;
	ar->entry = e;
	pthread_mutex_unlock(&registry_lock);
	return TSI_OK;
fail:
	pthread_mutex_unlock(&registry_lock);
	free(e->dir);
	free(e->subdir);
	free(e);
	return rc;
}

/* --- Process facts ------------------------------------------------------- */

/* The command line of this process, arguments joined by spaces, from
 * /proc/self/cmdline; NULL when unavailable. */
static char *read_command_line(void)
{
	FILE *f = fopen("/proc/self/cmdline", "rb");
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n == 0)
		return NULL;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return tsb_strdup(buf);
}

/* --- The driver ----------------------------------------------------------- */

/* Records the first failure (message from the thread-local error). */
static int keep_failure(tsi_autoreport *ar, int rc)
{
	if (rc && !ar->error) {
		ar->error = rc;
		snprintf(ar->message, sizeof(ar->message), "%s", tsi_error_last());
		tsi_log(TSI_LOG_ERR, "AUTOREPORT", "%s", ar->message);
	}
	return rc;
}

/*
 * A report identity: 128 bits from getrandom(), or, where that fails, from
 * the clock, the pid and a counter mixed (unique enough to tell two
 * writers apart, which is all it is for). 32 hex digits and a NUL.
 */
static void make_report_id(char out[33], int64_t now_ns)
{
	static unsigned long counter;
	uint64_t w[2];

	if (getrandom(w, sizeof(w), GRND_NONBLOCK) != (ssize_t)sizeof(w)) {
		uint64_t x = (uint64_t)now_ns ^ ((uint64_t)getpid() << 32) ^
		             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

		for (int i = 0; i < 2; i++) { /* splitmix64 */
			x += 0x9e3779b97f4a7c15ull;
			uint64_t z = x;
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			w[i] = z ^ (z >> 31);
		}
	}
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)w[0], (unsigned long long)w[1]);
}

int tsi_autoreport_new(tsi_autoreport **out, const tsi_engine_config *cfg,
                       const tsi_options *effective, const char *engine_name,
                       unsigned engine_index)
{
	tsi_autoreport *ar = NULL;
	char *dir = NULL;
	char resolved[PATH_MAX];
	struct timespec ts;
	int rc;

	*out = NULL;
	if (!tsi_engine_config_wants_report(cfg))
		return TSI_OK;
	ar = tsb_calloc(1, sizeof(*ar));
	if (!ar)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory preparing autoReport");
	pthread_mutex_init(&ar->job_lock, NULL);
	ar->cfg_copy = *cfg;
	ar->cfg_copy.report_directory = NULL;
	ar->cfg_copy.graph_report_dest = NULL;
	ar->options = effective;
	ar->engine_index = engine_index;
	if (engine_name && !(ar->engine_name = tsb_strdup(engine_name))) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory preparing autoReport");
		goto fail;
	}
	ar->command_line = read_command_line();
	clock_gettime(CLOCK_REALTIME, &ts);
	ar->created_unix_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	make_report_id(ar->report_id, ar->created_unix_ns);

	dir = tsb_strdup(cfg->report_directory && *cfg->report_directory ? cfg->report_directory : ".");
	if (!dir) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory preparing autoReport");
		goto fail;
	}
	if (make_dirs(dir) != 0) {
		rc = tsi_set_error(TSI_ERR_IO,
		                   "cannot create autoReport.directory '%s': %s", dir, strerror(errno));
		goto fail;
	}
	if (!realpath(dir, resolved)) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot resolve autoReport.directory '%s': %s", dir,
		                   strerror(errno));
		goto fail;
	}
	rc = registry_add(ar, resolved);
	if (rc)
		goto fail;
	free(dir);
	*out = ar;
	return TSI_OK;
fail:
	free(dir);
	free(ar->engine_name);
	free(ar->command_line);
	free(ar);
	return rc;
}

/* Makes the entry's directory and sets *path to `dir/name` in it
 * (malloc'd). Returns TSI_OK or a negative code with the message set. */
static int output_path(tsi_autoreport *ar, const char *name, char **path)
{
	char *dir;
	int rc = TSI_OK;

	*path = NULL;
	pthread_mutex_lock(&registry_lock);
	dir = entry_dir(ar->entry);
	pthread_mutex_unlock(&registry_lock);
	if (!dir)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory naming a report");
	if (make_dirs(dir) != 0)
		rc = tsi_set_error(TSI_ERR_IO, "cannot create report directory '%s': %s", dir,
		                   strerror(errno));
	else if (!(*path = path_join(dir, name)))
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory naming a report");
	free(dir);
	return rc;
}

/* --- Writing the graph profile in the background --------------------------- */

/* Writes debug.cbor at `path`, logging as the user's progress bar. */
static int write_debug(tsi_autoreport *ar, const char *path)
{
	double start = tsi_monotonic_seconds();
	int rc;

	tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Writing debug information to '%s'", path);
	TSI_TRACE_BEGINF("Writing debug.cbor");
	rc = tsi_debug_cbor_write(path, ar->gp, &ar->meta);
	TSI_TRACE_END();
	if (!rc)
		tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Wrote debug information to '%s' in %.3f s", path,
		        tsi_monotonic_seconds() - start);
	return rc;
}

/* Fills profile.pop (created already); a copy is shown at once (see
 * job_main), the file itself is renamed into place when the first run
 * joins it or whoever waits for the job publishes it. */
static int write_profile(tsi_autoreport *ar, tsi_report_writer *w)
{
	double start = tsi_monotonic_seconds();
	int rc;

	TSI_TRACE_BEGINF("Writing profile.pop");
	rc = tsi_report_writer_write_graph(w);
	TSI_TRACE_END();
	if (!rc)
		tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Wrote the graph profile to '%s' in %.3f s",
		        tsi_report_writer_path(w), tsi_monotonic_seconds() - start);
	return rc;
}

/*
 * The pair rule (db-schema/profile.sql): the directory holds a matching
 * profile.pop and debug.cbor, or profile.pop alone, at every moment, so
 * a reader (or a kill) at any moment finds one report. The debug.cbor
 * of an earlier report therefore goes before this report's profile.pop
 * is first renamed into place; this report's debug.cbor follows it.
 */
static void remove_earlier_debug(tsi_autoreport *ar)
{
	/* Its path was named before the job began: the job takes no lock of
	 * the registry's (join_jobs_at_exit joins it holding one). */
	if (ar->job_earlier_debug && unlink(ar->job_earlier_debug) == 0)
		tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Removed the earlier report's '%s'",
		        ar->job_earlier_debug);
}

/* The job: profile.pop, then debug.cbor. Its outcome waits in the job_*
 * fields for job_join. */
static void *job_main(void *arg)
{
	tsi_autoreport *ar = arg;
	int rc = TSI_OK;

	if (pvti_recording_())
		pvti_thread_set_name("autoReport writer");
	if (ar->job_writer) {
		rc = write_profile(ar, ar->job_writer);
		if (!rc)
			remove_earlier_debug(ar);
		/* No run will join it: in place at once, as a graph profile
		 * alone always was. Runs will: a copy is shown now, so the
		 * graph profile is there while the program runs (and after a
		 * crash), and the first run replaces it without a copy. */
		if (!rc && !ar->cfg_copy.report_execution)
			rc = tsi_report_writer_publish(ar->job_writer);
		else if (!rc)
			rc = tsi_report_writer_show_graph(ar->job_writer);
		ar->job_wrote_profile = rc == TSI_OK;
	}
	if (!rc && ar->job_debug_path) {
		rc = write_debug(ar, ar->job_debug_path);
		ar->job_wrote_debug = rc == TSI_OK;
	}
	ar->job_rc = rc;
	if (rc)
		snprintf(ar->job_message, sizeof(ar->job_message), "%s", tsi_error_last());
	return NULL;
}

/* Takes the job's outcome: the writer for later runs, the files for the
 * registry, a failure (kept as the report's error, and logged). Called
 * once per job, under job_lock. */
static void job_take(tsi_autoreport *ar, bool registry_locked)
{
	if (ar->job_rc) {
		tsi_report_writer_free(ar->job_writer);
		if (!ar->error) {
			ar->error = ar->job_rc;
			snprintf(ar->message, sizeof(ar->message), "%s", ar->job_message);
			tsi_log(TSI_LOG_ERR, "AUTOREPORT", "%s", ar->message);
		}
	} else {
		ar->writer = ar->job_writer;
	}
	ar->job_writer = NULL;
	free(ar->job_debug_path);
	ar->job_debug_path = NULL;
	free(ar->job_earlier_debug);
	ar->job_earlier_debug = NULL;
	if (!registry_locked)
		pthread_mutex_lock(&registry_lock);
	if (ar->job_wrote_profile && ar->writer)
		ar->entry->wrote_profile = true;
	if (ar->job_wrote_debug)
		ar->entry->wrote_debug = true;
	if (!registry_locked)
		pthread_mutex_unlock(&registry_lock);
}

/*
 * Renames the graph profile, complete, into place if it is not there yet
 * (a failure is kept as the report's error). Called on the thread that
 * joined the job.
 */
static void publish_profile(tsi_autoreport *ar)
{
	int rc;

	if (!ar->writer || tsi_report_writer_is_published(ar->writer))
		return;
	rc = tsi_report_writer_publish(ar->writer);
	if (rc) {
		keep_failure(ar, rc);
		tsi_report_writer_free(ar->writer);
		ar->writer = NULL;
	}
}

/*
 * Waits for the background job, if one runs, and takes its outcome; with
 * `publish`, the graph profile is then renamed into place (the callers
 * that add runs leave it open for them instead). `registry_locked`: the
 * caller holds registry_lock (the job takes no lock of the registry's,
 * so that cannot deadlock).
 */
static void job_join(tsi_autoreport *ar, bool registry_locked, bool publish)
{
	pthread_mutex_lock(&ar->job_lock);
	if (ar->job_running) {
		pthread_join(ar->job, NULL);
		ar->job_running = false;
		job_take(ar, registry_locked);
	}
	if (publish)
		publish_profile(ar);
	pthread_mutex_unlock(&ar->job_lock);
}

/*
 * At exit, the jobs still writing finish first: a program that compiles
 * and returns from main (or calls exit) without freeing its engine still
 * leaves its complete report, as it did when the report was written
 * before the compile returned. _exit and signals end them; the files are
 * then never renamed into place (a killed writer's stale temporary).
 */
static void join_jobs_at_exit(void)
{
	pthread_mutex_lock(&registry_lock);
	for (dir_entry *e = registry; e; e = e->next)
		if (e->owner)
			job_join(e->owner, true, true);
	pthread_mutex_unlock(&registry_lock);
}

/* fork: the registry stays consistent across it (prepare / parent), and
 * a child, which has none of its parent's threads, forgets their jobs
 * instead of ever joining them (their files are the parent's to finish).
 * Registered after libtilescope-pvti's handlers (a constructor), so this
 * prepare runs before pvti's takes its locks: a thread joining a job
 * under registry_lock waits for a job that may be inside a tracepoint. */
static void fork_prepare_cb(void)
{
	pthread_mutex_lock(&registry_lock);
}

static void fork_parent_cb(void)
{
	pthread_mutex_unlock(&registry_lock);
}

static void fork_child_cb(void)
{
	for (dir_entry *e = registry; e; e = e->next) {
		tsi_autoreport *ar = e->owner;

		if (!ar)
			continue;
		pthread_mutex_init(&ar->job_lock, NULL); /* maybe held at the fork */
		if (ar->job_running) {
			ar->job_running = false;
			ar->job_writer = NULL; /* the parent's thread's connection: left alone */
			ar->job_debug_path = NULL;
			ar->job_earlier_debug = NULL;
		}
		/* An unpublished report is the parent's open file, to finish. */
		if (ar->writer && !tsi_report_writer_is_published(ar->writer))
			ar->writer = NULL;
	}
	pthread_mutex_unlock(&registry_lock);
}

static void register_exit_join(void)
{
	atexit(join_jobs_at_exit);
	pthread_atfork(fork_prepare_cb, fork_parent_cb, fork_child_cb);
}

/*
 * Starts the job on its own thread (signals blocked: handlers run on the
 * program's threads). False when no thread could be had; the caller then
 * does the work itself.
 */
static bool job_start(tsi_autoreport *ar)
{
	static pthread_once_t exit_join_once = PTHREAD_ONCE_INIT;
	sigset_t all, old;
	int rc;

	pthread_once(&exit_join_once, register_exit_join);

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&ar->job, NULL, job_main, ar);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return false;
	pthread_setname_np(ar->job, "autoreport"); /* as ps and perf show it */
	ar->job_running = true;
	return true;
}

/*
 * The hook: the compiler model has finished and `gp` is final. The files
 * are created here, so a directory that cannot take them fails the
 * compile at once with the system's reason; filling them (about a second
 * for the large model, issue 19) is left to a thread of its own, which
 * runs while the program loads and runs instead of before. Whatever reads
 * the report waits for it first: adding a run, moving the files for a
 * second engine, POPLAR_GRAPH_REPORT_DEST, freeing the engine. A graph
 * with out-of-memory tiles is written here and now, as its compile may
 * yet be refused and its profile freed when this returns.
 */
void tsi_autoreport_graph_ready_cb(const struct tsi_graph_profile *gp, void *user_data)
{
	tsi_autoreport *ar = user_data;
	tsi_report_meta meta;
	tsi_report_writer *w = NULL;
	char *path = NULL, *debug_path = NULL;
	int rc;

	if (!ar || ar->error)
		return;
	ar->gp = gp;
	memset(&meta, 0, sizeof(meta));
	meta.options = ar->options;
	meta.command_line = ar->command_line;
	meta.created_unix_ns = ar->created_unix_ns;
	meta.report_id = ar->report_id;
	meta.tilescope_version = TSI_VERSION;
	meta.engine_name = ar->engine_name;
	meta.lowered_vars = ar->cfg_copy.report_lowered_vars;
	meta.include_flops = ar->cfg_copy.include_flops;
	meta.include_cycles = ar->cfg_copy.include_cycles;
	ar->meta = meta;
	if (ar->cfg_copy.report_graph || ar->cfg_copy.report_execution) {
		if (keep_failure(ar, output_path(ar, "profile.pop", &path)))
			return;
		tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Writing the graph profile to '%s'", path);
		rc = tsi_report_writer_create(&w, path, gp, &ar->meta);
		free(path);
		if (keep_failure(ar, rc))
			return;
	}
	if (ar->cfg_copy.report_debug_info &&
	    keep_failure(ar, output_path(ar, "debug.cbor", &debug_path))) {
		tsi_report_writer_free(w);
		return;
	}
	/* The files cannot move while the job runs (moving joins it first). */
	free(ar->job_earlier_debug);
	ar->job_earlier_debug = NULL;
	if (w && output_path(ar, "debug.cbor", &ar->job_earlier_debug) != TSI_OK)
		ar->job_earlier_debug = NULL; /* nothing to remove is no failure */
	ar->job_writer = w;
	ar->job_debug_path = debug_path;
	ar->job_rc = TSI_OK;
	ar->job_wrote_profile = ar->job_wrote_debug = false;
	if (gp->n_oom_tiles == 0 && job_start(ar))
		return;
	job_main(ar); /* here and now */
	pthread_mutex_lock(&ar->job_lock);
	job_take(ar, false);
	publish_profile(ar); /* the compile may yet be refused: the report must be there */
	pthread_mutex_unlock(&ar->job_lock);
	if (ar->error) /* the caller's thread says why */
		tsi_set_error(ar->error, "%s", ar->message);
}

const char *tsi_autoreport_profile_path(tsi_autoreport *ar)
{
	if (ar)
		job_join(ar, false, true);
	return ar && ar->writer ? tsi_report_writer_path(ar->writer) : NULL;
}

int tsi_autoreport_error(const tsi_autoreport *ar, const char **message)
{
	if (message)
		*message = ar && ar->error ? ar->message : "";
	return ar ? ar->error : TSI_OK;
}

/*
 * Another process replaced this engine's report with its own (two
 * processes reporting to one directory). Writes the whole report again,
 * graph, runs and debug.cbor, into "<dir>/pid<PID>-<engine>" beside it and
 * says so on stderr whatever the log level: the user looking for the
 * report in <dir> must learn where it went.
 */
static int write_own_report(tsi_autoreport *ar, const tsi_run_profile *const *runs, size_t n)
{
	const char *old_path = tsi_report_writer_path(ar->writer);
	char *dir = tsb_strdup(old_path), *slash, *own = NULL, *path = NULL, *dbg = NULL;
	char leaf[64];
	tsi_report_writer *w = NULL;
	int rc;

	if (!dir)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory moving a report");
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (ar->engine_name)
		snprintf(leaf, sizeof(leaf), "pid%ld-%.40s", (long)getpid(), ar->engine_name);
	else
		snprintf(leaf, sizeof(leaf), "pid%ld-engine%u", (long)getpid(), ar->engine_index);
	for (char *p = leaf; *p; p++)
		if (*p == '/')
			*p = '_';
	own = path_join(slash ? dir : ".", leaf);
	path = own ? path_join(own, "profile.pop") : NULL;
	dbg = own ? path_join(own, "debug.cbor") : NULL;
	if (!path || !dbg) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory moving a report");
		goto out;
	}
	tsi_log_always("AUTOREPORT",
	               "'%s' was replaced by another process's report; this engine's report goes "
	               "to '%s' instead", old_path, own);
	if (make_dirs(own) != 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot create report directory '%s': %s", own,
		                   strerror(errno));
		goto out;
	}
	rc = tsi_report_writer_new(&w, path, ar->gp, &ar->meta);
	if (!rc)
		rc = tsi_report_writer_add_runs(w, runs, n);
	if (!rc && ar->cfg_copy.report_debug_info)
		rc = tsi_debug_cbor_write(dbg, ar->gp, &ar->meta);
	if (!rc) {
		tsi_report_writer_free(ar->writer);
		ar->writer = w;
		w = NULL;
	}
out:
	tsi_report_writer_free(w);
	free(dir);
	free(own);
	free(path);
	free(dbg);
	return rc;
}

/* Writes runs[0..n) into profile.pop (the writer skips those it has). */
static int write_runs(tsi_autoreport *ar, const tsi_run_profile *const *runs, size_t n)
{
	int rc;

	if (!ar->writer || n <= ar->runs_written)
		return TSI_OK;
	tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Adding %zu run%s to '%s'", n - ar->runs_written,
	        n - ar->runs_written == 1 ? "" : "s", tsi_report_writer_path(ar->writer));
	double start = tsi_monotonic_seconds();
	TSI_TRACE_BEGINF("Adding runs to profile.pop");
	rc = tsi_report_writer_add_runs(ar->writer, runs, n);
	TSI_TRACE_END();
	if (rc && tsi_report_writer_was_replaced(ar->writer))
		rc = write_own_report(ar, runs, n);
	if (keep_failure(ar, rc))
		return rc;
	tsi_log(TSI_LOG_INFO, "AUTOREPORT", "Added %zu run%s in %.3f s", n - ar->runs_written,
	        n - ar->runs_written == 1 ? "" : "s", tsi_monotonic_seconds() - start);
	ar->runs_written = n;
	return TSI_OK;
}

int tsi_autoreport_wait(tsi_autoreport *ar)
{
	if (!ar)
		return TSI_OK;
	job_join(ar, false, true);
	return ar->error ? tsi_set_error(ar->error, "%s", ar->message) : TSI_OK;
}

/*
 * Waits for the job, adds the runs not yet written and publishes: the
 * first runs go into the graph profile's own file before it is renamed
 * into place (no copy of the report), later ones into a copy.
 */
static int finish_with_runs(tsi_autoreport *ar, const tsi_run_profile *const *runs, size_t n)
{
	int rc;

	job_join(ar, false, false);
	if (ar->error)
		return tsi_set_error(ar->error, "%s", ar->message);
	rc = ar->cfg_copy.report_execution ? write_runs(ar, runs, n) : TSI_OK;
	pthread_mutex_lock(&ar->job_lock);
	publish_profile(ar); /* when no run went in (a failure to add them included) */
	pthread_mutex_unlock(&ar->job_lock);
	if (!rc && ar->error)
		rc = tsi_set_error(ar->error, "%s", ar->message);
	return rc;
}

int tsi_autoreport_add_runs(tsi_autoreport *ar, const tsi_run_profile *const *runs,
                            size_t n_runs)
{
	if (!ar || !ar->cfg_copy.report_execution)
		return TSI_OK;
	if (!ar->cfg_copy.stream_at_each_run) /* runs written by tsi_autoreport_flush */
		return tsi_autoreport_wait(ar);
	return finish_with_runs(ar, runs, n_runs);
}

int tsi_autoreport_flush(tsi_autoreport *ar, const tsi_run_profile *const *runs, size_t n_runs)
{
	if (!ar)
		return TSI_OK;
	return finish_with_runs(ar, runs, n_runs);
}

/*
 * The real path of directory `path`, or of its parent joined with its
 * last name when it does not exist yet (malloc'd; NULL when neither is
 * there or on no memory).
 */
static char *real_dir(const char *path)
{
	char *real = realpath(path, NULL), *copy, *slash, *parent, *out = NULL;

	if (real || !(copy = tsb_strdup(path)))
		return real;
	slash = strrchr(copy, '/');
	if (slash && slash[1]) {
		*slash = 0;
		parent = realpath(slash == copy ? "/" : copy, NULL);
		if (parent) {
			size_t n = strlen(parent) + strlen(slash + 1) + 2;

			if ((out = tsb_malloc(n)))
				snprintf(out, n, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "",
				         slash + 1);
			free(parent);
		}
	}
	free(copy);
	return out;
}

/*
 * `to` written relative to `from`, both absolute and real ("." when they
 * are one directory, "../report" from a sibling): the link a trace keeps
 * to its report, so that the two moved together (a run folder copied
 * elsewhere) still find each other. malloc'd, NULL on no memory.
 */
static char *relative_dir(const char *from, const char *to)
{
	size_t common = 0, ups = 0, n;
	const char *rest;
	char *out, *p;

	/* The longest common prefix ending at a component boundary. */
	for (size_t i = 0;; i++) {
		bool end_from = from[i] == 0 || from[i] == '/', end_to = to[i] == 0 || to[i] == '/';

		if (end_from && end_to)
			common = i;
		if (from[i] != to[i] || !from[i])
			break;
	}
	for (const char *q = from + common; *q; q++)
		if (*q == '/' && q[1] && q[1] != '/')
			ups++;
	rest = to + common;
	rest += strspn(rest, "/");
	n = ups * 3 + strlen(rest) + 2;
	if (!(out = tsb_malloc(n)))
		return NULL;
	p = out;
	for (size_t i = 0; i < ups; i++, p += 3)
		memcpy(p, "../", 3);
	if (*rest)
		strcpy(p, rest);
	else if (ups)
		p[-1] = 0; /* "../.." */
	else
		strcpy(p, ".");
	return out;
}

/*
 * Where the trace being written should say the report is: `dir` (absolute)
 * relative to the trace file's directory, both as real paths. When the
 * trace's path cannot be had or resolved, `dir` as it is (absolute, which
 * readers take too). malloc'd, NULL on no memory.
 */
static char *link_dir(const char *dir)
{
	char *trace = pvti_dup_file_name(), *slash, *from = NULL, *to = NULL, *out = NULL;

	slash = trace ? strrchr(trace, '/') : NULL;
	if (slash)
		*slash = 0;
	if (trace)
		from = realpath(slash ? (slash == trace ? "/" : trace) : ".", NULL);
	if (from)
		to = real_dir(dir);
	out = from && to ? relative_dir(from, to) : tsb_strdup(dir);
	free(to);
	free(from);
	free(trace);
	return out;
}

/*
 * Issue 16: the System Analyser opens the report of a run or compile span
 * in the Graph Analyser. The span carries, as its event metadata,
 *   {"autoReport": {"directory": D, "subdirectory": S, "engine": E,
 *                   "run": N}}
 * D the report's directory now, relative to the trace file's directory
 * (issue 26: so that a run folder holding both still links once moved;
 * absolute only when the trace's own place cannot be resolved), S the
 * subdirectory its files move to should a later engine report to D too
 * (so a reader can follow them), E the engine's name (or "engine<index>"
 * when it has none), and N the run's index in profile.pop (run spans of
 * kept runs only). Nothing when not tracing or when no profile.pop is
 * written.
 */
void tsi_autoreport_trace_span(tsi_autoreport *ar, int64_t run)
{
	cJSON *root, *o;
	char *abs_dir, *dir, *subdir, *json = NULL, name[32];

	if (!ar || !pvti_recording_() ||
	    !(ar->cfg_copy.report_graph || ar->cfg_copy.report_execution))
		return;
	pthread_mutex_lock(&registry_lock);
	abs_dir = entry_dir(ar->entry);
	subdir = tsb_strdup(ar->entry->subdir);
	pthread_mutex_unlock(&registry_lock);
	dir = abs_dir ? link_dir(abs_dir) : NULL;
	free(abs_dir);
	snprintf(name, sizeof(name), "engine%u", ar->engine_index);
	root = cJSON_CreateObject();
	o = root ? cJSON_AddObjectToObject(root, "autoReport") : NULL;
	if (o && dir && subdir && cJSON_AddStringToObject(o, "directory", dir) &&
	    cJSON_AddStringToObject(o, "subdirectory", subdir) &&
	    cJSON_AddStringToObject(o, "engine", ar->engine_name ? ar->engine_name : name) &&
	    (run < 0 || cJSON_AddNumberToObject(o, "run", (double)run)))
		json = cJSON_PrintUnformatted(root);
	if (json)
		pvti_event_metadata(json); /* a trace that cannot take it just lacks the link */
	cJSON_free(json);
	cJSON_Delete(root);
	free(dir);
	free(subdir);
}

void tsi_autoreport_free(tsi_autoreport *ar)
{
	if (!ar)
		return;
	job_join(ar, false, true);
	pthread_mutex_lock(&registry_lock);
	if (ar->entry)
		ar->entry->owner = NULL;
	pthread_mutex_unlock(&registry_lock);
	tsi_report_writer_free(ar->writer);
	free(ar->job_earlier_debug);
	free(ar->engine_name);
	free(ar->command_line);
	pthread_mutex_destroy(&ar->job_lock);
	free(ar);
}
