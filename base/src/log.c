/*
 * Poplar-style logging. POPLAR_LOG_LEVEL chooses how much is written and
 * POPLAR_LOG_DEST where; both are read on first use and again by
 * tsi_log_reconfigure(). This is the one place where the runtime writes to
 * a stream of its own accord: the user asked for it through the
 * environment, exactly as with Poplar.
 *
 * Threads: the configuration is read once under pthread_once (and again
 * on request) holding a mutex; each line is formatted off the lock and then
 * written with one fprintf+fflush under the same mutex, so lines from
 * several threads never interleave. The level is cached in an atomic so
 * tsi_log_enabled() costs one load.
 */
#define _GNU_SOURCE 1 /* gettid-style syscall, strcasecmp */

#define TSI_BUILDING_LIBRARY 1
#include "tilescope/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
/* The active level, a tsi_log_level, or -1 until the environment is read. */
static atomic_int log_level = -1;
/* Where lines go; NULL means stderr (resolved at write time so a test's
 * freopen of stderr is honoured). Guarded by log_mutex. */
static FILE *log_dest;
/* True when log_dest was opened here and must be closed on reconfigure. */
static bool log_dest_owned;

/* Poplar's level names, indexed by tsi_log_level. */
static const char *const level_names[] = {
	[TSI_LOG_TRACE] = "TRACE",
	[TSI_LOG_DEBUG] = "DEBUG",
	[TSI_LOG_INFO] = "INFO",
	[TSI_LOG_WARN] = "WARN",
	[TSI_LOG_ERR] = "ERR",
	[TSI_LOG_OFF] = "OFF",
};

/* The letter that marks a line's level, indexed by tsi_log_level. */
static const char level_letters[] = {'T', 'D', 'I', 'W', 'E'};

/*
 * Parses a POPLAR_LOG_LEVEL value. Case does not matter, so "info" and
 * "INFO" agree, as they do in Poplar.
 */
TSI_API int tsi_log_level_parse(tsi_log_level *out, const char *text)
{
	size_t i;

	if (!out || !text)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_log_level_parse: NULL argument");
	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (strcasecmp(text, level_names[i]) == 0) {
			*out = (tsi_log_level)i;
			return TSI_OK;
		}
	}
	return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
	                     "unknown log level '%s' (use OFF, ERR, WARN, INFO, DEBUG or TRACE)",
	                     text);
}

/*
 * Reads POPLAR_LOG_LEVEL and POPLAR_LOG_DEST and installs them. The caller
 * holds log_mutex. A bad level or an unopenable file is reported once per
 * reading, on stderr, because there is nowhere better to say it.
 */
static void log_read_env_locked(void)
{
	const char *level_text = getenv("POPLAR_LOG_LEVEL");
	const char *dest_text = getenv("POPLAR_LOG_DEST");
	tsi_log_level level = TSI_LOG_OFF;
	FILE *dest = NULL;
	bool owned = false;

	if (level_text && *level_text && tsi_log_level_parse(&level, level_text) != TSI_OK) {
		fprintf(stderr,
		        "PO: unknown POPLAR_LOG_LEVEL '%s' (use OFF, ERR, WARN, INFO, DEBUG or TRACE); "
		        "logging is off\n",
		        level_text);
		fflush(stderr);
		level = TSI_LOG_OFF;
	}

	if (dest_text && *dest_text && strcmp(dest_text, "stderr") != 0) {
		if (strcmp(dest_text, "stdout") == 0) {
			dest = stdout;
		} else if (level != TSI_LOG_OFF) {
			/* Only open the file when something may be written to it. */
			dest = fopen(dest_text, "a");
			if (dest) {
				owned = true;
			} else {
				fprintf(stderr, "PO: cannot open POPLAR_LOG_DEST '%s' (%s); logging to stderr\n",
				        dest_text, strerror(errno));
				fflush(stderr);
			}
		}
	}

	if (log_dest_owned && log_dest)
		fclose(log_dest);
	log_dest = dest;
	log_dest_owned = owned;
	atomic_store_explicit(&log_level, (int)level, memory_order_release);
}

/*
 * pthread_once initialiser: reads the environment unless
 * tsi_log_reconfigure() already did (so a bad value is reported once).
 */
static void log_init_once(void)
{
	pthread_mutex_lock(&log_mutex);
	if (atomic_load_explicit(&log_level, memory_order_acquire) < 0)
		log_read_env_locked();
	pthread_mutex_unlock(&log_mutex);
}

/*
 * Re-reads the environment, closing a log file opened earlier. Meant for
 * tests and for models that change the variables while running.
 */
TSI_API void tsi_log_reconfigure(void)
{
	pthread_mutex_lock(&log_mutex);
	log_read_env_locked();
	pthread_mutex_unlock(&log_mutex);
	pthread_once(&log_once, log_init_once); /* marks the first reading done */
}

/*
 * True when a line at `level` would be written. Once the environment has
 * been read this is a single atomic load of the cached level.
 */
TSI_API bool tsi_log_enabled(tsi_log_level level)
{
	int active = atomic_load_explicit(&log_level, memory_order_acquire);

	if (active < 0) {
		pthread_once(&log_once, log_init_once);
		active = atomic_load_explicit(&log_level, memory_order_acquire);
	}
	return (unsigned)level < TSI_LOG_OFF && (int)level >= active;
}

/*
 * Writes "PO:<component> <pid>.<tid> <L>: <message>" as one line to `out`
 * (NULL: the log's destination). The message is formatted before taking
 * the lock; a message longer than the stack buffer is formatted again
 * into the heap rather than cut short.
 */
static void write_line(FILE *out, tsi_log_level level, const char *component, const char *fmt,
                       va_list ap)
{
	char stack_buf[512];
	char *msg = stack_buf;
	char *heap_buf = NULL;
	va_list again;
	int n;
	size_t len;

	va_copy(again, ap);
	n = vsnprintf(stack_buf, sizeof(stack_buf), fmt, ap);
	if (n >= 0 && (size_t)n >= sizeof(stack_buf)) {
		heap_buf = malloc((size_t)n + 1);
		if (heap_buf) {
			vsnprintf(heap_buf, (size_t)n + 1, fmt, again);
			msg = heap_buf;
		}
	}
	va_end(again);
	if (n < 0)
		return;
	/* A message that already ends in a newline does not get a second one. */
	len = strlen(msg);
	if (len > 0 && msg[len - 1] == '\n')
		msg[len - 1] = '\0';

	pthread_mutex_lock(&log_mutex);
	if (!out)
		out = log_dest ? log_dest : stderr;
	fprintf(out, "PO:%-8s %d.%d %c: %s\n", component ? component : "", (int)getpid(),
	        (int)syscall(SYS_gettid), level_letters[level], msg);
	fflush(out);
	pthread_mutex_unlock(&log_mutex);

	free(heap_buf);
}

TSI_API void tsi_log(tsi_log_level level, const char *component, const char *fmt, ...)
{
	va_list ap;

	if (!fmt || !tsi_log_enabled(level))
		return;
	va_start(ap, fmt);
	write_line(NULL, level, component, fmt, ap);
	va_end(ap);
}

/* stderr, not POPLAR_LOG_DEST: the user who turned logging off (the
 * default) must still see it. */
TSI_API void tsi_log_always(const char *component, const char *fmt, ...)
{
	va_list ap;

	if (!fmt)
		return;
	va_start(ap, fmt);
	write_line(stderr, TSI_LOG_WARN, component, fmt, ap);
	va_end(ap);
}
