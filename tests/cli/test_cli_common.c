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

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void test_parse_bytes(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_true(cli_parse_bytes("512", &v));
	assert_int_equal(v, 512);
	assert_true(cli_parse_bytes("512B", &v));
	assert_int_equal(v, 512);
	assert_true(cli_parse_bytes("64KB", &v));
	assert_int_equal(v, 64000);
	assert_true(cli_parse_bytes("64k", &v));
	assert_int_equal(v, 64000);
	assert_true(cli_parse_bytes("1.5 MiB", &v));
	assert_int_equal(v, 1572864);
	assert_true(cli_parse_bytes("2gib", &v));
	assert_true(v == 2147483648ULL);
	assert_true(cli_parse_bytes("0.0001KB", &v));
	assert_int_equal(v, 0);
	assert_false(cli_parse_bytes("1.5", &v));      /* a fraction of a byte */
	assert_false(cli_parse_bytes("1.5B", &v));
	assert_false(cli_parse_bytes("12 parsecs", &v));
	assert_false(cli_parse_bytes("-1KB", &v));
	assert_false(cli_parse_bytes("KB", &v));
	assert_false(cli_parse_bytes("1e9", &v));
	assert_false(cli_parse_bytes("inf", &v));
	assert_false(cli_parse_bytes("99999999999GB", &v)); /* past 2^64 */
	assert_false(cli_parse_bytes("1  KB", &v));
}

static void test_parse_percent(void **state)
{
	double v = -1;

	(void)state;
	assert_true(cli_parse_percent("5", &v));
	assert_true(fabs(v - 5) < 1e-12);
	assert_true(cli_parse_percent("2.5%", &v));
	assert_true(fabs(v - 2.5) < 1e-12);
	assert_true(cli_parse_percent("0", &v));
	assert_true(v == 0);
	assert_false(cli_parse_percent("-1", &v));
	assert_false(cli_parse_percent("5%%", &v));
	assert_false(cli_parse_percent("nan", &v));
	assert_false(cli_parse_percent("%", &v));
	assert_false(cli_parse_percent("5 %", &v));
}

/* A fresh temporary directory; the test removes what it made in it. */
static char *make_tmpdir(void)
{
	char *dir = strdup("/tmp/tilescope-cli-test.XXXXXX");

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
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
	char *dir = make_tmpdir();
	char path[512], other[512];
	size_t len;
	char *text;
	struct stat st;

	(void)state;
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
	text = read_all(path, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(text, "new\n", 4);
	free(text);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);

	/* A link to nothing and a directory: refused, nothing made. */
	assert_int_equal(sh("ln -s nowhere %s/dangling", dir), 0);
	snprintf(path, sizeof(path), "%s/dangling", dir);
	assert_int_equal(cli_write_output(path, "x", 1), CLI_EXIT_ERROR);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(cli_write_output(dir, "x", 1), CLI_EXIT_ERROR);

	/* A FIFO is written in place (a reader drains it) and stays a FIFO. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(sh("cat %s/fifo > %s/drained & sleep 0.1", dir, dir), 0);
	assert_int_equal(cli_write_output(path, "through\n", 8), CLI_EXIT_OK);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(sh("sleep 0.2; test \"$(cat %s/drained)\" = through", dir), 0);

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
	text = read_all(other, &len);
	assert_int_equal(len, 9);
	assert_memory_equal(text, "precious\n", 9);
	free(text);

	/* No temporaries left behind. */
	assert_int_equal(sh("test -z \"$(ls -A %s | grep '^\\.')\"", dir), 0);
	assert_int_equal(sh("rm -rf %s", dir), 0);
	free(dir);
}

static void test_output_file(void **state)
{
	char *dir = make_tmpdir();
	char path[256], missing[256];
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	assert_int_equal(cli_write_output(path, "hello\n", 6), CLI_EXIT_OK);
	char *text = read_all(path, &len);
	assert_int_equal(len, 6);
	assert_memory_equal(text, "hello\n", 6);
	free(text);

	/* A stream closed as failed leaves the earlier file as it was. */
	cli_output *o = cli_output_open(path);
	assert_non_null(o);
	fputs("half a resu", cli_output_stream(o));
	assert_int_equal(cli_output_close(o, false), CLI_EXIT_ERROR);
	text = read_all(path, &len);
	assert_int_equal(len, 6);
	free(text);

	/* Into a directory that does not exist: an error, nothing made. */
	snprintf(missing, sizeof(missing), "%s/no/such/dir.txt", dir);
	assert_null(cli_output_open(missing));
	assert_int_equal(cli_write_output(missing, "x", 1), CLI_EXIT_ERROR);

	/* Nothing but out.txt is left: no temporary files. */
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s)\" = out.txt", dir);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	rmdir(dir);
	free(dir);
}

/* The progress line appears after a second on a step that lasts longer,
 * is erased at the end, and never appears for a quick step. */
static void test_progress(void **state)
{
	char *dir = make_tmpdir();
	char path[256];
	size_t len;
	int saved = dup(STDERR_FILENO);

	(void)state;
	snprintf(path, sizeof(path), "%s/stderr.txt", dir);
	setenv("TILESCOPE_PROGRESS", "always", 1);
	assert_non_null(freopen(path, "w", stderr));

	cli_progress_begin("Quick step");
	cli_progress_end();
	cli_progress_begin("Slow step");
	usleep(1400 * 1000);
	cli_progress_end();
	cli_progress_end(); /* twice is harmless */

	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	char *text = read_all(path, &len);
	assert_null(strstr(text, "Quick step"));
	assert_non_null(strstr(text, "\r\033[Ktilescope: Slow step\u2026 1."));
	assert_true(len >= 4);
	assert_memory_equal(text + len - 4, "\r\033[K", 4);
	free(text);

	/* never: nothing drawn however long the step. */
	assert_non_null(freopen(path, "w", stderr));
	setenv("TILESCOPE_PROGRESS", "never", 1);
	cli_progress_begin("Slow step");
	usleep(1100 * 1000);
	cli_progress_end();
	fflush(stderr);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	unsetenv("TILESCOPE_PROGRESS");
	unlink(path);
	rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_parse_percent),
		cmocka_unit_test(test_output_file),
		cmocka_unit_test(test_output_targets),
		cmocka_unit_test(test_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
