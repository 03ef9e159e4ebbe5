/*
 * Fault test of `tilescope history check` (a store opened, its newest run
 * found and compared with a report, the result rendered as JSON) and of
 * `tilescope history changes` (every metric's series read in one query and
 * searched) over a store of two sample reports made before the faulted
 * runs: each allocation of each path fails in turn (fault-harness.h).
 * usage: fault-history SAMPLE_REPORTS_DIR
 */
#include "fault-harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *samples;
static char store[4096];

static int check(const char *dir, void *ctx)
{
	char out[4096], report[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/check.json", dir);
	snprintf(report, sizeof(report), "%s/tut7_mk1", samples);
	char *argv[] = {"history", "check", store, report, "--against", "last",
	                "--format=json", "-o", out, NULL};
	return fault_run_cli(argv);
}

static int changes(const char *dir, void *ctx)
{
	char out[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/changes.txt", dir);
	char *argv[] = {"history", "changes", store, "-o", out, NULL};
	return fault_run_cli(argv);
}

/* The store: the small report at c1, the larger at c2; made in a child,
 * so that this process starts SQLite only once the harness has routed its
 * allocator through the hook. */
static int make_store(const char *tmp)
{
	static const char *const runs[][2] = {{"tut7_mk1_small", "c1"}, {"tut7_mk1", "c2"}};
	int status = 0;
	pid_t pid;

	snprintf(store, sizeof(store), "%s/history.db", tmp);
	pid = fork();
	if (pid == 0) {
		for (size_t i = 0; i < 2; i++) {
			char report[4096];
			snprintf(report, sizeof(report), "%s/%s", samples, runs[i][0]);
			char *argv[] = {"history", "add", store, report, "--commit", (char *)runs[i][1],
			                "--time", i ? "2" : "1", NULL};
			if (fault_run_cli(argv) != 0)
				_exit(1);
		}
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	               WEXITSTATUS(status) == 0
	           ? 0
	           : -1;
}

int main(int argc, char **argv)
{
	const fault_path paths[] = {
		{"history check --format=json", check, NULL, NULL},
		{"history changes", changes, NULL, NULL},
	};
	char tmp[] = "/tmp/tilescope-fault-history.XXXXXX";
	int status;

	if (argc != 2) {
		fprintf(stderr, "usage: fault-history SAMPLE_REPORTS_DIR\n");
		return 2;
	}
	samples = argv[1];
	if (!mkdtemp(tmp) || make_store(tmp) != 0) {
		fprintf(stderr, "fault-history: cannot make the store in %s\n", tmp);
		return 1;
	}
	status = fault_run_paths(paths, sizeof(paths) / sizeof(paths[0]));
	snprintf(store, sizeof(store), "rm -rf '%s'", tmp);
	if (system(store) != 0)
		fprintf(stderr, "fault-history: could not remove %s\n", tmp);
	return status;
}
