/*
 * The shared parts of the `tilescope` command (cli.h): errors, opening
 * files, parsing option values, writing outputs, the progress line.
 */
#define _GNU_SOURCE
#include "cli.h"

#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
		size_t len = tsf_utf8_decode(p, SIZE_MAX, &cp);

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
	fprintf(stderr, "Try 'tilescope %s --help'.\n", cmd);
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
	return CLI_EXIT_OK;
}

int cli_open_trace(tsr_trace **out, const char *const *paths, size_t n_paths)
{
	int rc;

	cli_progress_begin(n_paths == 1 ? "Reading the trace" : "Reading the traces");
	rc = tsr_trace_open(out, paths, n_paths, NULL);
	cli_progress_end();
	if (rc != TSR_OK)
		return cli_error("%s", tsr_last_error());
	return CLI_EXIT_OK;
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
		size_t len = tsf_utf8_decode(p + n, SIZE_MAX, &cp);

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
		size_t len = tsf_utf8_decode(p, SIZE_MAX, &cp);

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

/* Parses a finite non-negative decimal number at the start of `s`; *end
 * is set past it. Only digits and one '.', so "inf", "1e9", "0x10" and
 * signs are refused. */
static bool parse_decimal(const char *s, double *out, const char **end)
{
	const char *p = s;
	bool digits = false;

	while (*p >= '0' && *p <= '9') {
		p++;
		digits = true;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			digits = true;
		}
	}
	if (!digits || p - s > 40)
		return false;
	char buf[48];
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	*out = strtod(buf, NULL);
	*end = p;
	return isfinite(*out);
}

bool cli_parse_bytes(const char *s, uint64_t *out)
{
	static const struct {
		const char *name;
		double factor;
	} units[] = {
		{"", 1}, {"b", 1},
		{"k", 1e3}, {"kb", 1e3}, {"m", 1e6}, {"mb", 1e6}, {"g", 1e9}, {"gb", 1e9},
		{"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0},
	};
	const char *end;
	double v;

	if (!s || !parse_decimal(s, &v, &end))
		return false;
	if (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].name) != 0)
			continue;
		/* A fraction of a byte is only meaningful with a unit. */
		if (units[i].factor == 1 && strchr(s, '.'))
			return false;
		double bytes = floor(v * units[i].factor);
		if (bytes >= 18446744073709551616.0)
			return false;
		*out = (uint64_t)bytes;
		return true;
	}
	return false;
}

bool cli_parse_percent(const char *s, double *out)
{
	const char *end;
	double v;

	if (!s || !parse_decimal(s, &v, &end))
		return false;
	if (*end == '%')
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

const char *cli_fmt_count(char buf[32], uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), out = 0;

	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = tmp[i];
	}
	buf[out] = '\0';
	return buf;
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

	if (!s || !parse_decimal(s, &v, &end) || *end || v * 1e6 >= 9.2e18)
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

/* --- Outputs ----------------------------------------------------------------- */

struct cli_output {
	FILE *stream;
	char *path;     /* NULL: stdout */
	char *target;   /* the file renamed onto: path, or where its symlinks lead */
	char *tmp_path; /* NULL: written in place (stdout, a device, a FIFO) */
};

/*
 * Where -o's bytes go. The rules (README, "Outputs"):
 *   - a path that exists and is not a regular file (a device such as
 *     /dev/null or /dev/full, a FIFO, /dev/stdout) is written in place,
 *     never replaced by a regular file;
 *   - a regular file is replaced as a whole: the bytes go to a temporary
 *     made with mkostemp (O_EXCL, so nothing planted under a guessable name
 *     is followed or reused) in the same directory, renamed over it when
 *     complete, with the old file's permission bits;
 *   - a symbolic link is written through: its target is what is replaced
 *     (the link stays a link); a link to nothing is refused;
 *   - a new file is made the same way, with the usual 0666 & ~umask.
 */
cli_output *cli_output_open(const char *path)
{
	cli_output *o = calloc(1, sizeof(*o));
	struct stat st, lst;
	bool exists;
	mode_t mode;
	char *dir = NULL, *slash;
	int fd = -1;

	if (!o) {
		cli_error("out of memory");
		return NULL;
	}
	if (!path || strcmp(path, "-") == 0) {
		o->stream = stdout;
		return o;
	}
	o->path = strdup(path);
	if (!o->path) {
		cli_error("out of memory");
		goto fail;
	}
	exists = stat(path, &st) == 0;
	if (!exists && errno != ENOENT) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		goto fail;
	}
	if (!exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		cli_error("%s: cannot write: it is a symbolic link to a file that does not exist",
		          path);
		goto fail;
	}
	if (exists && S_ISDIR(st.st_mode)) {
		cli_error("%s: cannot write: it is a directory", path);
		goto fail;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* In place: O_NOCTTY so a terminal device does not become ours. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0 || !(o->stream = fdopen(fd, "wb"))) {
			cli_error("%s: cannot write: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
		return o;
	}
	/* A regular file (through its links) or a new one. */
	o->target = exists ? realpath(path, NULL) : strdup(path);
	if (!o->target) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		goto fail;
	}
	dir = strdup(o->target);
	if (!dir) {
		cli_error("out of memory");
		goto fail;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	if (asprintf(&o->tmp_path, "%s/.%s.tmp.XXXXXX", slash ? dir : ".",
	             strrchr(o->target, '/') ? strrchr(o->target, '/') + 1 : o->target) < 0) {
		o->tmp_path = NULL;
		cli_error("out of memory");
		goto fail;
	}
	fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		goto fail;
	}
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) != 0 || !(o->stream = fdopen(fd, "wb"))) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp_path);
		goto fail;
	}
	free(dir);
	return o;
fail:
	free(dir);
	free(o->path);
	free(o->target);
	free(o->tmp_path);
	free(o);
	return NULL;
}

FILE *cli_output_stream(cli_output *o)
{
	return o->stream;
}

int cli_output_close(cli_output *o, bool ok)
{
	int rc = CLI_EXIT_OK;
	const char *name;

	if (!o)
		return CLI_EXIT_ERROR;
	name = o->path ? o->path : "standard output";
	if (o->stream == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			if (ok)
				rc = cli_error("%s: write failed: %s", name, strerror(errno));
			else
				rc = CLI_EXIT_ERROR;
		}
	} else if (!o->tmp_path) {
		/* Written in place (a device or FIFO): nothing to rename or remove. */
		bool failed = ferror(o->stream) != 0;

		failed |= fclose(o->stream) != 0;
		if (failed)
			rc = ok ? cli_error("%s: write failed: %s", name, strerror(errno))
			        : CLI_EXIT_ERROR;
		else if (!ok)
			rc = CLI_EXIT_ERROR;
	} else {
		bool failed = ferror(o->stream) != 0;
		failed |= fclose(o->stream) != 0;
		if (failed && ok)
			rc = cli_error("%s: write failed: %s", name, strerror(errno));
		if (failed || !ok) {
			unlink(o->tmp_path);
			if (!failed)
				rc = CLI_EXIT_ERROR;
		} else if (rename(o->tmp_path, o->target) != 0) {
			rc = cli_error("%s: cannot write: %s", name, strerror(errno));
			unlink(o->tmp_path);
		}
	}
	free(o->path);
	free(o->target);
	free(o->tmp_path);
	free(o);
	return rc;
}

int cli_write_output(const char *path, const void *data, size_t len)
{
	cli_output *o = cli_output_open(path);

	if (!o)
		return CLI_EXIT_ERROR;
	bool ok = len == 0 || fwrite(data, 1, len, cli_output_stream(o)) == len;
	if (!ok) {
		cli_error("%s: write failed: %s", path && strcmp(path, "-") ? path : "standard output",
		          strerror(errno));
		cli_output_close(o, false);
		return CLI_EXIT_ERROR;
	}
	return cli_output_close(o, true);
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
