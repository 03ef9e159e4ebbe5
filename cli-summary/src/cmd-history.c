/*
 * `tilescope history VERB STORE ...`: the history store (reportlib's
 * tilescope/history.h). add puts a report's figures in the store as a
 * run of a commit; show prints metrics' series; check compares a report
 * with a run of the store and gates on diff's limits, printed by diff's
 * renderer (diff-render.h), so its outputs and exit codes are diff's;
 * merge joins the stores of parallel jobs.
 */
#include "cli.h"
#include "cli-options.h"
#include "cmd-history-bisect.h"
#include "cmd-history-changes.h"
#include "diff-render.h"
#include "history-html.h"
#include "limits.h"

#include "tilescope/history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/history.def"
};

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/history.def"
};

/* A limit option as given, applied after the limits file. */
typedef struct pending {
	const char *option, *value;
} pending;

/* Everything the command line said. */
typedef struct args {
	const char *verb;
	const char *commit, *parent, *branch, *label, *metric, *against, *base_branch, *limits_file,
	    *output;
	int64_t time;
	size_t last, top;
	bool all, repeat;
	cli_history_bisect_args bisect;
	const char *format;
	tsr_colours colours;
	pending *pend;
	size_t n_pend;
	const char **metrics;      /* every --metric (report; the others take the last) */
	size_t n_metrics;
	char **operands;           /* after the verb */
	size_t n_operands;
	char **words;              /* the verb and the operands (malloc'd) */
	char usage[1024];
} args;

/* The verbs and the options each takes (option ids, 0-terminated). */
static const struct verb {
	const char *name;
	size_t operands;
	int options[24];
} verbs[] = {
	{"add", 2, {OPT_COMMIT, OPT_PARENT, OPT_BRANCH, OPT_LABEL, OPT_TIME, OPT_REPEAT, 0}},
	{"show", 1, {OPT_METRIC, OPT_BRANCH, OPT_LABEL, OPT_LAST, OPT_FORMAT, OPT_OUTPUT, 0}},
	{"check", 2, {OPT_AGAINST, OPT_BASE_BRANCH, OPT_BRANCH, OPT_LABEL, OPT_MAX_MEMORY, OPT_MAX_CYCLES,
	              OPT_MAX_TILE, OPT_FAIL_OOM, OPT_MAX_CATEGORY, OPT_MAX_INCREASE, OPT_LIMITS,
	              OPT_FORMAT, OPT_TOP, OPT_ALL, OPT_COLOURS, OPT_OUTPUT, 0}},
	{"merge", 2, {0}},
	{"changes", 1, {OPT_METRIC, OPT_BRANCH, OPT_LABEL, OPT_FORMAT, OPT_OUTPUT, 0}},
	{"report", 1, {OPT_METRIC, OPT_BRANCH, OPT_LABEL, OPT_LAST, OPT_FORMAT, OPT_OUTPUT, 0}},
	{"bisect", 0, {OPT_METRIC, OPT_GOOD_VALUE, OPT_STORE, OPT_GOOD, OPT_LABEL, OPT_LIMIT,
	               OPT_BUILD, OPT_RUN, OPT_REPORT, 0}},
};

/* Whether `verb` takes option `id`. */
static bool takes(const struct verb *verb, int id)
{
	for (size_t i = 0; verb->options[i]; i++)
		if (verb->options[i] == id)
			return true;
	return false;
}

/* Prints `store`'s failure (the message names the file) and returns 2. */
static int store_fail(tsr_history *h)
{
	return cli_error("%s", *tsr_history_error(h) ? tsr_history_error(h) : tsr_last_error());
}

/* Opens the store operand (created by add and merge, not by the
 * readers: a mistyped name is an error there); prints the one line on
 * failure. */
static int open_store(tsr_history **h, const char *path, bool create)
{
	if (tsr_history_open(h, path, create ? TSR_HISTORY_CREATE : 0) != TSR_OK)
		return cli_error("%s", tsr_last_error());
	return CLI_EXIT_OK;
}

/* --- add ------------------------------------------------------------------------- */

/* Whether directory `dir` holds a *.pvti file. */
static bool dir_has_trace(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		found = len > 5 && !strcmp(e->d_name + len - 5, ".pvti");
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Opens add's inputs, paths[0..n): one report (a profile.pop, or a
 * directory holding one) and traces (.pvti files, or directories of
 * them), told apart by what they hold; the traces are opened together,
 * as one job's. A report directory's own .pvti files are not read unless
 * named: one line says so when no trace is. Errors are printed.
 */
static int open_inputs(tsr_report **report, tsr_trace **trace, char *const *paths, size_t n)
{
	const char **traces = calloc(n + 1, sizeof(*traces)), *trace_left = NULL;
	size_t n_traces = 0;
	int status = CLI_EXIT_ERROR;

	if (!traces)
		return cli_error("out of memory");
	for (size_t i = 0; i < n; i++) {
		char pop[4096];
		struct stat sb;
		bool dir = stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode);
		int rc;

		snprintf(pop, sizeof(pop), "%s/profile.pop", paths[i]);
		if (dir && access(pop, F_OK) != 0) {
			traces[n_traces++] = paths[i];
			continue;
		}
		rc = tsr_report_open(report + !!*report, paths[i], NULL);
		if (rc == TSR_OK && report[1]) {
			cli_error("add takes one report: %s and %s are two", tsr_report_get_path(report[0]),
			          tsr_report_get_path(report[1]));
			goto out;
		}
		if (rc == TSR_OK && dir && dir_has_trace(paths[i]))
			trace_left = paths[i];
		/* Not SQLite, or a .pvti: the trace reader's to take or refuse. */
		if (rc == TSR_ERR_NOT_SQLITE ||
		    (rc == TSR_ERR_NOT_REPORT && strstr(tsr_last_error(), ".pvti")))
			traces[n_traces++] = paths[i];
		else if (rc != TSR_OK) {
			cli_error("%s", tsr_last_error());
			goto out;
		}
	}
	if (trace_left && !n_traces)
		fprintf(stderr, "tilescope: %s: its .pvti trace is not added; name it to add its "
		        "wall-clock figures\n", trace_left);
	if (n_traces && cli_open_trace(trace, traces, n_traces))
		goto out;
	if (*trace)
		cli_trace_print_skipped(*trace);
	status = CLI_EXIT_OK;
out:
	free(traces);
	return status;
}

/* The figures of the report and the trace (either NULL) in one array,
 * *all, pointing into the two lists (each a block the caller frees). */
static int list_figures(tsr_history_figure **all, size_t *n, tsr_history_figure *lists[2],
                        tsr_report *r, tsr_trace *t)
{
	size_t n_report = 0, n_trace = 0;

	if (r && tsr_history_list_report_figures(&lists[0], &n_report, r))
		return cli_error("%s", tsr_report_error(r));
	if (t && tsr_history_list_trace_figures(&lists[1], &n_trace, t))
		return cli_error("%s", *tsr_trace_error(t) ? tsr_trace_error(t) : tsr_last_error());
	if (!(*all = calloc(n_report + n_trace + 1, sizeof(**all))))
		return cli_error("out of memory");
	if (n_report)
		memcpy(*all, lists[0], n_report * sizeof(**all));
	if (n_trace)
		memcpy(*all + n_report, lists[1], n_trace * sizeof(**all));
	*n = n_report + n_trace;
	return CLI_EXIT_OK;
}

static int run_add(const args *a)
{
	tsr_history *h = NULL;
	tsr_report *r[2] = {NULL, NULL};
	tsr_trace *t = NULL;
	tsr_history_figure *figures = NULL, *lists[2] = {NULL, NULL};
	tsr_history_run run = {.commit = a->commit, .parent = a->parent, .branch = a->branch,
	                       .label = a->label, .time = a->time};
	size_t n = 0;
	int64_t id = 0;
	uint32_t sample = 0;
	bool added = false;
	int rc, status = CLI_EXIT_ERROR;

	if (!a->commit || !*a->commit)
		return cli_usage_error("history", a->usage, "add needs --commit SHA");
	if (a->repeat && (a->parent || a->branch || a->time != -1))
		return cli_usage_error("history", a->usage, "--repeat adds to a run of the commit: "
		                       "its --parent, --branch and --time are the run's");
	if (open_inputs(r, &t, a->operands + 1, a->n_operands - 1) ||
	    open_store(&h, a->operands[0], true))
		goto out;
	if (a->repeat && list_figures(&figures, &n, lists, r[0], t))
		goto out;
	cli_progress_begin("Adding the figures");
	rc = a->repeat ? tsr_history_add_sample(&id, &sample, h, &run, figures, n)
	               : tsr_history_add_files(&id, &added, h, &run, r[0], t);
	cli_progress_end();
	if (rc != TSR_OK) {
		store_fail(h);
		goto out;
	}
	if (a->repeat)
		printf("added sample %" PRIu32 " to run %" PRId64 " (commit %s) in %s\n", sample, id,
		       a->commit, a->operands[0]);
	else if (added)
		printf("added run %" PRId64 " (commit %s) to %s\n", id, a->commit, a->operands[0]);
	else
		printf("already in %s as run %" PRId64 " (the same commit, label and %s)\n",
		       a->operands[0], id, r[0] ? "report" : "trace");
	status = CLI_EXIT_OK;
out:
	free(figures);
	free(lists[0]);
	free(lists[1]);
	tsr_history_free(h);
	tsr_report_free(r[0]);
	tsr_report_free(r[1]);
	tsr_trace_free(t);
	return status;
}

/* --- show -------------------------------------------------------------------------- */

/* The diff's JSON word of a unit, and the text's. */
static const char *unit_key(tsr_metric_unit unit)
{
	static const char *const keys[] = {"bytes", "cycles", "tiles", "count", "flops", "ns"};

	return (unsigned)unit < sizeof(keys) / sizeof(keys[0]) ? keys[unit] : "count";
}

static const char *unit_text(tsr_metric_unit unit)
{
	static const char *const names[] = {"B", "cycles", "tiles", "", "flops", "ns"};

	return (unsigned)unit < sizeof(names) / sizeof(names[0]) ? names[unit] : "";
}

/* "2026-11-29 23:05" (UTC) of `t`. */
static const char *fmt_time(char buf[32], int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, 32, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, 32, "%" PRId64, t);
	return buf;
}

/* One metric's series as text: newest first, each with its change from
 * the run before it (the next row). Names from the store are written as
 * `tilescope trace` writes a trace's (control characters as '?', cut or
 * padded to their column): a store is a file from elsewhere. */
static void show_text(FILE *out, bool first, const tsr_history_metric *m,
                      const tsr_history_point *p, size_t n)
{
	fputs(first ? "" : "\n", out);
	cli_trace_put_name(out, m->name, -1);
	fprintf(out, "%s%s%s\n", *unit_text(m->unit) ? " (" : "", unit_text(m->unit),
	        *unit_text(m->unit) ? ")" : "");
	fprintf(out, "  %-12s %-16s %-10s %-12s %15s %14s\n", "commit", "time (UTC)", "branch",
	        "label", "value", "change");
	for (size_t i = 0; i < n; i++) {
		char t[32], v[32], c[48] = "", d[32];

		if (i + 1 < n && p[i + 1].value != p[i].value) {
			uint64_t a = p[i].value, b = p[i + 1].value;
			snprintf(c, sizeof(c), "%s%s", a > b ? "+" : "-", cli_fmt_count(d, a > b ? a - b : b - a));
		}
		fputs("  ", out);
		cli_trace_put_name(out, p[i].run.commit, 12);
		fprintf(out, " %-16s ", fmt_time(t, p[i].run.time));
		cli_trace_put_name(out, p[i].run.branch ? p[i].run.branch : "-", 10);
		fputc(' ', out);
		cli_trace_put_name(out, *p[i].run.label ? p[i].run.label : "-", 12);
		fprintf(out, " %15s %14s\n", cli_fmt_count(v, p[i].value), c);
	}
}

/* One metric's series as a JSON object in `list`. */
static bool show_json(cJSON *list, const tsr_history_metric *m, const tsr_history_point *p,
                      size_t n)
{
	cJSON *o = cJSON_CreateObject(), *points;
	bool ok = o && cli_json_put(list, NULL, o) && cli_json_put(o, "metric", cli_json_str(m->name)) &&
	          cli_json_put(o, "unit", cJSON_CreateString(unit_key(m->unit))) &&
	          cli_json_put(o, "noisy", cJSON_CreateBool(m->noisy)) &&
	          cli_json_put(o, "points", points = cJSON_CreateArray());

	for (size_t i = 0; ok && i < n; i++) {
		cJSON *q = cJSON_CreateObject();
		ok = q && cli_json_put(points, NULL, q) &&
		     cli_json_put(q, "run", cli_json_i64(p[i].run.id)) &&
		     cli_json_put(q, "commit", cli_json_str(p[i].run.commit)) &&
		     cli_json_put(q, "parent", cli_json_str(p[i].run.parent)) &&
		     cli_json_put(q, "branch", cli_json_str(p[i].run.branch)) &&
		     cli_json_put(q, "label", cli_json_str(p[i].run.label)) &&
		     cli_json_put(q, "time", cli_json_i64(p[i].run.time)) &&
		     cli_json_put(q, "sample", cli_json_u64(p[i].sample)) &&
		     cli_json_put(q, "value", cli_json_u64(p[i].value));
	}
	return ok;
}

static int run_show(const args *a)
{
	tsr_history *h = NULL;
	tsr_history_metric *metrics = NULL;
	size_t n_metrics = 0, shown = 0;
	bool json = a->format && !strcmp(a->format, "json");
	cJSON *root = NULL, *list = NULL;
	cli_output *out = NULL;
	int status = CLI_EXIT_ERROR;

	if (a->format && !json && strcmp(a->format, "text"))
		return cli_usage_error("history", a->usage,
		                       "show's --format is text or json, not '%s'", a->format);
	if (open_store(&h, a->operands[0], false))
		return CLI_EXIT_ERROR;
	if (tsr_history_list_metrics(&metrics, &n_metrics, h, a->metric)) {
		store_fail(h);
		goto out;
	}
	if (a->metric && n_metrics == 0) {
		cli_error("%s: no metric matches '%s'", a->operands[0], a->metric);
		goto out;
	}
	if (json && (!(root = cJSON_CreateObject()) ||
	             !cli_json_put(root, "store", cli_json_str(a->operands[0])) ||
	             !cli_json_put(root, "metrics", list = cJSON_CreateArray()))) {
		cli_error("out of memory");
		goto out;
	}
	if (!(out = cli_output_open(a->output)))
		goto out;
	for (size_t i = 0; i < n_metrics; i++) {
		tsr_history_point *p = NULL;
		size_t n = 0;

		/* Without --metric, the totals (cycles.total, memory.total ...,
		 * trace.wall_ns), not a trace's labels. */
		if (!a->metric && (tsr_metric_get_group(metrics[i].name) != TSR_GROUP_TOTAL ||
		                   !strncmp(metrics[i].name, "trace.label.", 12)))
			continue;
		if (tsr_history_list_series(&p, &n, h, metrics[i].name, a->branch, a->label, a->last)) {
			store_fail(h);
			goto out;
		}
		if (n && json && !show_json(list, &metrics[i], p, n)) {
			free(p);
			cli_error("out of memory");
			goto out;
		}
		if (n && !json)
			show_text(cli_output_stream(out), shown == 0, &metrics[i], p, n);
		shown += n > 0;
		free(p);
	}
	if (json) {
		char *text = cJSON_Print(root);
		if (!text) {
			cli_error("out of memory");
			goto out;
		}
		fprintf(cli_output_stream(out), "%s\n", text);
		cJSON_free(text);
	} else if (!shown)
		fputs("no runs\n", cli_output_stream(out));
	status = cli_output_close(out, true);
	out = NULL;
out:
	if (out)
		cli_output_close(out, false);
	cJSON_Delete(root);
	free(metrics);
	tsr_history_free(h);
	return status;
}

/* --- check ------------------------------------------------------------------------ */

/* `git merge-base HEAD BRANCH` in the current directory into sha (41
 * bytes), run without a shell, git's own messages dropped: one line of
 * ours says what failed. */
static int git_merge_base(char sha[41], const char *branch)
{
	char *argv[] = {(char *)"git", (char *)"merge-base", (char *)"HEAD", (char *)branch, NULL};
	posix_spawn_file_actions_t fa;
	char buf[128];
	size_t got = 0;
	ssize_t k;
	int fds[2], st = 0, rc;
	pid_t pid;

	if (branch[0] == '-' || pipe(fds) != 0)
		return cli_error("--base-branch: '%s' is not a branch name", branch);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	while (rc == 0 && got < sizeof(buf) - 1 &&
	       ((k = read(fds[0], buf + got, sizeof(buf) - 1 - got)) > 0 || (k < 0 && errno == EINTR)))
		got += k > 0 ? (size_t)k : 0;
	close(fds[0]);
	if (rc != 0)
		return cli_error("--against merge-base: cannot run git: %s", strerror(rc));
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[got] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || strlen(buf) != 40 ||
	    strspn(buf, "0123456789abcdef") != 40)
		return cli_error("--against merge-base: 'git merge-base HEAD %s' failed (not in a git "
		                 "checkout, or no such branch?)",
		                 branch);
	memcpy(sha, buf, 41);
	return CLI_EXIT_OK;
}

/* The baseline run: the newest of `against` ("last": any commit;
 * "merge-base": the fork point of HEAD from a->base_branch) on a->branch,
 * of a->label (none when not given). */
static int find_baseline(tsr_history *h, const args *a, tsr_history_run **runs, size_t *n)
{
	bool last = !strcmp(a->against, "last");
	const char *store = a->operands[0], *commit = last ? NULL : a->against;
	char sha[41];

	if (!strcmp(a->against, "merge-base")) {
		if (git_merge_base(sha, a->base_branch ? a->base_branch : "origin/main"))
			return CLI_EXIT_ERROR;
		commit = sha;
	}
	if (tsr_history_list_runs(runs, n, h, commit, a->branch,
	                          a->label ? a->label : "", last ? 1 : 0))
		return store_fail(h);
	for (size_t i = 1; i < *n; i++)
		if (strcmp((*runs)[i].commit, (*runs)[0].commit))
			return cli_error("%s: '%s' is more than one commit (%s, %s ...): give more of "
			                 "the SHA",
			                 store, a->against, (*runs)[0].commit, (*runs)[i].commit);
	if (*n == 0)
		return cli_error("%s: no run %s%s%s%s%s%s to check against", store,
		                 last ? "" : "of commit ", last ? "" : commit,
		                 a->branch ? " on branch " : "", a->branch ? a->branch : "",
		                 a->label ? " labelled " : " without a label",
		                 a->label ? a->label : "");
	return CLI_EXIT_OK;
}

/* The limits: the file, then the options over it. */
static int build_limits(tsr_compare_limits **limits, const args *a)
{
	char err[1024];

	if (tsr_compare_limits_new(limits))
		return cli_error("out of memory");
	if (a->limits_file && cli_limits_load(*limits, a->limits_file, err, sizeof(err)))
		return cli_error("%s", err);
	for (size_t i = 0; i < a->n_pend; i++)
		if (tsr_compare_limits_set_option(*limits, a->pend[i].option, a->pend[i].value))
			return cli_error("%s", tsr_compare_limits_get_error(*limits));
	return CLI_EXIT_OK;
}

static int run_check(const args *a)
{
	tsr_history *h = NULL;
	tsr_report *r = NULL;
	tsr_history_run *runs = NULL;
	tsr_compare_limits *limits = NULL;
	tsr_comparison *cmp = NULL;
	tsr_limit_check *checks = NULL;
	cli_diff_format format = CLI_DIFF_TEXT;
	cli_output *out = NULL;
	char base_name[1024];
	size_t n_runs = 0, n_checks = 0, failed = 0;
	int status = CLI_EXIT_ERROR;

	if (!a->against)
		return cli_usage_error("history", a->usage,
		                       "check needs --against last|merge-base|COMMIT");
	if (a->format) {
		static const char *const names[] = {"text", "json", "markdown", "junit"};
		size_t i = 0;

		while (i < 4 && strcmp(a->format, names[i]))
			i++;
		if (i == 4)
			return cli_usage_error("history", a->usage,
			                       "--format wants text, json, markdown or junit, not '%s'",
			                       a->format);
		format = (cli_diff_format)i;
	}
	if (build_limits(&limits, a) || open_store(&h, a->operands[0], false) ||
	    find_baseline(h, a, &runs, &n_runs) || cli_open_report(&r, a->operands[1]))
		goto out;
	cli_progress_begin("Comparing the report with the store");
	int rc = tsr_history_compare(&cmp, h, runs[0].id, r);
	cli_progress_end();
	if (rc != TSR_OK) {
		store_fail(h);
		goto out;
	}
	if (tsr_compare_limits_list_checks(&checks, &n_checks, limits, cmp)) {
		cli_error("%s", tsr_compare_limits_get_error(limits));
		goto out;
	}
	for (size_t i = 0; i < n_checks; i++)
		failed += !checks[i].passed;
	snprintf(base_name, sizeof(base_name), "%s@%s#%" PRId64, a->operands[0], runs[0].commit,
	         runs[0].id);
	cli_diff d = {.base_path = base_name, .new_path = a->operands[1], .base_run = -1,
	              .new_run = -1, .cmp = cmp, .checks = checks, .n_checks = n_checks,
	              .failed = failed, .all = a->all, .top = a->top, .by_program = true};
	if (!(out = cli_output_open(a->output)))
		goto out;
	d.colours = format == CLI_DIFF_TEXT && tsr_colours_enabled(a->colours, cli_output_stream(out));
	if (cli_diff_render(cli_output_stream(out), &d, format) != 0) {
		bool write_failed = ferror(cli_output_stream(out)) != 0;
		cli_output_close(out, write_failed);
		out = NULL;
		if (!write_failed)
			cli_error("%s: out of memory", cli_output_name(a->output));
		goto out;
	}
	status = cli_output_close(out, true);
	out = NULL;
	if (status == CLI_EXIT_OK && failed) {
		cli_diff_print_regressions(stderr, &d);
		status = CLI_EXIT_REGRESSION;
	}
out:
	if (out)
		cli_output_close(out, false);
	free(checks);
	tsr_comparison_free(cmp);
	tsr_compare_limits_free(limits);
	free(runs);
	tsr_report_free(r);
	tsr_history_free(h);
	return status;
}

/* --- merge -------------------------------------------------------------------------- */

static int run_merge(const args *a)
{
	tsr_history *h = NULL;
	size_t added = 0;
	int status = CLI_EXIT_ERROR;

	if (open_store(&h, a->operands[0], true))
		return CLI_EXIT_ERROR;
	cli_progress_begin("Merging the stores");
	int rc = tsr_history_merge(&added, h, a->operands[1]);
	cli_progress_end();
	if (rc == TSR_OK) {
		printf("merged %zu run%s from %s into %s\n", added, added == 1 ? "" : "s",
		       a->operands[1], a->operands[0]);
		status = CLI_EXIT_OK;
	} else
		store_fail(h);
	tsr_history_free(h);
	return status;
}

/* --- changes (cmd-history-changes.c) ---------------------------------------------- */

static int run_changes(const args *a)
{
	bool json = a->format && !strcmp(a->format, "json");

	if (a->format && !json && strcmp(a->format, "text"))
		return cli_usage_error("history", a->usage,
		                       "changes' --format is text or json, not '%s'", a->format);
	return cli_history_changes(a->operands[0], a->metric, a->branch, a->label, json, a->output);
}

/* --- report (history-html.c) ------------------------------------------------------ */

static int run_report(const args *a)
{
	cli_history_report_args r = {a->operands[0], a->metrics, a->n_metrics, a->branch, a->label,
	                             a->last, a->output};

	if (a->format && strcmp(a->format, "html"))
		return cli_usage_error("history", a->usage, "report's --format is html, not '%s'",
		                       a->format);
	if (!a->output)
		return cli_usage_error("history", a->usage,
		                       "report needs -o FILE (-o - for standard output)");
	return cli_history_report(&r);
}

/* --- The command ----------------------------------------------------------------------- */

/* Parses the command line into *a (a->pend is malloc'd); returns
 * CLI_EXIT_OK or the exit code of a printed error (-1: --help printed). */
static int parse(args *a, const struct verb **verb, int argc, char **argv)
{
	cli_options o;
	int c;

	cli_options_usage(items, CLI_ITEMS_COUNT(items), a->usage, sizeof(a->usage));
	a->pend = calloc((size_t)argc + 1, sizeof(*a->pend));
	a->words = calloc((size_t)argc + 1, sizeof(*a->words));
	a->metrics = calloc((size_t)argc + 1, sizeof(*a->metrics));
	if (!a->pend || !a->words || !a->metrics)
		return cli_error("out of memory");
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1) {
		uint64_t v;

		if (c == OPT_HELP) {
			cli_options_print_help(items, CLI_ITEMS_COUNT(items), stdout);
			return -1;
		}
		if (c == ':' || c == '?')
			return cli_option_error("history", a->usage, c, argv);
		switch (c) {
		case OPT_COMMIT: a->commit = optarg; break;
		case OPT_PARENT: a->parent = optarg; break;
		case OPT_BRANCH: a->branch = optarg; break;
		case OPT_LABEL: a->label = optarg; break;
		case OPT_METRIC: a->metrics[a->n_metrics++] = a->metric = optarg; break;
		case OPT_AGAINST: a->against = optarg; break;
		case OPT_BASE_BRANCH: a->base_branch = optarg; break;
		case OPT_LIMITS: a->limits_file = optarg; break;
		case OPT_OUTPUT: a->output = optarg; break;
		case OPT_FORMAT: a->format = optarg; break;
		case OPT_ALL: a->all = true; break;
		case OPT_REPEAT: a->repeat = true; break;
		case OPT_GOOD_VALUE: a->bisect.good_value = optarg; break;
		case OPT_STORE: a->bisect.store = optarg; break;
		case OPT_GOOD: a->bisect.good = optarg; break;
		case OPT_LIMIT: a->bisect.limit = optarg; break;
		case OPT_BUILD: a->bisect.build = optarg; break;
		case OPT_RUN: a->bisect.run = optarg; break;
		case OPT_REPORT: a->bisect.report = optarg; break;
		case OPT_TIME:
			if (!cli_parse_u64(optarg, &v) || v > INT64_MAX)
				return cli_usage_error("history", a->usage,
				                       "--time wants seconds since 1970, not '%s'", optarg);
			a->time = (int64_t)v;
			break;
		case OPT_LAST:
		case OPT_TOP:
			if (!cli_parse_u64(optarg, &v) || v > 1000000000)
				return cli_usage_error("history", a->usage, "--%s wants a count, not '%s'",
				                       cli_options_name(&o, c), optarg);
			*(c == OPT_LAST ? &a->last : &a->top) = (size_t)v;
			break;
		case OPT_COLOURS:
			if (!cli_parse_colours(optarg, &a->colours))
				return cli_usage_error("history", a->usage,
				                       "--colours wants auto, always or never, not '%s'",
				                       optarg);
			break;
		case OPT_MAX_MEMORY:
		case OPT_MAX_CYCLES:
		case OPT_MAX_TILE:
		case OPT_FAIL_OOM:
		case OPT_MAX_CATEGORY:
		case OPT_MAX_INCREASE: {
			/* A limit: its value checked now, so a bad one is a usage error. */
			tsr_compare_limits *probe = NULL;
			char err[1024];
			int bad;

			a->pend[a->n_pend] = (pending){cli_options_name(&o, c), optarg};
			bad = tsr_compare_limits_new(&probe) ||
			      tsr_compare_limits_set_option(probe, a->pend[a->n_pend].option, optarg);
			snprintf(err, sizeof(err), "%s",
			         probe ? tsr_compare_limits_get_error(probe) : "out of memory");
			tsr_compare_limits_free(probe);
			if (bad)
				return cli_usage_error("history", a->usage, "%s", err);
			a->n_pend++;
			break;
		}
		default: break; /* none: each option of history.def has its case */
		}
	}
	if (optind >= argc)
		return cli_usage_error("history", a->usage,
		                       "a verb is needed: add, show, check, merge, changes, report or bisect");
	for (int i = optind; i < argc; i++)
		a->words[i - optind] = argv[i];
	a->verb = a->words[0];
	a->operands = a->words + 1;
	a->n_operands = (size_t)(argc - optind - 1);
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(a->verb, verbs[i].name))
			*verb = &verbs[i];
	if (!*verb)
		return cli_usage_error("history", a->usage,
		                       "'%s' is not a verb of history: add, show, check, merge, changes, "
		                       "report or bisect",
		                       a->verb);
	/* add takes a STORE and one or more files: a report, traces. */
	if (a->n_operands != (*verb)->operands &&
	    !(!strcmp(a->verb, "add") && a->n_operands > (*verb)->operands))
		return cli_usage_error("history", a->usage, "%s takes %s", a->verb,
		                       (*verb)->operands == 0   ? "no operand"
		                       : (*verb)->operands == 1 ? "one operand: STORE"
		                       : !strcmp(a->verb, "merge") ? "two operands: STORE OTHER"
		                       : !strcmp(a->verb, "add") ? "a STORE, then a REPORT and/or TRACE files"
		                                                 : "two operands: STORE REPORT");
	/* Options the verb does not take are errors, not silently ignored
	 * (known only now that the verb, an operand, is). */
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1)
		if (c > OPT_FIRST_ && c != OPT_HELP && !takes(*verb, c))
			return cli_usage_error("history", a->usage, "%s does not take --%s", a->verb,
			                       cli_options_name(&o, c));
	return CLI_EXIT_OK;
}

/* `tilescope history` (cli.h). */
int cli_cmd_history(int argc, char **argv)
{
	args a = {.time = -1, .top = 10, .colours = TSR_COLOURS_AUTO};
	const struct verb *verb = NULL;
	int status = parse(&a, &verb, argc, argv);
	bool bisect;

	if (status == CLI_EXIT_OK) {
		if (!strcmp(verb->name, "add"))
			status = run_add(&a);
		else if (!strcmp(verb->name, "show"))
			status = run_show(&a);
		else if (!strcmp(verb->name, "check"))
			status = run_check(&a);
		else if (!strcmp(verb->name, "changes"))
			status = run_changes(&a);
		else if (!strcmp(verb->name, "report"))
			status = run_report(&a);
		else if (!strcmp(verb->name, "bisect"))
			status = cli_history_bisect(&a.bisect, a.metric, a.label, a.usage);
		else
			status = run_merge(&a);
	} else if (status == -1)
		status = CLI_EXIT_OK;
	/* git bisect run takes 1..127 for "bad": bisect's own errors (also
	 * those found before its verb was) stop it instead. */
	bisect = verb && !strcmp(verb->name, "bisect");
	for (int i = 1; !verb && !bisect && i < argc; i++)
		bisect = !strcmp(argv[i], "bisect");
	if (bisect && status == CLI_EXIT_ERROR)
		status = CLI_HISTORY_BISECT_ABORT;
	free(a.pend);
	free(a.words);
	free(a.metrics);
	return status;
}
