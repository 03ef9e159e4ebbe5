/*
 * The shared parts of the tilescope command (cli-summary/src/cli.c): the
 * option value parsers, outputs written through a temporary file, and
 * the progress line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void test_parse_u64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_true(cli_parse_u64("0", &v));
	assert_int_equal(v, 0);
	assert_true(cli_parse_u64("18446744073709551615", &v));
	assert_true(v == UINT64_MAX);
	assert_false(cli_parse_u64("18446744073709551616", &v));
	assert_false(cli_parse_u64("", &v));
	assert_false(cli_parse_u64("-1", &v));
	assert_false(cli_parse_u64("+1", &v));
	assert_false(cli_parse_u64("12x", &v));
	assert_false(cli_parse_u64(" 1", &v));
	assert_false(cli_parse_u64(NULL, &v));
}

/*
 * What a test of an output or of the progress line makes: its own
 * temporary directory, and stderr while it is redirected to a file. The
 * teardown puts stderr back and removes the directory, also after a
 * failed assertion, so a failure leaves neither behind.
 */
typedef struct fixture {
	char *dir;        /* malloc'd; removed with what is in it */
	int saved_stderr; /* a copy of the real stderr while redirected; -1: not */
	char *text;       /* what read_all read last */
} fixture;

static int setup(void **state)
{
	const char *base = getenv("TMPDIR");
	fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->saved_stderr = -1;
	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&f->dir, "%s/tilescope-cli-test.XXXXXX", base) < 0 || !mkdtemp(f->dir)) {
		free(f->dir);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int remove_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	fixture *f = *state;

	cli_progress_end();
	unsetenv("TILESCOPE_PROGRESS");
	if (f->saved_stderr >= 0) {
		fflush(stderr);
		dup2(f->saved_stderr, STDERR_FILENO);
		close(f->saved_stderr);
	}
	nftw(f->dir, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(f->dir);
	free(f->text);
	free(f);
	return 0;
}

/* Sends stderr to `path` (emptied) until the teardown or stderr_restore. */
static void stderr_to(fixture *f, const char *path)
{
	fflush(stderr);
	if (f->saved_stderr < 0) {
		f->saved_stderr = dup(STDERR_FILENO);
		assert_true(f->saved_stderr >= 0);
	}
	assert_non_null(freopen(path, "w", stderr));
}

static void stderr_restore(fixture *f)
{
	fflush(stderr);
	assert_true(dup2(f->saved_stderr, STDERR_FILENO) >= 0);
	close(f->saved_stderr);
	f->saved_stderr = -1;
}

/* The first 64 KiB of `path`, NUL-terminated, in f->text (replacing the
 * last one read; the teardown frees it). */
static const char *read_all(fixture *f, const char *path, size_t *len)
{
	FILE *in = fopen(path, "rb");

	assert_non_null(in);
	free(f->text);
	f->text = calloc(1, 65536);
	if (!f->text)
		fclose(in);
	assert_non_null(f->text);
	*len = fread(f->text, 1, 65535, in);
	fclose(in);
	return f->text;
}

/* Runs a shell command made from `fmt` and returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * -o targets that are not a plain new file (issue 18): a symlink is
 * written through and stays a link, the file keeps its mode; a link to
 * nothing, a directory are refused; a FIFO and a device are written in
 * place, never replaced; a file planted under the old temporary name
 * (<FILE>.tmp.<pid>, a symlink to a victim) is neither followed nor
 * touched.
 */
static void test_output_targets(void **state)
{
	fixture *f = *state;
	const char *dir = f->dir;
	char path[512], other[512], got[16];
	const char *text;
	size_t len;
	ssize_t n;
	struct stat st;
	int reader;

	/* Through a symlink: the target is replaced, the link stays. */
	snprintf(path, sizeof(path), "%s/real.txt", dir);
	assert_int_equal(cli_write_output(path, "old\n", 4), CLI_EXIT_OK);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(sh("ln -s real.txt %s/link.txt", dir), 0);
	snprintf(path, sizeof(path), "%s/link.txt", dir);
	assert_int_equal(cli_write_output(path, "new\n", 4), CLI_EXIT_OK);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(path, sizeof(path), "%s/real.txt", dir);
	text = read_all(f, path, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(text, "new\n", 4);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);

	/* A link to nothing and a directory: refused, nothing made. */
	assert_int_equal(sh("ln -s nowhere %s/dangling", dir), 0);
	snprintf(path, sizeof(path), "%s/dangling", dir);
	assert_int_equal(cli_write_output(path, "x", 1), CLI_EXIT_ERROR);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(cli_write_output(dir, "x", 1), CLI_EXIT_ERROR);

	/* A FIFO is written in place and stays a FIFO. Its reader is open
	 * before the write (non-blocking, so opening it waits for no writer):
	 * the write's open finds it at once, and what was written is in the
	 * pipe when cli_write_output returns. Nothing to wait for. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(reader >= 0);
	if (cli_write_output(path, "through\n", 8) != CLI_EXIT_OK) {
		close(reader);
		fail_msg("writing to a FIFO failed");
	}
	n = read(reader, got, sizeof(got));
	close(reader);
	assert_int_equal(n, 8);
	assert_memory_equal(got, "through\n", 8);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	/* A device: /dev/null takes it and stays a device. */
	assert_int_equal(cli_write_output("/dev/null", "x", 1), CLI_EXIT_OK);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* /dev/full (writable as root): the error, and still a device. */
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(cli_write_output("/dev/full", "x", 1), CLI_EXIT_ERROR);
		assert_int_equal(stat("/dev/full", &st), 0);
		assert_true(S_ISCHR(st.st_mode));
	}

	/* A symlink planted where the old code put its temporary. */
	snprintf(other, sizeof(other), "%s/victim", dir);
	assert_int_equal(cli_write_output(other, "precious\n", 9), CLI_EXIT_OK);
	assert_int_equal(sh("ln -s victim %s/out.txt.tmp.%ld", dir, (long)getpid()), 0);
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	assert_int_equal(cli_write_output(path, "result\n", 7), CLI_EXIT_OK);
	text = read_all(f, other, &len);
	assert_int_equal(len, 9);
	assert_memory_equal(text, "precious\n", 9);

	/* No temporaries left behind. */
	assert_int_equal(sh("test -z \"$(ls -A %s | grep '^\\.')\"", dir), 0);
}

static void test_output_file(void **state)
{
	fixture *f = *state;
	char path[512], missing[512];
	const char *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/out.txt", f->dir);
	assert_int_equal(cli_write_output(path, "hello\n", 6), CLI_EXIT_OK);
	text = read_all(f, path, &len);
	assert_int_equal(len, 6);
	assert_memory_equal(text, "hello\n", 6);

	/* A stream closed as failed leaves the earlier file as it was. */
	cli_output *o = cli_output_open(path);
	assert_non_null(o);
	fputs("half a resu", cli_output_stream(o));
	assert_int_equal(cli_output_close(o, false), CLI_EXIT_ERROR);
	text = read_all(f, path, &len);
	assert_int_equal(len, 6);

	/* Into a directory that does not exist: an error, nothing made. */
	snprintf(missing, sizeof(missing), "%s/no/such/dir.txt", f->dir);
	assert_null(cli_output_open(missing));
	assert_int_equal(cli_write_output(missing, "x", 1), CLI_EXIT_ERROR);

	/* Nothing but out.txt is left: no temporary files. */
	assert_int_equal(sh("test \"$(ls -A %s)\" = out.txt", f->dir), 0);
}

/* Seconds on CLOCK_MONOTONIC. */
static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * The progress line appears after a second on a step that lasts longer,
 * is erased at the end, and never appears for a quick step.
 *
 * Nothing here waits a fixed time for the line: the slow step lasts until
 * the line is in the file (polled, up to 20 s where it normally takes a
 * second), and its figure is only checked to be at least the second it
 * waited. A step is "quick" when begin to end took less than a second by
 * the test's own clock, which starts before the line's: then no line can
 * be due, however slow the machine; on a machine so loaded that even
 * that took a second, absence is not asserted.
 */
static void test_progress(void **state)
{
	fixture *f = *state;
	const char *text, *line;
	char path[512];
	double t0, quick_s, shown;
	size_t len;
	struct stat st;

	snprintf(path, sizeof(path), "%s/stderr.txt", f->dir);
	setenv("TILESCOPE_PROGRESS", "always", 1);
	stderr_to(f, path);

	t0 = now_s();
	cli_progress_begin("Quick step");
	cli_progress_end();
	quick_s = now_s() - t0;
	cli_progress_begin("Slow step");
	t0 = now_s();
	do {
		struct timespec pause = {0, 10000000};

		nanosleep(&pause, NULL);
		text = read_all(f, path, &len);
	} while (!strstr(text, "Slow step") && now_s() - t0 < 20);
	cli_progress_end();
	cli_progress_end(); /* twice is harmless */
	stderr_restore(f);

	text = read_all(f, path, &len);
	if (quick_s < 1.0)
		assert_null(strstr(text, "Quick step"));
	else
		print_message("begin to end of the quick step took %.2f s: its absence is not "
		              "checked\n", quick_s);
	line = strstr(text, "\r\033[Ktilescope: Slow step\u2026 ");
	if (!line)
		fail_msg("no progress line for the slow step in 20 s: '%s'", text);
	shown = strtod(line + strlen("\r\033[Ktilescope: Slow step\u2026 "), NULL);
	assert_true(shown >= 1.0);
	assert_true(len >= 4);
	assert_memory_equal(text + len - 4, "\r\033[K", 4);

	/* never: nothing drawn however long the step. The step outlasts the
	 * second after which "always" draws; a slower machine only makes it
	 * longer. */
	setenv("TILESCOPE_PROGRESS", "never", 1);
	stderr_to(f, path);
	t0 = now_s();
	cli_progress_begin("Slow step");
	while (now_s() - t0 < 1.1) {
		struct timespec pause = {0, 50000000};

		nanosleep(&pause, NULL);
	}
	cli_progress_end();
	stderr_restore(f);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test_setup_teardown(test_output_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_output_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
