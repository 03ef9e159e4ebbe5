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

#include <tilescope/alloc.h>
#include "trace-chrome-private.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the directory test reads of a file: enough for the keys of a first
 * event, or for the few keys PyTorch writes before "traceEvents". */
#define SNIFF_TRACE_BYTES 65536u

/* Whether `c` is JSON white space. */
static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Reads the start of the regular file `path` past a UTF-8 byte order mark
 * (editors write one, though JSON has none) and any amount of white space
 * (pretty-printers and concatenating scripts leave kilobytes of it): at
 * most `size` (>= 3) bytes from the first byte that is neither into buf.
 * Returns how many; 0 when the file cannot be read, is not a regular file
 * (a FIFO is refused before reading, so this never blocks) or holds
 * nothing else. White space is read through a buffer at a time however
 * long it is, as the parser would read it (it once stopped at 512 bytes,
 * and a file the README calls JSON was not).
 */
static size_t read_start(const char *path, unsigned char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	size_t got = 0, at;
	bool bom_checked = false, found = false;

	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return 0;
	}
	/* Until something else is found, what is read is dropped from the
	 * front of buf, so a block of white space makes room for the next. */
	for (;;) {
		ssize_t r = read(fd, buf + got, size - got);
		bool end = r <= 0;

		if (r > 0)
			got += (size_t)r;
		if (!bom_checked) {
			if (got < 3 && !end)
				continue;
			bom_checked = true;
			if (got >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf) {
				memmove(buf, buf + 3, got - 3);
				got -= 3;
			}
		}
		if (!found) {
			for (at = 0; at < got && is_space(buf[at]); at++)
				;
			memmove(buf, buf + at, got - at);
			got -= at;
			found = got > 0;
		}
		if (end || got == size)
			break;
	}
	close(fd);
	return got;
}

bool trace_chrome_sniff(const char *path)
{
	unsigned char buf[16];
	size_t n = read_start(path, buf, sizeof(buf));

	return n > 0 && (buf[0] == '[' || buf[0] == '{');
}

bool trace_chrome_sniff_trace(const char *path)
{
	static const char events_key[] = "\"traceEvents\"", phase_key[] = "\"ph\"";
	unsigned char *buf = tsb_malloc(SNIFF_TRACE_BYTES);
	size_t n = buf ? read_start(path, buf, SNIFF_TRACE_BYTES) : 0;
	bool yes = false;

	/* The object form must hold "traceEvents" (the reader refuses one
	 * without); the array form is events, whose phase key comes early. */
	if (n && buf[0] == '{')
		yes = memmem(buf, n, events_key, sizeof(events_key) - 1) != NULL;
	else if (n && buf[0] == '[')
		yes = memmem(buf, n, phase_key, sizeof(phase_key) - 1) != NULL;
	free(buf);
	return yes;
}
