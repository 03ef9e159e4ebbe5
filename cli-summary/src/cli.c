/*
 * The shared parts of the `tilescope` command (cli.h): errors, opening
 * files, parsing option values, writing outputs, the progress line.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <tilescope/numfmt.h>
#include <tilescope/utf8.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Writes one message line to stderr with what came from outside made
 * harmless: file names and names from a report reach these messages, and
 * a newline in one would forge a second line, an escape sequence would
 * recolour or retitle the terminal. Control bytes become \n, \t, \e or
 * \xNN, bytes that are not UTF-8 become \xNN, a backslash stays itself.
 */
static void write_message(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
static void write_message(const char *fmt, va_list ap)
{
	char stack_buf[1024], *msg = stack_buf, *heap = NULL;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(stack_buf, sizeof(stack_buf), fmt, ap);
	if (n >= (int)sizeof(stack_buf) && (heap = malloc((size_t)n + 1))) {
		vsnprintf(heap, (size_t)n + 1, fmt, again);
		msg = heap;
	}
	va_end(again);
	if (n < 0)
		msg = (char *)"(the message could not be formatted)";
	fputs("tilescope: ", stderr);
	for (const unsigned char *p = (const unsigned char *)msg; *p;) {
		uint32_t cp;
		size_t len = tsb_utf8_decode(p, SIZE_MAX, &cp);

		if (len > 1 && !(cp >= 0x80 && cp <= 0x9f)) {
			fwrite(p, 1, len, stderr);
			p += len;
			continue;
		}
		if (*p == '\n')
			fputs("\\n", stderr);
		else if (*p == '\t')
			fputs("\\t", stderr);
		else if (*p == 0x1b)
			fputs("\\e", stderr);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
		p++;
	}
	fputc('\n', stderr);
	free(heap);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	write_message(fmt, ap);
	va_end(ap);
	return CLI_EXIT_ERROR;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (fmt) {
		va_start(ap, fmt);
		write_message(fmt, ap);
		va_end(ap);
	}
	fputs(usage, stderr);
	/* The top level passes "" as its command: no double space. */
	fprintf(stderr, "Try 'tilescope %s%s--help'.\n", cmd, *cmd ? " " : "");
	return CLI_EXIT_ERROR;
}


void cli_getopt_reset(void)
{
	optind = 0;
	opterr = 0;
}

int cli_option_error(const char *cmd, const char *usage, int c, char **argv)
{
	/* getopt leaves the offending word at optind - 1; for a short option
	 * inside a cluster ("-xo") optopt names the letter. */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	char shortopt[3] = {'-', (char)optopt, '\0'};
	/* A long option is named as written (without its "=value"), a short
	 * one by its letter. */
	char longopt[128];
	const char *name = word;
	if (strncmp(word, "--", 2) == 0)
		name = longopt, snprintf(longopt, sizeof(longopt), "%.*s", (int)strcspn(word, "="), word);
	else if (optopt && optopt < 256)
		name = shortopt;

	if (c == ':')
		return cli_usage_error(cmd, usage, "option '%s' needs a value", name);
	return cli_usage_error(cmd, usage, "unknown option '%s'", name);
}

/* --- Opening --------------------------------------------------------------- */

int cli_open_report(tsr_report **out, const char *path)
{
	char what[512];
	int rc;

	snprintf(what, sizeof(what), "Reading %s", path);
	cli_progress_begin(what);
	rc = tsr_report_open(out, path, NULL);
	cli_progress_end();
	if (rc != TSR_OK) {
		/* reportlib's messages name the file already. */
		return cli_error("%s", tsr_last_error());
	}
	cli_note_input(tsr_report_get_path(*out));
	cli_note_input(tsr_report_get_debug_info_path(*out));
	return CLI_EXIT_OK;
}

/* Whether `msg` names `path` (or a file under it) as a word: at its start
 * or after a space or quote, followed by its end, ':', '/', a quote or a
 * space ("d" is not named by "reading"). */
static bool names_file(const char *msg, const char *path)
{
	size_t len = strlen(path);

	if (!len)
		return false;
	for (const char *at = strstr(msg, path); at; at = strstr(at + 1, path)) {
		char before = at > msg ? at[-1] : ' ', after = at[len];

		if ((before == ' ' || before == '\'') &&
		    (!after || after == ':' || after == '/' || after == '\'' || after == ' '))
			return true;
	}
	return false;
}

/*
 * Prints why opening the traces `paths` failed. reportlib names the file
 * at fault in what a file caused, but not in what the handle met (its
 * memory cap: "reading the trace would pass the memory cap ..."), which
 * then gets the operands' names: every error line names a file.
 */
static int open_failed(const char *msg, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (names_file(msg, paths[i]))
			return cli_error("%s", msg);
	if (n == 1)
		return cli_error("%s: %s", paths[0], msg);
	return cli_error("%s (and %zu more): %s", paths[0], n - 1, msg);
}

int cli_open_trace(tsr_trace **out, const char *const *paths, size_t n_paths)
{
	const tsr_trace_process *procs;
	size_t n = 0;
	int rc;

	cli_progress_begin(n_paths == 1 ? "Reading the trace" : "Reading the traces");
	rc = tsr_trace_open(out, paths, n_paths, NULL);
	cli_progress_end();
	if (rc != TSR_OK)
		return open_failed(tsr_last_error(), paths, n_paths);
	if (tsr_trace_get_processes(&procs, &n, *out) != TSR_OK)
		return CLI_EXIT_OK;
	for (size_t i = 0; i < n; i++)
		cli_note_input(procs[i].path);
	/* reportlib reads a file named twice, or a byte for byte copy of
	 * another, once (two recordings are never identical): say so for
	 * the files named here (a directory's copies go unnamed). */
	for (size_t k = 0; k < n_paths; k++) {
		struct stat st;
		bool read = false;

		for (size_t i = 0; i < n && !read; i++)
			read = !strcmp(paths[k], procs[i].path);
		if (!read && stat(paths[k], &st) == 0 && S_ISREG(st.st_mode))
			cli_error("%s: the same trace as another file given: read once", paths[k]);
	}
	return CLI_EXIT_OK;
}

int cli_trace_fail(tsr_trace *trace)
{
	const char *msg = tsr_trace_error(trace);
	const tsr_trace_process *procs;
	size_t n = 0;

	if (tsr_trace_get_processes(&procs, &n, trace) != TSR_OK || n == 0)
		return cli_error("%s", msg);
	for (size_t i = 0; i < n; i++)
		if (names_file(msg, procs[i].path))
			return cli_error("%s", msg);
	if (n == 1)
		return cli_error("%s: %s", procs[0].path, msg);
	return cli_error("%s (and %zu more): %s", procs[0].path, n - 1, msg);
}

void cli_trace_print_skipped(tsr_trace *trace)
{
	const tsr_trace_process *procs;
	tsr_trace_skip *skips = NULL;
	size_t n = 0, n_procs = 0;

	if (tsr_trace_get_processes(&procs, &n_procs, trace) != TSR_OK ||
	    tsr_trace_list_skipped(&skips, &n, trace) != TSR_OK)
		return;
	for (size_t i = 0; i < n; i++)
		if (skips[i].process < n_procs)
			cli_error("%s: %s", procs[skips[i].process].path, skips[i].message);
	free(skips);
}

/* --- Option values --------------------------------------------------------- */

bool cli_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/*
 * A JSON string of `s` (NULL: null) that is valid UTF-8 whatever the bytes:
 * paths and names come from outside, and cJSON copies bytes as they are,
 * so a file name with a \xff byte made the whole document invalid. Bytes
 * that are not UTF-8 become U+FFFD.
 */
cJSON *cli_json_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t bad = 0, n;
	char *clean, *q;
	cJSON *item;

	if (!s)
		return cJSON_CreateNull();
	for (n = 0; p[n];) {
		uint32_t cp;
		size_t len = tsb_utf8_decode(p + n, SIZE_MAX, &cp);

		bad += len == 0;
		n += len ? len : 1;
	}
	if (bad == 0)
		return cJSON_CreateString(s);
	clean = malloc(n + bad * 2 + 1);
	if (!clean)
		return NULL;
	for (q = clean; *p;) {
		uint32_t cp;
		size_t len = tsb_utf8_decode(p, SIZE_MAX, &cp);

		if (len == 0) {
			memcpy(q, "\xef\xbf\xbd", 3);
			q += 3;
			p++;
		} else {
			memcpy(q, p, len);
			q += len;
			p += len;
		}
	}
	*q = '\0';
	item = cJSON_CreateString(clean);
	free(clean);
	return item;
}

const char *cli_fmt_count(char buf[32], uint64_t v)
{
	return tsb_format_u64(buf, 32, v);
}

bool cli_parse_colours(const char *s, tsr_colours *out)
{
	if (strcmp(s, "auto") == 0)
		*out = TSR_COLOURS_AUTO;
	else if (strcmp(s, "always") == 0)
		*out = TSR_COLOURS_ALWAYS;
	else if (strcmp(s, "never") == 0)
		*out = TSR_COLOURS_NEVER;
	else
		return false;
	return true;
}

cJSON *cli_json_u64(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cJSON_CreateRaw(buf);
}

cJSON *cli_json_i64(int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	return cJSON_CreateRaw(buf);
}

bool cli_json_put(cJSON *parent, const char *key, cJSON *item)
{
	bool ok;

	if (!item)
		return false;
	ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
	if (!ok)
		cJSON_Delete(item);
	return ok;
}

bool cli_parse_ms(const char *s, int64_t *ns)
{
	const char *end;
	double v;

	if (!s || !tsb_parse_decimal(s, &v, &end) || *end || v * 1e6 >= 9.2e18)
		return false;
	*ns = (int64_t)(v * 1e6 + 0.5);
	return true;
}

int cli_trace_window(const char *cmd, const char *usage, const tsr_trace *trace,
                     const char *from, const char *to, int64_t *from_ns, int64_t *to_ns)
{
	const tsr_trace_info *info = tsr_trace_get_info(trace);
	int64_t v;

	*from_ns = INT64_MIN;
	*to_ns = INT64_MAX;
	if (from) {
		if (!cli_parse_ms(from, &v))
			return cli_usage_error(cmd, usage,
			                       "--from wants milliseconds after the trace's start, not '%s'",
			                       from);
		*from_ns = info->start_ns + v;
	}
	if (to) {
		if (!cli_parse_ms(to, &v))
			return cli_usage_error(cmd, usage,
			                       "--to wants milliseconds after the trace's start, not '%s'",
			                       to);
		*to_ns = info->start_ns + v;
	}
	if (*from_ns >= *to_ns)
		return cli_usage_error(cmd, usage, "--from %s is not before --to %s", from ? from : "0",
		                       to);
	return CLI_EXIT_OK;
}

/* --- The progress line ------------------------------------------------------- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool running;   /* a thread exists for the current step */
	bool stop;
	char what[512];
	struct timespec start;
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Waits one second, then redraws the line every quarter second until
 * told to stop; erases what it drew. */
static void *progress_thread(void *arg)
{
	bool drawn = false;

	(void)arg;
	pthread_mutex_lock(&progress.lock);
	while (!progress.stop) {
		struct timespec until;
		double elapsed = seconds_since(&progress.start);
		double wait = elapsed < 1.0 ? 1.0 - elapsed : 0.25;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(wait * 1e9);
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&progress.cond, &progress.lock, &until);
		if (progress.stop)
			break;
		elapsed = seconds_since(&progress.start);
		if (elapsed >= 1.0) {
			fprintf(stderr, "\r\033[Ktilescope: %s\u2026 %.1f s", progress.what, elapsed);
			fflush(stderr);
			drawn = true;
		}
	}
	if (drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	pthread_mutex_unlock(&progress.lock);
	return NULL;
}

static bool progress_wanted(void)
{
	const char *mode = getenv("TILESCOPE_PROGRESS");

	if (mode && strcmp(mode, "always") == 0)
		return true;
	if (mode && strcmp(mode, "never") == 0)
		return false;
	return isatty(STDERR_FILENO);
}

void cli_progress_begin(const char *what)
{
	cli_progress_end();
	if (!progress_wanted())
		return;
	pthread_mutex_lock(&progress.lock);
	snprintf(progress.what, sizeof(progress.what), "%s", what);
	clock_gettime(CLOCK_MONOTONIC, &progress.start);
	progress.stop = false;
	progress.running = pthread_create(&progress.thread, NULL, progress_thread, NULL) == 0;
	pthread_mutex_unlock(&progress.lock);
}

void cli_progress_end(void)
{
	pthread_mutex_lock(&progress.lock);
	if (!progress.running) {
		pthread_mutex_unlock(&progress.lock);
		return;
	}
	progress.stop = true;
	progress.running = false;
	pthread_cond_signal(&progress.cond);
	pthread_mutex_unlock(&progress.lock);
	pthread_join(progress.thread, NULL);
}
