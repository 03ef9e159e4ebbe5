/* Shared unit-test helpers (see test-util.h). */
#include "test-util.h"

#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *tsi_test_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	size_t len = strlen(base) + 32;
	path = malloc(len);
	if (!path)
		abort();
	snprintf(path, len, "%s/tilescope-test-XXXXXX", base);
	assert_non_null(mkdtemp(path));
	return path;
}

static int rm_entry_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tsi_test_rmtree(char *path)
{
	if (!path)
		return;
	nftw(path, rm_entry_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(path);
}

void tsi_test_assert_close(double a, double b, double tol, const char *expr,
                           const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %s = %.9g, expected %.9g (tolerance %.3g)\n", file, line, expr,
		            a, b, tol);
		fail();
	}
}

void tsi_test_capture_open(tsi_test_capture *cap)
{
	cap->buf = NULL;
	cap->len = 0;
	cap->file = open_memstream(&cap->buf, &cap->len);
	assert_non_null(cap->file);
}

const char *tsi_test_capture_text(tsi_test_capture *cap)
{
	fflush(cap->file);
	return cap->buf ? cap->buf : "";
}

void tsi_test_capture_close(tsi_test_capture *cap)
{
	if (cap->file)
		fclose(cap->file);
	free(cap->buf);
	cap->file = NULL;
	cap->buf = NULL;
}
