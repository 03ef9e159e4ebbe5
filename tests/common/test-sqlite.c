/* SQLite helpers for tests (see test-sqlite.h). */
#include "test-sqlite.h"
#include "test-util.h"

sqlite3 *tsi_test_sqlite_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
	return db;
}

long long tsi_test_sqlite_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

long long tsi_test_sqlite_file_int(const char *path, const char *sql)
{
	sqlite3 *db = tsi_test_sqlite_open(path);
	long long v = tsi_test_sqlite_int(db, sql);

	sqlite3_close(db);
	return v;
}
