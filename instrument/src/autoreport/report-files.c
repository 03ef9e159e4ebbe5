/*
 * The files of a report, kept complete at every moment: a report is built
 * under a hidden temporary name beside its path and renamed over it when
 * complete (published), durably; copies and stale temporaries are handled
 * here. The profile.pop writer (profile-writer.c) decides what goes into
 * the files; this file only keeps them whole.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range */
#endif
#include <tilescope/alloc.h>
#include "autoreport-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The temporary name for building `path`: ".<basename>.<pid>.<n>.tmp" in
 * the same directory, so the final rename never crosses file systems and
 * a leftover is hidden and recognisable; <n> counts the temporary files of
 * this process, so two engines writing at once never share one. malloc'd;
 * NULL when out of memory.
 */
char *tsi_report_temp_path(const char *path)
{
	static unsigned long counter;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	size_t size = strlen(path) + 64;
	char *tmp = tsb_malloc(size);

	if (tmp)
		snprintf(tmp, size, "%.*s.%s.%ld.%lu.tmp", dir_len, path, base, (long)getpid(),
		         __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
	return tmp;
}

/* Starts writing `file`'s data to the disk and waits for it (best
 * effort: tsi_report_publish checks the final sync). */
void tsi_report_sync_data(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		fdatasync(fd);
		close(fd);
	}
}

/*
 * Renames the finished `tmp` over `path`, durably: the file's data reach
 * the disk before the rename (profile.pop is built without a journal or
 * syncs, for speed; debug.cbor is written in one go), and the directory's
 * entry after it, so a power cut leaves the old report or the new one,
 * never a renamed empty file.
 */
int tsi_report_publish(const char *tmp, const char *path)
{
	int fd = open(tmp, O_RDONLY | O_CLOEXEC);
	char *dir, *slash;

	if (fd < 0 || fsync(fd) != 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return tsi_set_error(TSI_ERR_IO, "cannot write report '%s': cannot sync '%s': %s",
		                     path, tmp, strerror(err));
	}
	close(fd);
	if (rename(tmp, path) != 0)
		return tsi_set_error(TSI_ERR_IO, "cannot write report '%s': cannot rename '%s': %s",
		                     path, tmp, strerror(errno));
	dir = tsb_strdup(path);
	if (dir) {
		slash = strrchr(dir, '/');
		if (slash)
			slash[slash == dir ? 1 : 0] = '\0';
		fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd); /* best effort: some file systems refuse it */
			close(fd);
		}
		free(dir);
	}
	return TSI_OK;
}

/*
 * Removes the temporaries that writers killed mid-write left beside
 * `path` (".profile.pop.<pid>.<n>.tmp", "debug.cbor.tmp.<pid>.<n>"): those
 * of processes that no longer exist. A live writer's are kept; so are
 * files of other shapes.
 */
void tsi_report_remove_stale_temporaries(const char *path)
{
	char *dir = tsb_strdup(path), *slash;
	DIR *d;
	struct dirent *e;

	if (!dir)
		return;
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	d = opendir(slash ? dir : ".");
	while (d && (e = readdir(d))) {
		long pid = 0;
		unsigned long n;
		int end = 0;
		char full[PATH_MAX];

		if (!(sscanf(e->d_name, ".profile.pop.%ld.%lu.tmp%n", &pid, &n, &end) == 2 &&
		      e->d_name[end] == '\0') &&
		    !(sscanf(e->d_name, "debug.cbor.tmp.%ld.%lu%n", &pid, &n, &end) == 2 &&
		      e->d_name[end] == '\0'))
			continue;
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (snprintf(full, sizeof(full), "%s/%s", slash ? dir : ".", e->d_name) <
		    (int)sizeof(full))
			unlink(full);
	}
	if (d)
		closedir(d);
	free(dir);
}

/*
 * Copies the file `from` to the new file `to` (same permissions), with
 * copy_file_range where the file system offers it and read/write
 * otherwise.
 */
int tsi_report_copy_file(const char *from, const char *to)
{
	int in = -1, out = -1, rc = TSI_OK;
	struct stat sb;
	char *buf = NULL;
	bool use_range = true;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &sb) != 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot read report '%s': %s", from, strerror(errno));
		goto out;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, sb.st_mode & 0777);
	if (out < 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot write report copy '%s': %s", to,
		                   strerror(errno));
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (use_range) {
			n = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
			              errno == EOPNOTSUPP)) {
				use_range = false;
				continue;
			}
		} else {
			if (!buf && !(buf = tsb_malloc(1 << 20))) {
				rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory copying '%s'",
				                   from);
				goto out;
			}
			n = read(in, buf, 1 << 20);
			for (ssize_t done = 0; n > 0 && done < n;) {
				ssize_t w = write(out, buf + done, (size_t)(n - done));

				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0) {
					n = -1;
					break;
				}
				done += w;
			}
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = tsi_set_error(TSI_ERR_IO, "cannot copy report '%s' to '%s': %s", from, to,
			                   strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
	}
	if (close(out) != 0)
		rc = tsi_set_error(TSI_ERR_IO, "cannot write report copy '%s': %s", to,
		                   strerror(errno));
	out = -1;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	free(buf);
	return rc;
}
