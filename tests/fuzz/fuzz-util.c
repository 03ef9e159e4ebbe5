/* Temporary files for the libFuzzer targets (see fuzz-util.h). */
#include "fuzz-util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* Removes the directory's files and the directory (atexit). */
static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(tmpdir);
}

const char *fuzz_tmpdir(void)
{
	if (tmpdir[0])
		return tmpdir;
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/tilescope-fuzz-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(remove_tmpdir);
	return tmpdir;
}

const char *fuzz_write_file(const char *name, const uint8_t *data, size_t size)
{
	static const char *const side[] = {"", "-wal", "-shm", "-journal"};
	static char path[512];
	char other[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_tmpdir(), name);
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(other, sizeof(other), "%s%s", path, side[i]);
		unlink(other);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);

		if (w <= 0) {
			close(fd);
			return NULL;
		}
		done += (size_t)w;
	}
	close(fd);
	return path;
}

char *fuzz_dup_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
