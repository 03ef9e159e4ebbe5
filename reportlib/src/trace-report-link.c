/*
 * From a span of a trace to the autoReport of the engine that ran it
 * (issue 16, "Across to the Graph Analyser"). The runtime attaches to its
 * compile and run spans the event metadata documented in
 * db-schema/pvti.sql (event_metadata): the report's directory (relative
 * to the trace file's directory since issue 26, so that a run folder
 * holding both can move; absolute in older traces, still read), the
 * subdirectory its files move to when a later engine reports to the same
 * directory, the engine's name and, for a run, the run's index. This file
 * reads it back defensively: the trace is a file someone sent, so every
 * field is checked and a span whose metadata is not such a link is
 * TSR_ERR_NO_DATA with a message, never a guess.
 */
#include <tilescope/alloc.h>
#include "trace-private.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether `dir`/`leaf`/profile.pop (leaf NULL: dir/profile.pop) is a
 * regular file. */
static bool has_profile(const char *dir, const char *leaf)
{
	char path[PATH_MAX];
	struct stat sb;
	int n = leaf ? snprintf(path, sizeof(path), "%s/%s/profile.pop", dir, leaf)
	             : snprintf(path, sizeof(path), "%s/profile.pop", dir);

	return n > 0 && (size_t)n < sizeof(path) && stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/*
 * The link's directory `d` as an absolute path: itself when absolute (as
 * traces written before issue 26 hold it), else resolved against the
 * directory of `trace_path`, the file that holds the link, with "." and
 * ".." taken out and, when it exists, made real (so the same report
 * reached two ways is one path). malloc'd; NULL on no memory.
 */
static char *resolve_dir(const char *d, const char *trace_path)
{
	const char *slash = strrchr(trace_path, '/');
	char *tdir, *base, *joined, *real, *out, *p;
	size_t n;

	if (d[0] == '/')
		return tsb_strdup(d);
	/* The trace's directory, real when it can be (it was just read). */
	tdir = slash ? tsb_strndup(trace_path, (size_t)(slash - trace_path)) : tsb_strdup(".");
	if (!tdir)
		return NULL;
	base = realpath(tdir[0] ? tdir : "/", NULL);
	if (!base && tdir[0] != '/') {
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) && (base = tsb_malloc(strlen(cwd) + strlen(tdir) + 2)))
			sprintf(base, "%s/%s", cwd, tdir);
	} else if (!base) {
		base = tsb_strdup(tdir);
	}
	free(tdir);
	if (!base)
		return NULL;
	n = strlen(base) + strlen(d) + 2;
	joined = tsb_malloc(n);
	out = tsb_malloc(n + 1);
	if (!joined || !out) {
		free(base);
		free(joined);
		free(out);
		return NULL;
	}
	snprintf(joined, n, "%s/%s", base, d);
	free(base);
	/* Component by component: "" and "." dropped, ".." takes one off. */
	p = out;
	for (char *save = NULL, *c = strtok_r(joined, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (p > out && *--p != '/')
				;
			continue;
		}
		*p++ = '/';
		strcpy(p, c);
		p += strlen(c);
	}
	if (p == out)
		*p++ = '/';
	*p = 0;
	free(joined);
	real = realpath(out, NULL);
	if (real) {
		free(out);
		return real;
	}
	return out;
}

/* A plain directory entry name: no '/', not "." or "..". */
static bool is_leaf(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int tsr_trace_dup_span_report(char **dir, char **engine, int64_t *run, tsr_trace *tr,
                              size_t thread, int64_t seq)
{
	char *json = NULL;
	cJSON *root = NULL, *link, *d, *sub, *eng, *r;
	const char *leaf = NULL;
	char *base = NULL;
	int rc;

	if (dir)
		*dir = NULL;
	if (engine)
		*engine = NULL;
	if (run)
		*run = -1;
	if (!tr || !dir)
		return TSR_ERR_INVALID_ARGUMENT;
	rc = tsr_trace_dup_event_metadata(&json, tr, thread, seq);
	if (rc != TSR_OK)
		return rc;
	root = json ? cJSON_Parse(json) : NULL;
	link = cJSON_GetObjectItemCaseSensitive(root, "autoReport");
	if (!cJSON_IsObject(link)) {
		rc = trace_fail(tr, TSR_ERR_NO_DATA, "span %lld of thread %zu has no autoReport",
		                (long long)seq, thread);
		goto cleanup;
	}
	d = cJSON_GetObjectItemCaseSensitive(link, "directory");
	sub = cJSON_GetObjectItemCaseSensitive(link, "subdirectory");
	eng = cJSON_GetObjectItemCaseSensitive(link, "engine");
	r = cJSON_GetObjectItemCaseSensitive(link, "run");
	if (!cJSON_IsString(d) || !d->valuestring[0] ||
	    strlen(d->valuestring) >= PATH_MAX - 32 || (eng && !cJSON_IsString(eng)) ||
	    (sub && (!cJSON_IsString(sub) || !is_leaf(sub->valuestring) ||
	             strlen(sub->valuestring) > NAME_MAX)) ||
	    (r && (!cJSON_IsNumber(r) || r->valuedouble < 0 || r->valuedouble > 9007199254740992.0 ||
	           r->valuedouble != (double)(int64_t)r->valuedouble))) {
		rc = trace_fail(tr, TSR_ERR_CORRUPT,
		                "span %lld of thread %zu: its autoReport link is malformed",
		                (long long)seq, thread);
		goto cleanup;
	}
	base = resolve_dir(d->valuestring, tr->processes[tr->threads[thread].process].path);
	if (base && strlen(base) >= PATH_MAX - 32) {
		rc = trace_fail(tr, TSR_ERR_CORRUPT,
		                "span %lld of thread %zu: its autoReport directory is too long",
		                (long long)seq, thread);
		goto cleanup;
	}
	/* The files moved into the subdirectory when a second engine came. */
	if (base && sub && !has_profile(base, NULL) && has_profile(base, sub->valuestring))
		leaf = sub->valuestring;
	if (base && leaf) {
		size_t n = strlen(base) + strlen(leaf) + 2;

		if ((*dir = tsb_malloc(n)))
			snprintf(*dir, n, "%s%s%s", base, strcmp(base, "/") ? "/" : "", leaf);
	} else if (base) {
		*dir = base;
		base = NULL;
	}
	if (!*dir || (engine && eng && !(*engine = tsb_strdup(eng->valuestring)))) {
		free(*dir);
		*dir = NULL;
		rc = trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
		goto cleanup;
	}
	if (run && r)
		*run = (int64_t)r->valuedouble;
cleanup:
	free(base);
	cJSON_Delete(root);
	free(json);
	return rc;
}
