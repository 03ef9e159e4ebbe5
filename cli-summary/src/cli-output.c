/*
 * Where `-o FILE` puts a command's output (cli.h), and the files the
 * command reads, which it never overwrites.
 *
 * The rule is the shell's `>` wherever a user would see a difference,
 * and "whole or not at all" where `>` would leave half a file behind
 * (README, "The `tilescope` command"):
 *
 *   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a
 *     descriptor this process already has: it is duplicated, so the
 *     output lands where the shell sent that descriptor, at its offset
 *     and with its O_APPEND (`{ echo header; tilescope summary -o
 *     /dev/stdout rep; } >> log` keeps the header). Another process's
 *     /proc/PID/fd/N, a device, a FIFO or a socket is opened and written
 *     in place, never replaced by a regular file;
 *   - a FIFO nobody reads is refused after a short wait (the shell would
 *     block for ever): opened with O_NONBLOCK, which fails with ENXIO
 *     while there is no reader, then made blocking for the writes;
 *   - a regular file (through its symbolic links) must be one the user
 *     may write, as `>` requires: a 0444 file is refused with one line.
 *     The output is made in a temporary beside it (mkostemp) and renamed
 *     over it when complete, with the old file's mode, owner and group;
 *     when a new file cannot be the old one (it has other hard links, or
 *     its owner or group cannot be given to a new file), the complete
 *     output is copied into the file itself instead, as `>` writes it:
 *     the inode, its links, owner, mode and ACLs stay;
 *   - a file this command reads (cli_note_input) is never written, under
 *     any of its names (device and inode compared): `summary -o
 *     rep/profile.pop rep` is refused before anything is written.
 *
 * A failed write (EFBIG under `ulimit -f`: main() ignores SIGXFSZ so it
 * is an error, not a kill) removes the temporary and leaves the old file
 * as it was.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long -o waits for a FIFO's reader before giving up (ms): long
 * enough for `tilescope ... -o fifo & reader < fifo`, short enough that
 * a forgotten reader is an error, not a hang. */
#define FIFO_READER_WAIT_MS 2000

/* The longest path followed through its links (Linux's PATH_MAX; the
 * name <limits.h> is this directory's limits.h for the diff). */
#define LINK_PATH_MAX 4096

/* --- Inputs ------------------------------------------------------------------------ */

typedef struct cli_input {
	dev_t dev;
	ino_t ino;
	char *path; /* as first named, for messages */
} cli_input;

static cli_input *inputs;
static size_t n_inputs, cap_inputs;

/* Records the regular file `path` as read by this command. */
static void note_file(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < n_inputs; i++)
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino)
			return;
	if (n_inputs == cap_inputs) {
		size_t cap = cap_inputs ? cap_inputs * 2 : 8;
		cli_input *grown = realloc(inputs, cap * sizeof(*inputs));

		if (!grown)
			return;
		inputs = grown;
		cap_inputs = cap;
	}
	inputs[n_inputs].path = strdup(path);
	if (!inputs[n_inputs].path)
		return;
	inputs[n_inputs].dev = st.st_dev;
	inputs[n_inputs].ino = st.st_ino;
	n_inputs++;
}

void cli_note_input(const char *path)
{
	struct stat st;

	if (!path || stat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		/* An autoReport directory: the files a report is read from. The
		 * traces a directory gives are noted by cli_open_trace, which
		 * knows which ones were taken. */
		static const char *const report_files[] = {"profile.pop", "debug.cbor"};

		for (size_t i = 0; i < sizeof(report_files) / sizeof(report_files[0]); i++) {
			char *full = NULL;

			if (asprintf(&full, "%s/%s", path, report_files[i]) >= 0) {
				note_file(full);
				free(full);
			}
		}
		return;
	}
	note_file(path);
}

void cli_note_input_args(int argc, char **argv)
{
	bool operands_only = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!operands_only && a[0] == '-' && a[1]) {
			if (strcmp(a, "--") == 0)
				operands_only = true;
			else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
				i++; /* -o's value is the output */
			continue;
		}
		cli_note_input(a);
	}
}

/* The input that `st` is, or NULL. */
static const cli_input *lookup_input(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return NULL;
	for (size_t i = 0; i < n_inputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return &inputs[i];
	return NULL;
}

/* Prints the refusal to write `name` (which is `in`); returns false. */
static bool refuse_input(const char *name, const cli_input *in)
{
	if (strcmp(name, in->path) == 0)
		cli_error("%s: not written: this command reads it", name);
	else
		cli_error("%s: not written: it is %s, which this command reads", name, in->path);
	return false;
}

/* --- Naming a descriptor ----------------------------------------------------------- */

/* Reads decimal digits at *p (advancing it); -1 when there are none or
 * too many. */
static long read_number(const char **p)
{
	long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (INT32_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*p = s;
	return v;
}

/*
 * The descriptor that `path` (as written) names: /dev/stdin, /dev/stdout,
 * /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N or
 * /proc/PID[/task/TID]/fd/N with this process's PID give N; another
 * process's /proc/PID/.../fd/N gives -2; anything else -1.
 */
static int fd_path_number(const char *path)
{
	const char *p;
	bool ours = true;
	long n;

	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	if (strncmp(path, "/dev/fd/", 8) == 0) {
		p = path + 8;
	} else if (strncmp(path, "/proc/", 6) == 0) {
		p = path + 6;
		if (strncmp(p, "self/", 5) == 0) {
			p += 5;
		} else if (strncmp(p, "thread-self/", 12) == 0) {
			p += 12;
		} else {
			long pid = read_number(&p);

			if (pid < 0 || *p++ != '/')
				return -1;
			ours = pid == (long)getpid();
			if (strncmp(p, "task/", 5) == 0) {
				p += 5;
				if (read_number(&p) < 0 || *p++ != '/')
					return -1;
			}
		}
		if (strncmp(p, "fd/", 3) != 0)
			return -1;
		p += 3;
	} else {
		return -1;
	}
	n = read_number(&p);
	if (n < 0 || *p)
		return -1;
	return ours ? (int)n : -2;
}

/*
 * fd_path_number of `path` or of any symbolic link on the way to its
 * file (a link made to /dev/stdout names stdout too), -1 when none is.
 */
static int fd_path_through_links(const char *path)
{
	char cur[LINK_PATH_MAX], link[LINK_PATH_MAX];

	if (strlen(path) >= sizeof(cur))
		return -1;
	strcpy(cur, path);
	for (int hops = 0; hops < 40; hops++) {
		int n = fd_path_number(cur);
		ssize_t len;

		if (n != -1)
			return n;
		len = readlink(cur, link, sizeof(link) - 1);
		if (len < 0)
			return -1;
		link[len] = '\0';
		if (link[0] == '/') {
			memcpy(cur, link, (size_t)len + 1);
		} else {
			char *slash = strrchr(cur, '/');
			size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;

			if (dir + (size_t)len >= sizeof(cur))
				return -1;
			memcpy(cur + dir, link, (size_t)len + 1);
		}
	}
	return -1;
}

/* --- Opening ------------------------------------------------------------------------ */

struct cli_output {
	FILE *stream;
	char *path;       /* as given, for messages; NULL: standard output */
	char *target;     /* the regular file replaced (through its links); NULL: in place */
	char *tmp_path;   /* the temporary holding the output (NULL: unnamed, or none) */
	int target_fd;    /* >= 0: the target, open for writing, into which the
	                     output is copied when complete instead of renamed */
};

/* Frees `o` and what it holds (closes nothing but target_fd). */
static void output_free(cli_output *o)
{
	if (o->target_fd >= 0)
		close(o->target_fd);
	free(o->path);
	free(o->target);
	free(o->tmp_path);
	free(o);
}

/* Sleeps `ms` milliseconds. */
static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * Opens `path`, which is not a regular file replaced whole (a device, a
 * FIFO, a socket, another process's descriptor), for writing in place:
 * without waiting for a FIFO's reader for ever, and (`trunc`) emptied
 * first when it is a regular file, as `>` does. -1 (printed) on failure.
 */
static int open_in_place(const char *path, bool trunc)
{
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (trunc ? O_TRUNC : 0);
	int fd = -1, waited = 0;
	struct stat st;

	for (;;) {
		fd = open(path, flags);
		if (fd >= 0 || errno != ENXIO || stat(path, &st) != 0 || !S_ISFIFO(st.st_mode))
			break;
		/* A FIFO without a reader: the shell's `>` would wait for ever. */
		if (waited >= FIFO_READER_WAIT_MS) {
			cli_error("%s: cannot write: no process is reading this FIFO", path);
			return -1;
		}
		sleep_ms(10);
		waited += 10;
	}
	if (fd < 0) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		return -1;
	}
	/* Blocking from now on: a slow reader is waited for, as by `>`. */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		cli_error("%s: cannot write: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Wraps `fd` (taken over) as o->stream; false (printed) on failure. */
static bool stream_of(cli_output *o, int fd, const char *mode)
{
	o->stream = fdopen(fd, mode);
	if (!o->stream) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		close(fd);
		return false;
	}
	return true;
}

/*
 * The descriptor `n` of this process (named by /dev/stdout and the like)
 * as o->stream. Returns 1 when done, 0 when `n` is not open for writing
 * (then the path is opened like any other), -1 (printed) on failure.
 */
static int open_own_fd(cli_output *o, int n)
{
	struct stat st;
	const cli_input *in;
	int fl = fcntl(n, F_GETFL), fd;

	if (fl < 0) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		return -1;
	}
	if ((fl & O_ACCMODE) == O_RDONLY)
		return 0;
	if (fstat(n, &st) == 0 && (in = lookup_input(&st))) {
		refuse_input(o->path, in);
		return -1;
	}
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		return -1;
	}
	return stream_of(o, fd, "wb") ? 1 : -1;
}

/*
 * A regular file, existing (`st`) or new: the temporary beside it that
 * will hold the output, and whether the output will be renamed over the
 * file or copied into it (o->target_fd). False (printed) on failure.
 */
static bool open_replacement(cli_output *o, bool exists, const struct stat *st)
{
	char *dir = NULL, *slash;
	const char *base;
	bool copy_in = false;
	struct stat tst;
	mode_t mode;
	int fd = -1;

	o->target = exists ? realpath(o->path, NULL) : strdup(o->path);
	if (!o->target) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		return false;
	}
	if (exists) {
		/* Writable as `>` would need it (the kernel decides: a 0444 file
		 * is refused, except to root); kept for a copy into it. */
		o->target_fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
		if (o->target_fd < 0) {
			cli_error("%s: cannot write: %s", o->path, strerror(errno));
			return false;
		}
		/* A rename would leave its other names with the old bytes. */
		copy_in = st->st_nlink > 1;
	}
	dir = strdup(o->target);
	if (!dir) {
		cli_error("out of memory");
		return false;
	}
	slash = strrchr(dir, '/');
	base = slash ? o->target + (slash - dir) + 1 : o->target;
	if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	if (asprintf(&o->tmp_path, "%s/.%s.tmp.XXXXXX", slash ? dir : ".", base) < 0) {
		o->tmp_path = NULL;
		free(dir);
		cli_error("out of memory");
		return false;
	}
	free(dir);
	fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (fd < 0 && exists && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		/* A directory we may not write, holding a file we may: `>`
		 * works there, so the output waits in an unnamed file elsewhere
		 * and is copied in. */
		free(o->tmp_path);
		o->tmp_path = NULL;
		o->stream = tmpfile();
		if (!o->stream) {
			cli_error("%s: cannot write: %s", o->path, strerror(errno));
			return false;
		}
		return true;
	}
	if (fd < 0) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		return false;
	}
	if (exists) {
		mode = st->st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) != 0) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		goto fail;
	}
	/* Its owner and group, or (when a new file cannot have them: only
	 * root may give a file away) the old file is written into. */
	if (exists && !copy_in && fstat(fd, &tst) == 0 &&
	    (tst.st_uid != st->st_uid || tst.st_gid != st->st_gid) &&
	    (fchown(fd, st->st_uid, st->st_gid) != 0 || fchmod(fd, mode) != 0))
		copy_in = true;
	if (!copy_in && o->target_fd >= 0) {
		close(o->target_fd);
		o->target_fd = -1;
	}
	/* "w+": a copy into the target reads the output back. */
	o->stream = fdopen(fd, "w+b");
	if (!o->stream) {
		cli_error("%s: cannot write: %s", o->path, strerror(errno));
		goto fail;
	}
	return true;
fail:
	close(fd);
	unlink(o->tmp_path);
	free(o->tmp_path);
	o->tmp_path = NULL;
	return false;
}

cli_output *cli_output_open(const char *path)
{
	cli_output *o = calloc(1, sizeof(*o));
	struct stat st, lst;
	const cli_input *in;
	bool exists;
	int n;

	if (!o) {
		cli_error("out of memory");
		return NULL;
	}
	o->target_fd = -1;
	if (!path || strcmp(path, "-") == 0) {
		/* `tilescope summary rep >> rep/profile.pop`: the shell made it,
		 * but the command need not write into what it reads. */
		if (fstat(STDOUT_FILENO, &st) == 0 && (in = lookup_input(&st))) {
			refuse_input("standard output", in);
			free(o);
			return NULL;
		}
		o->stream = stdout;
		return o;
	}
	o->path = strdup(path);
	if (!o->path) {
		cli_error("out of memory");
		goto fail;
	}
	n = fd_path_through_links(path);
	if (n >= 0) {
		int done = open_own_fd(o, n);

		if (done > 0)
			return o;
		if (done < 0)
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
	if (exists && (in = lookup_input(&st))) {
		refuse_input(path, in);
		goto fail;
	}
	if (n != -1 || (exists && !S_ISREG(st.st_mode))) {
		/* A descriptor of this process not open for writing, another
		 * process's, a device, a FIFO: written in place. */
		int fd = open_in_place(path, exists && S_ISREG(st.st_mode));

		if (fd < 0 || !stream_of(o, fd, "wb"))
			goto fail;
		return o;
	}
	if (!open_replacement(o, exists, &st))
		goto fail;
	return o;
fail:
	output_free(o);
	return NULL;
}

const char *cli_output_name(const char *path)
{
	return path && strcmp(path, "-") != 0 ? path : "standard output";
}

FILE *cli_output_stream(cli_output *o)
{
	return o->stream;
}

/*
 * Copies the complete output in o->stream into the target over its old
 * bytes, then cuts it to the output's length. errno is kept on failure.
 */
static bool copy_into_target(cli_output *o)
{
	char buf[65536];
	int from = fileno(o->stream);
	off_t off = 0;

	for (;;) {
		ssize_t got = pread(from, buf, sizeof(buf), off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return false;
		if (got == 0)
			break;
		for (ssize_t done = 0; done < got;) {
			ssize_t w = pwrite(o->target_fd, buf + done, (size_t)(got - done), off + done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				if (w == 0)
					errno = EIO;
				return false;
			}
			done += w;
		}
		off += got;
	}
	return ftruncate(o->target_fd, off) == 0;
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
		free(o);
		return rc;
	}
	if (!o->target) {
		/* Written in place: nothing to rename or remove. */
		bool failed = ferror(o->stream) != 0;

		failed |= fclose(o->stream) != 0;
		if (failed)
			rc = ok ? cli_error("%s: write failed: %s", name, strerror(errno))
			        : CLI_EXIT_ERROR;
		else if (!ok)
			rc = CLI_EXIT_ERROR;
		output_free(o);
		return rc;
	}
	/* The output is complete in the temporary, or failed. */
	bool copy_in = o->target_fd >= 0;
	bool failed = ferror(o->stream) != 0 || fflush(o->stream) != 0;

	if (failed)
		rc = ok ? cli_error("%s: write failed: %s", name, strerror(errno)) : CLI_EXIT_ERROR;
	else if (!ok)
		rc = CLI_EXIT_ERROR;
	else if (copy_in) {
		if (!copy_into_target(o))
			rc = cli_error("%s: write failed: %s (the file now holds part of the new output)",
			               name, strerror(errno));
		else if (close(o->target_fd) != 0)
			rc = cli_error("%s: write failed: %s", name, strerror(errno));
		o->target_fd = -1;
	}
	if (fclose(o->stream) != 0 && rc == CLI_EXIT_OK && !copy_in)
		rc = cli_error("%s: write failed: %s", name, strerror(errno));
	if (o->tmp_path) {
		if (rc == CLI_EXIT_OK && !copy_in && rename(o->tmp_path, o->target) != 0)
			rc = cli_error("%s: cannot write: %s", name, strerror(errno));
		if (rc != CLI_EXIT_OK || copy_in)
			unlink(o->tmp_path);
	}
	output_free(o);
	return rc;
}

int cli_write_output(const char *path, const void *data, size_t len)
{
	cli_output *o = cli_output_open(path);

	if (!o)
		return CLI_EXIT_ERROR;
	bool ok = len == 0 || fwrite(data, 1, len, cli_output_stream(o)) == len;
	if (!ok) {
		cli_error("%s: write failed: %s", cli_output_name(path), strerror(errno));
		cli_output_close(o, false);
		return CLI_EXIT_ERROR;
	}
	return cli_output_close(o, true);
}
