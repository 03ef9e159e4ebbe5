/*
 * Telling Chrome trace-event JSON from a .pvti by content, never by the
 * file's name (trace-chrome-private.h). A file named on the command line
 * is JSON when its first byte past white space is '[' or '{': the user
 * chose it, so anything else it holds is an error worth naming. A file
 * found in a directory is taken only when its start also reads as a
 * trace, since a directory of results often holds other JSON (settings,
 * `tilescope export --json` summaries) that is not one.
 */
#define _GNU_SOURCE 1

#include "trace-chrome-private.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the directory test reads of a file: enough for the keys of a first
 * event, or for the few keys PyTorch writes before "traceEvents". */
#define SNIFF_TRACE_BYTES 65536u

/* Reads at most `size` bytes from the start of the regular file `path`
 * into buf; returns how many (0 when it cannot be read or is not a
 * regular file, which never blocks: a FIFO is refused before reading). */
static size_t read_start(const char *path, unsigned char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	size_t got = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		while (got < size) {
			ssize_t r = read(fd, buf + got, size - got);

			if (r <= 0)
				break;
			got += (size_t)r;
		}
	}
	close(fd);
	return got;
}

/* The first byte of buf[0..n) past a UTF-8 byte order mark (editors write
 * one, though JSON has none) and white space, or -1; *at its offset. */
static int first_byte(const unsigned char *buf, size_t n, size_t *at)
{
	size_t i = n >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf ? 3 : 0;

	for (; i < n; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r' && buf[i] != '\n') {
			*at = i;
			return buf[i];
		}
	return -1;
}

bool trace_chrome_sniff(const char *path)
{
	unsigned char buf[512];
	size_t at, n = read_start(path, buf, sizeof(buf));
	int c = first_byte(buf, n, &at);

	return c == '[' || c == '{';
}

bool trace_chrome_sniff_trace(const char *path)
{
	static const char events_key[] = "\"traceEvents\"", phase_key[] = "\"ph\"";
	unsigned char *buf = malloc(SNIFF_TRACE_BYTES);
	size_t at, n = buf ? read_start(path, buf, SNIFF_TRACE_BYTES) : 0;
	int c = first_byte(buf, n, &at);
	bool yes = false;

	/* The object form must hold "traceEvents" (the reader refuses one
	 * without); the array form is events, whose phase key comes early. */
	if (c == '{')
		yes = memmem(buf + at, n - at, events_key, sizeof(events_key) - 1) != NULL;
	else if (c == '[')
		yes = memmem(buf + at, n - at, phase_key, sizeof(phase_key) - 1) != NULL;
	free(buf);
	return yes;
}
