/*
 * The fault-injection harness (fault-harness.h). Every run of a path is a
 * forked child of the harness: a crash kills only the child and is named
 * by the allocation that was failed, LeakSanitizer checks each run at the
 * child's exit, and no state (SQLite's, a library's caches) carries from
 * one run into the next.
 *
 * Which allocations are failed. A path makes thousands (SQLite parsing
 * a schema alone makes about 1,400), too many to fail each within the
 * suite's minute, so: the clean run counts them and records, for each,
 * its call stack (FAULT_STACK_DEPTH frames from the allocator up, by
 * backtrace(); default 5: the allocator, the call site and three
 * callers, or for SQLite the way into its allocator). Every allocation
 * up to FAULT_ALL_UP_TO (default 50: the opening of the files, where
 * most error paths start) is failed in turn; past that, the first
 * allocation of each distinct call stack is, so every allocation site on
 * the path fails at least once, whatever the path's total.
 * FAULT_ALL_UP_TO=0 fails every allocation (a long run). FAULT_ONLY=TEXT
 * runs the paths whose name holds TEXT, FAULT_SHOW=N prints allocation
 * N's call stack, FAULT_DRY=1 only counts.
 */
#define _GNU_SOURCE
#include "fault-harness.h"

#include "cli.h"

#include <tilescope/alloc.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Frames of a call stack that tell allocation sites apart, counting the
 * allocator's own (tsb_malloc; for SQLite, its malloc wrappers):
 * FAULT_STACK_DEPTH, default 5, at most MAX_DEPTH. */
#define MAX_DEPTH 16
static int stack_depth = 5;
#define MAX_SITES 16384

/* What a child reports back through shared memory. */
typedef struct child_report {
	uint64_t count;    /* allocations counted */
	int injected;      /* whether the hook failed one */
	int n_sites;       /* distinct call stacks (clean run) */
	int sites_full;    /* more than MAX_SITES distinct stacks */
	uint64_t first[MAX_SITES]; /* the first allocation of each stack */
} child_report;

static child_report *shared;
/* FAULT_SHOW=N: the clean run prints the call stack of allocation N on
 * the harness's stderr (to find the site behind a finding). */
static uint64_t show_n;
static int show_fd = -1;
static uint64_t site_keys[MAX_SITES * 2]; /* open addressing; 0 = free */

/* ---- SQLite's and cJSON's allocations through the hook ---- */

/* SQLite wants each allocation's size back (xSize): kept in a header. */
#define SQ_HEADER 16

static void *sq_malloc(int n)
{
	char *p = tsb_malloc((size_t)n + SQ_HEADER);

	if (!p)
		return NULL;
	*(size_t *)p = (size_t)n;
	return p + SQ_HEADER;
}

static void sq_free(void *p)
{
	if (p)
		free((char *)p - SQ_HEADER);
}

static void *sq_realloc(void *p, int n)
{
	char *q = tsb_realloc(p ? (char *)p - SQ_HEADER : NULL, (size_t)n + SQ_HEADER);

	if (!q)
		return NULL;
	*(size_t *)q = (size_t)n;
	return q + SQ_HEADER;
}

static int sq_size(void *p)
{
	return p ? (int)*(size_t *)((char *)p - SQ_HEADER) : 0;
}

static int sq_roundup(int n)
{
	return (n + 7) & ~7;
}

static int sq_init(void *unused)
{
	(void)unused;
	return SQLITE_OK;
}

static void sq_shutdown(void *unused)
{
	(void)unused;
}

static void *cj_malloc(size_t n)
{
	return tsb_malloc(n);
}

/* Routes SQLite's and cJSON's allocations through tsb_malloc. libcbor
 * cannot be routed: Debian builds it without CBOR_CUSTOM_ALLOC, so
 * cbor_set_allocs does not exist and its allocations are not failed. */
static int install_hooks(void)
{
	static const sqlite3_mem_methods mem = {
		sq_malloc, sq_free, sq_realloc, sq_size, sq_roundup, sq_init, sq_shutdown, NULL,
	};
	cJSON_Hooks hooks = {cj_malloc, free};

	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &mem) != SQLITE_OK ||
	    sqlite3_initialize() != SQLITE_OK) {
		fprintf(stderr, "FAIL: SQLite's allocator could not be routed through the hook\n");
		return -1;
	}
	cJSON_InitHooks(&hooks);
	return 0;
}

/* ---- call sites ---- */

/* The observer of the clean run: notes the first allocation of each
 * distinct call stack. Allocates nothing through tsb_. */
static void observe(uint64_t n)
{
	void *frames[MAX_DEPTH + 1];
	int depth = backtrace(frames, stack_depth + 1);
	uint64_t key = 1469598103934665603ull;

	if (n == show_n && show_fd >= 0) {
		void *all[64];
		int k = backtrace(all, 64);
		dprintf(show_fd, "allocation %llu:\n", (unsigned long long)n);
		backtrace_symbols_fd(all, k, show_fd);
	}

	for (int i = 1; i < depth; i++)
		key = (key ^ (uint64_t)(uintptr_t)frames[i]) * 1099511628211ull;
	if (key == 0)
		key = 1;
	size_t mask = sizeof(site_keys) / sizeof(site_keys[0]) - 1;
	for (size_t h = key & mask;; h = (h + 1) & mask) {
		if (site_keys[h] == key)
			return;
		if (site_keys[h] == 0) {
			if (shared->n_sites >= MAX_SITES) {
				shared->sites_full = 1;
				return;
			}
			site_keys[h] = key;
			shared->first[shared->n_sites++] = n;
			return;
		}
	}
}

/* ---- files ---- */

/* Reads a whole file; NULL (and *len 0) when it cannot. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			char *b = realloc(buf, cap = cap * 2 + 65536);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The files a run left in its output directory, sorted by name. */
typedef struct outputs {
	size_t n;
	char *names[16];
	char *data[16];
	size_t len[16];
	bool too_many;
} outputs;

static void outputs_free(outputs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->names[i]);
		free(o->data[i]);
	}
	memset(o, 0, sizeof(*o));
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the outputs of `dir` into `o` and removes them, so the directory
 * is empty for the next run. */
static void take_outputs(const char *dir, outputs *o)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *names[64];
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n < 64)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (size_t i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (o->n < 16) {
			o->names[o->n] = names[i];
			o->data[o->n] = slurp(path, &o->len[o->n]);
			o->n++;
		} else {
			o->too_many = true;
			free(names[i]);
		}
		if (unlink(path) != 0 && errno == EISDIR) {
			/* A directory left behind (a writer's): its files, then it. */
			DIR *sub = opendir(path);
			while (sub && (e = readdir(sub))) {
				char p2[4200];
				snprintf(p2, sizeof(p2), "%s/%s", path, e->d_name);
				unlink(p2);
			}
			if (sub)
				closedir(sub);
			rmdir(path);
		}
	}
}

static bool dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	while (d && empty && (e = readdir(d)))
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	if (d)
		closedir(d);
	return empty;
}

/* ---- runs ---- */

typedef struct run_result {
	bool signalled;
	int status;      /* exit status, or the signal */
	char *err;       /* what the run wrote on stderr */
	outputs out;
	uint64_t count;
	bool injected;
	int check_rc;    /* the path's check of its outputs (0: whole) */
} run_result;

/* Runs `p` in a child with allocation `fail_at` failed (0: none). */
static int run_child(const fault_path *p, uint64_t fail_at, bool observing, const char *dir,
                     const char *err_path, run_result *r)
{
	pid_t pid;
	int st;
	size_t len;

	memset(r, 0, sizeof(*r));
	shared->count = 0;
	shared->injected = 0;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "FAIL: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_WRONLY);

		if (fd < 0 || nul < 0 || dup2(fd, 2) < 0 || dup2(nul, 1) < 0)
			_exit(120);
		close(fd);
		close(nul);
		if (observing) {
			shared->n_sites = 0;
			tsb_alloc_set_observer(observe);
		}
		tsb_alloc_set_fail_at(fail_at);
		int rc = p->run(dir, p->ctx);
		tsb_alloc_hook_clear();
		tsb_alloc_set_observer(NULL);
		shared->count = tsb_alloc_count();
		shared->injected = tsb_alloc_injected();
		fflush(NULL);
		exit(rc); /* LeakSanitizer checks at exit */
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "FAIL: waitpid: %s\n", strerror(errno));
			return -1;
		}
	}
	r->signalled = WIFSIGNALED(st);
	r->status = r->signalled ? WTERMSIG(st) : WEXITSTATUS(st);
	r->err = slurp(err_path, &len);
	if (!r->err)
		r->err = strdup("");
	r->count = shared->count;
	r->injected = shared->injected;
	r->check_rc = 0;
	if (p->check && !r->signalled && (r->status == 0 || !dir_is_empty(dir)))
		r->check_rc = p->check(dir);
	take_outputs(dir, &r->out);
	return 0;
}

static void run_result_free(run_result *r)
{
	free(r->err);
	outputs_free(&r->out);
}

/* Lines of `text` (a last line without '\n' counts). */
static int count_lines(const char *text)
{
	int n = 0;

	for (const char *s = text; *s; s++)
		if (*s == '\n' || s[1] == '\0')
			n++;
	return n;
}

/* Whether `text` tells one error: one line, or lines that each end with
 * the last one's message (what follows its "program: " prefix), as a
 * tracer logs a failure when it stops recording and pvti_close returns
 * the same one. */
static bool one_error(const char *text)
{
	int n = count_lines(text);
	size_t len = strlen(text);

	if (n == 1)
		return true;
	if (n == 0 || len < 2 || text[len - 1] != '\n')
		return false;
	const char *last = text + len - 1;
	while (last > text && last[-1] != '\n')
		last--;
	const char *msg = strstr(last, ": ");
	if (!msg)
		return false;
	msg += 2;
	size_t mlen = (size_t)(text + len - msg); /* with its '\n' */
	for (const char *line = text; line < last;) {
		const char *end = strchr(line, '\n') + 1;
		if ((size_t)(end - line) < mlen || memcmp(end - mlen, msg, mlen) != 0)
			return false;
		line = end;
	}
	return true;
}

/* Prints a finding: the path, the allocation, what went wrong, and the
 * child's stderr (the sanitizer's report, the messages). */
static void finding(const fault_path *p, uint64_t i, const char *what, const run_result *r)
{
	printf("FAIL: %s, allocation %llu failed: %s\n", p->name, (unsigned long long)i, what);
	if (r && r->err && *r->err)
		printf("  stderr:\n%s%s", r->err, r->err[strlen(r->err) - 1] == '\n' ? "" : "\n");
}

/* The verdict on one faulted run against the clean one; true when fine. */
static bool judge(const fault_path *p, uint64_t i, const run_result *clean, const run_result *r)
{
	if (r->signalled) {
		char what[64];
		snprintf(what, sizeof(what), "the run died of signal %d", r->status);
		finding(p, i, what, r);
		return false;
	}
	if (strstr(r->err, "Sanitizer") || strstr(r->err, "runtime error:")) {
		finding(p, i, "a sanitizer report (crash, leak or undefined behaviour)", r);
		return false;
	}
	if (r->status == clean->status) {
		/* Recovered: the output must be the clean run's, byte for byte. */
		bool same = r->out.n == clean->out.n && !r->out.too_many &&
		            strcmp(r->err, clean->err) == 0 && r->check_rc == 0;
		for (size_t k = 0; same && !p->check && k < r->out.n; k++)
			same = strcmp(r->out.names[k], clean->out.names[k]) == 0 &&
			       r->out.len[k] == clean->out.len[k] &&
			       memcmp(r->out.data[k], clean->out.data[k], r->out.len[k]) == 0;
		if (!same) {
			char what[600];
			snprintf(what, sizeof(what),
			         "the run succeeded but its output differs from the clean run's "
			         "(%zu files, first '%s', against %zu%s%s)",
			         r->out.n, r->out.n ? r->out.names[0] : "", clean->out.n,
			         r->check_rc ? "; they do not read back" : "",
			         strcmp(r->err, clean->err) ? "; other messages" : "");
			finding(p, i, what, r);
			return false;
		}
		return true;
	}
	if (r->status == 0) {
		finding(p, i, "the run succeeded where the clean run failed", r);
		return false;
	}
	/* A writer's file that is whole as far as it goes (a .pvti up to its
	 * last flush, a profile.pop with its graph profile alone) may stay. */
	if (r->out.n != 0 && (!p->check || r->check_rc != 0)) {
		char what[512];
		snprintf(what, sizeof(what), "the run failed but left '%s'%s in its output directory",
		         r->out.names[0], r->out.n > 1 ? " and more" : "");
		finding(p, i, what, r);
		return false;
	}
	if (!one_error(r->err)) {
		finding(p, i, "the run failed without one message (one line, or one error told twice)",
		        r);
		return false;
	}
	if (!strstr(r->err, "memory")) {
		finding(p, i, "the run failed with a message that does not say memory ran out", r);
		return false;
	}
	return true;
}

/* The schedule: every i up to `all`, then the first of each call stack. */
static uint64_t *schedule(const run_result *clean, uint64_t all, size_t *n_out)
{
	uint64_t total = clean->count, n = 0;
	uint64_t *s = malloc((size_t)(total + shared->n_sites + 1) * sizeof(*s));

	*n_out = 0;
	if (!s)
		return NULL;
	for (uint64_t i = 1; i <= total && (all == 0 || i <= all); i++)
		s[n++] = i;
	for (int k = 0; k < shared->n_sites; k++)
		if (all != 0 && shared->first[k] > all && shared->first[k] <= total)
			s[n++] = shared->first[k];
	/* The firsts come in order of first appearance: already ascending. */
	*n_out = (size_t)n;
	return s;
}

static int run_path(const fault_path *p, const char *base, uint64_t all)
{
	char dir[4096], err_path[4096];
	run_result clean, r;
	int failures = 0, recovered = 0;
	size_t n;

	snprintf(dir, sizeof(dir), "%s/out", base);
	snprintf(err_path, sizeof(err_path), "%s/stderr", base);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		printf("FAIL: %s: mkdir %s: %s\n", p->name, dir, strerror(errno));
		return 1;
	}
	if (run_child(p, 0, true, dir, err_path, &clean) != 0)
		return 1;
	if (clean.signalled || clean.status != 0 || strstr(clean.err, "Sanitizer") ||
	    clean.out.n == 0 || clean.check_rc != 0) {
		finding(p, 0, "the clean run (no allocation failed) did not succeed with an output",
		        &clean);
		run_result_free(&clean);
		return 1;
	}
	uint64_t *sched = schedule(&clean, all, &n);
	if (!sched) {
		printf("FAIL: %s: no memory for the schedule\n", p->name);
		run_result_free(&clean);
		return 1;
	}
	if (getenv("FAULT_DRY") && *getenv("FAULT_DRY"))
		n = 0; /* FAULT_DRY=1: the clean run's counts only, to tune the schedule */
	for (size_t k = 0; k < n; k++) {
		if (run_child(p, sched[k], false, dir, err_path, &r) != 0) {
			failures++;
			break;
		}
		if (!judge(p, sched[k], &clean, &r))
			failures++;
		else if (r.status == clean.status)
			recovered++;
		run_result_free(&r);
		if (failures >= 10) {
			printf("FAIL: %s: stopping after 10 findings\n", p->name);
			break;
		}
	}
	printf("%s %s: %llu allocations, %d distinct call stacks%s; failed %zu of them in turn "
	       "(all up to %llu, then the first of each stack): %zu gave one clear error, %d "
	       "recovered with identical output, %d findings\n",
	       failures ? "FAIL:" : "PASS:", p->name, (unsigned long long)clean.count,
	       shared->n_sites, shared->sites_full ? " (more not told apart)" : "", n,
	       (unsigned long long)(all ? all : clean.count), n - (size_t)recovered - (size_t)failures,
	       recovered, failures);
	free(sched);
	run_result_free(&clean);
	return failures ? 1 : 0;
}

int fault_run_paths(const fault_path *paths, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char base[4096];
	const char *env = getenv("FAULT_ALL_UP_TO");
	uint64_t all = env && *env ? strtoull(env, NULL, 10) : 50;
	int status = 0;

	if (install_hooks() != 0)
		return 1;
	snprintf(base, sizeof(base), "%s/tilescope-fault-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	env = getenv("FAULT_STACK_DEPTH");
	if (env && *env) {
		stack_depth = atoi(env);
		stack_depth = stack_depth < 1 ? 1 : stack_depth > MAX_DEPTH ? MAX_DEPTH : stack_depth;
	}
	env = getenv("FAULT_SHOW");
	if (env && *env) {
		show_n = strtoull(env, NULL, 10);
		show_fd = dup(2);
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
	              0);
	if (shared == MAP_FAILED || !mkdtemp(base)) {
		printf("FAIL: setting up: %s\n", strerror(errno));
		return 1;
	}
	/* FAULT_ONLY=TEXT: only the paths whose name holds TEXT. */
	env = getenv("FAULT_ONLY");
	for (size_t i = 0; i < n; i++)
		if (!env || !*env || strstr(paths[i].name, env))
			status |= run_path(&paths[i], base, all);
	char path[4200];
	snprintf(path, sizeof(path), "%s/out", base);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/stderr", base);
	unlink(path);
	rmdir(base);
	munmap(shared, sizeof(*shared));
	return status;
}

int fault_run_cli(char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} commands[] = {
		{"summary", cli_cmd_summary}, {"diff", cli_cmd_diff}, {"export", cli_cmd_export},
		{"trace", cli_cmd_trace},     {"sql", cli_cmd_sql},         {"history", cli_cmd_history},
	};
	int argc = 0;

	while (argv[argc])
		argc++;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[0], commands[i].name) == 0) {
			cli_note_input_args(argc, argv);
			return commands[i].run(argc, argv);
		}
	}
	fprintf(stderr, "fault: no command '%s'\n", argv[0]);
	return 2;
}
