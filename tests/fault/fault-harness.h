/*
 * The fault-injection harness of tests/fault/ (issue 27.2): runs one path
 * (a `tilescope` command, a writer) once clean, counting its allocations
 * through libtilescope-base's hook, then again failing allocation i for
 * each i of a schedule, each run in a forked child so that a crash, a
 * sanitizer report or a leak (LeakSanitizer at the child's exit) is seen
 * and named by i. SQLite's and cJSON's allocations go through the hook
 * too. A faulted run must either produce the clean run's output byte for
 * byte, or fail with one line on stderr naming the lack of memory and
 * leave its output directory empty (no half-written or temporary file).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* One path under test. `run` is called in a child with an empty
 * directory `dir` for its outputs; it returns the exit status the path
 * would give (0 success, anything else a failure with a message on
 * stderr). It may be called many times, each in a fresh child. */
typedef struct fault_path {
	const char *name;
	int (*run)(const char *dir, void *ctx);
	void *ctx;
	/* For a writer whose output differs from run to run (a time stamp, a
	 * process id in a name): NULL for outputs compared byte for byte with
	 * the clean run's; else called (in the harness, the hook off) on the
	 * output directory of every successful run, it returns 0 when the
	 * outputs are whole, else prints why. The file count is compared. A
	 * failed run may leave files only when they pass it too. */
	int (*check)(const char *dir);
} fault_path;

/* Runs every path of `paths` as described above; prints one line per
 * finding and a summary per path; returns 0 when nothing was found, 1
 * otherwise (and 77, "skipped", never). */
int fault_run_paths(const fault_path *paths, size_t n);

/* Runs the `tilescope` subcommand `argv` (argv[0] the command's name,
 * NULL-terminated) as main() would, in this process. */
int fault_run_cli(char **argv);
