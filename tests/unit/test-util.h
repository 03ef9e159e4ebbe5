/*
 * Helpers shared by the unit tests: a fresh temporary directory per test,
 * float comparison with a tolerance (cmocka 1.1.5 has none), capturing what
 * a block writes to a FILE*.
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

/* Creates a new directory under $TMPDIR (or /tmp); returns a malloc'd path. */
char *tsi_test_mkdtemp(void);
/* Removes a directory tree made by tsi_test_mkdtemp and frees the path. */
void tsi_test_rmtree(char *path);
/* Fails the test unless |a - b| <= tol. */
#define assert_close(a, b, tol) tsi_test_assert_close((double)(a), (double)(b), (double)(tol), \
                                                      #a, __FILE__, __LINE__)
void tsi_test_assert_close(double a, double b, double tol, const char *expr,
                           const char *file, int line);
/* A FILE* writing to memory; tsi_test_capture_text() returns what was
 * written so far (NUL-terminated, owned by the capture). */
typedef struct tsi_test_capture {
	FILE *file;
	char *buf;
	size_t len;
} tsi_test_capture;
void tsi_test_capture_open(tsi_test_capture *cap);
const char *tsi_test_capture_text(tsi_test_capture *cap);
void tsi_test_capture_close(tsi_test_capture *cap);
