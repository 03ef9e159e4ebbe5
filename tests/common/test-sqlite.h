/*
 * Reading SQLite report and trace files in tests: open read-only, and one
 * integer from a query. Both fail the test (with SQLite's message) rather
 * than return an error.
 */
#pragma once

#include <sqlite3.h>

/* Opens `path` read-only; the caller closes with sqlite3_close(). */
sqlite3 *tsi_test_sqlite_open(const char *path);
/* The first column of the first row of `sql` as an integer. */
long long tsi_test_sqlite_int(sqlite3 *db, const char *sql);
/* The same from the file at `path`, opened read-only for the one query. */
long long tsi_test_sqlite_file_int(const char *path, const char *sql);
