/*
 * `tilescope history bisect`: a `git bisect run` script. At each commit
 * git checks out, it runs the build command and the model command (each
 * with /bin/sh -c, their output passed through), reads one metric of the
 * report the model wrote and exits 0 when it is within the limit of the
 * good value (the commit is good), 1 when past it (bad), 125 when the
 * commit cannot be tested (a command failed, no new report) and 128 for
 * its own errors, which stop the bisection rather than mark every commit
 * bad. The good value is given, or read from a run of a history store.
 */
#include "cmd-history-bisect.h"

#include "tilescope/history.h"

#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

/* Runs `cmd` with /bin/sh -c, its output and input the caller's; true
 * when it exits 0. `what` names it in the line printed when it fails. */
static bool run_shell(const char *what, const char *cmd)
{
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)cmd, NULL};
	pid_t pid;
	int st = 0, rc;

	fflush(stdout);
	fflush(stderr);
	rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	if (rc != 0) {
		cli_error("bisect: cannot run the %s command: %s", what, strerror(rc));
		return false;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	if (WIFEXITED(st))
		cli_error("bisect: the %s command failed (exit %d): skipping this commit", what,
		          WEXITSTATUS(st));
	else
		cli_error("bisect: the %s command was killed (signal %d): skipping this commit", what,
		          WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return false;
}

/* The value of `metric` in `figures`; false when it has none. */
static bool find_figure(const tsr_history_figure *figures, size_t n, const char *metric,
                        uint64_t *value, bool *noisy)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(figures[i].metric, metric)) {
			*value = figures[i].value;
			*noisy = figures[i].noisy;
			return true;
		}
	return false;
}

/* The good value: sample 0 of `metric` in the newest run of commit
 * a->good (a prefix names one commit) of `label` in a->store. */
static int good_from_store(uint64_t *good, const cli_history_bisect_args *a, const char *metric,
                           const char *label)
{
	tsr_history *h = NULL;
	tsr_history_run *runs = NULL;
	tsr_history_figure *figs = NULL;
	size_t n = 0, n_figs = 0;
	bool noisy = false;
	int status = CLI_EXIT_ERROR;

	if (tsr_history_open(&h, a->store, 0) != TSR_OK)
		return cli_error("%s", tsr_last_error());
	if (tsr_history_list_runs(&runs, &n, h, a->good, NULL, label ? label : "", 0) ||
	    (n && tsr_history_list_figures(&figs, &n_figs, h, runs[0].id))) {
		cli_error("%s", tsr_history_error(h));
		goto out;
	}
	for (size_t i = 1; i < n; i++)
		if (strcmp(runs[i].commit, runs[0].commit)) {
			cli_error("%s: '%s' is more than one commit (%s, %s ...): give more of the SHA",
			          a->store, a->good, runs[0].commit, runs[i].commit);
			goto out;
		}
	if (n == 0)
		cli_error("%s: no run of commit %s %s%s", a->store, a->good,
		          label ? "labelled " : "without a label", label ? label : "");
	else if (!find_figure(figs, n_figs, metric, good, &noisy))
		cli_error("%s: run %" PRId64 " (commit %s) has no figure %s", a->store, runs[0].id,
		          runs[0].commit, metric);
	else if (noisy)
		cli_error("%s: %s is a wall-clock figure; bisect checks a report's simulated ones",
		          a->store, metric);
	else
		status = CLI_EXIT_OK;
out:
	free(figs);
	free(runs);
	tsr_history_free(h);
	return status;
}

int cli_history_bisect(const cli_history_bisect_args *a, const char *metric, const char *label,
                       const char *usage)
{
	tsr_compare_limits *limits = NULL;
	tsr_report *report = NULL;
	tsr_history_figure *figs = NULL;
	char pop[4096], limit[512], v1[32], v2[32], v3[32], pct[48] = "";
	struct stat before, after;
	bool had, noisy = false;
	uint64_t good = 0, value = 0;
	size_t n = 0;
	int status = CLI_EXIT_ERROR;

	if (!metric || !a->run || !a->report)
		return cli_usage_error("history", usage, "bisect needs --metric M, --run CMD and "
		                       "--report DIR");
	if (!a->good_value == !a->store || !a->store != !a->good)
		return cli_usage_error("history", usage, "bisect needs --good-value V, or --store "
		                       "STORE and --good SHA");
	if (a->good_value && !cli_parse_u64(a->good_value, &good))
		return cli_usage_error("history", usage, "--good-value wants a count, not '%s'",
		                       a->good_value);
	/* The limit as diff's --max-increase=METRIC:VALUE (a leading '+' allowed). */
	snprintf(limit, sizeof(limit), "%s:%s", metric,
	         a->limit ? a->limit + (a->limit[0] == '+') : "0");
	if (tsr_compare_limits_new(&limits))
		return cli_error("out of memory");
	if (tsr_compare_limits_set_option(limits, "max-increase", limit)) {
		status = cli_usage_error("history", usage, "%s",
		                         tsr_compare_limits_get_error(limits));
		goto out;
	}
	if (a->store && good_from_store(&good, a, metric, label))
		goto out;
	status = CLI_HISTORY_BISECT_SKIP;
	if (a->build && !run_shell("build", a->build))
		goto out;
	/* A report left by an earlier step is not this commit's: the run
	 * must write a new one (profile.pop is renamed into place). */
	snprintf(pop, sizeof(pop), "%s/profile.pop", a->report);
	had = stat(pop, &before) == 0;
	if (!run_shell("run", a->run))
		goto out;
	if (stat(pop, &after) != 0 ||
	    (had && after.st_ino == before.st_ino && after.st_size == before.st_size &&
	     after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
	     after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)) {
		cli_error("bisect: the run command wrote no new %s: skipping this commit", pop);
		goto out;
	}
	if (tsr_report_open(&report, a->report, NULL) != TSR_OK) {
		cli_error("%s: skipping this commit", tsr_last_error());
		goto out;
	}
	if (tsr_history_list_report_figures(&figs, &n, report)) {
		cli_error("%s: skipping this commit", tsr_report_error(report));
		goto out;
	}
	if (!find_figure(figs, n, metric, &value, &noisy)) {
		cli_error("bisect: %s has no figure %s: skipping this commit", pop, metric);
		goto out;
	}
	bool passed = tsr_limit_get_passed(tsr_compare_limits_get_limit(limits, 0), true, good,
	                                   true, value);
	if (good)
		snprintf(pct, sizeof(pct), ", %+.2f%%", 100.0 * ((double)value - (double)good) / (double)good);
	printf("bisect: %s is %s, the good value %s (%s%s%s), limit %s: %s\n", metric,
	       cli_fmt_count(v1, value), cli_fmt_count(v2, good), value >= good ? "+" : "-",
	       cli_fmt_count(v3, value >= good ? value - good : good - value), pct,
	       tsr_compare_limits_get_limit(limits, 0)->threshold, passed ? "good" : "bad");
	status = passed ? CLI_EXIT_OK : CLI_EXIT_REGRESSION;
out:
	free(figs);
	tsr_report_free(report);
	tsr_compare_limits_free(limits);
	return status;
}
