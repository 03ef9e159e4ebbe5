/*
 * Makes the long-name files the apps must open quickly (issue 33): a copy
 * of a report or a trace whose every name is as long as a file may hold
 * (TSF_MAX_NAME_BYTES, 16 KiB), for the gui suite's check-long-names.py
 * and for timing the apps by hand.
 *
 *   make-long-names report SRC_DIR DST_DIR [BYTES]
 *       copies SRC_DIR/profile.pop into DST_DIR and rewrites every row of
 *       its `string` table (programs, compute sets, variables, vertex
 *       types, exchanges, debug contexts); debug.cbor is left behind, as
 *       it names the debug contexts too and would disagree (profile.pop
 *       alone is a whole report);
 *   make-long-names trace SRC.pvti DST.pvti [BYTES]
 *       copies a trace and rewrites its tracepoint names (`string`), its
 *       thread, process, counter (graph and series) and heatmap names.
 *
 * A name becomes "<its old text> #<row> " + filler + " end#<row>", cut at
 * a character boundary to at most BYTES bytes (default 16,384): it starts
 * with what the model called it (so a person still sees which is which),
 * and its start and its end differ from every other name's. The filler
 * mixes one-, two- and three-byte UTF-8 characters so that a display cut
 * made on bytes would split one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#define DEFAULT_BYTES 16384

static const char filler[] = "-lorem-ipsum-\xc3\xbc\xc3\xa9-\xe2\x82\xac\xe2\x86\x92-dolor";

/* sqlite3 function long_name(old_text, row_id); the byte budget is the
 * function's user data. */
static void long_name_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *old = (const char *)sqlite3_value_text(argv[0]);
	sqlite3_int64 id = sqlite3_value_int64(argv[1]);
	int bytes = *(const int *)sqlite3_user_data(ctx);
	char head[256], tail[64];
	size_t nh, nt, len = 0, fl = sizeof filler - 1;
	char *out;

	(void)argc;
	if (!old)
		old = "";
	nh = (size_t)snprintf(head, sizeof head, "%.200s #%lld ", old, (long long)id);
	if (nh >= sizeof head)
		nh = sizeof head - 1;
	nt = (size_t)snprintf(tail, sizeof tail, " end#%lld", (long long)id);
	if (bytes < (int)(nh + nt + 1)) {
		/* Too short for head and tail: the plain head, as given. */
		sqlite3_result_text(ctx, head, (int)nh, SQLITE_TRANSIENT);
		return;
	}
	out = sqlite3_malloc(bytes + 1);
	if (!out) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	memcpy(out, head, nh);
	len = nh;
	for (size_t i = 0; len + nt < (size_t)bytes; i++)
		out[len++] = filler[i % fl];
	/* Back off to a character boundary: the filler must not end inside a
	 * multi-byte character (the byte that would come next continues it). */
	for (size_t next = (len - nh) % fl;
	     len > nh && ((unsigned char)filler[next] & 0xc0) == 0x80;
	     next = next ? next - 1 : fl - 1)
		len--;
	memcpy(out + len, tail, nt);
	len += nt;
	sqlite3_result_text(ctx, out, (int)len, sqlite3_free);
}

/* Copies the database with SQLite's backup (whatever journal mode the
 * source is in), then runs `sql` on the copy. */
static int rewrite(const char *src, const char *dst, const char *sql, int bytes)
{
	sqlite3 *from = NULL, *to = NULL;
	sqlite3_backup *b;
	char *err = NULL;
	int rc;

	rc = sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_open(dst, &to);
	if (rc == SQLITE_OK) {
		b = sqlite3_backup_init(to, "main", from, "main");
		if (!b) {
			rc = sqlite3_errcode(to);
		} else {
			rc = sqlite3_backup_step(b, -1);
			sqlite3_backup_finish(b);
			rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(to, "long_name", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
		                             &bytes, long_name_fn, NULL, NULL);
	if (rc == SQLITE_OK) {
		char *full = sqlite3_mprintf("PRAGMA journal_mode=DELETE; BEGIN; %s COMMIT;", sql);

		rc = sqlite3_exec(to, full, NULL, NULL, &err);
		sqlite3_free(full);
	}
	if (rc != SQLITE_OK)
		fprintf(stderr, "make-long-names: %s: %s\n", dst,
		        err ? err : to ? sqlite3_errmsg(to) : sqlite3_errmsg(from));
	sqlite3_free(err);
	sqlite3_close(from);
	sqlite3_close(to);
	return rc == SQLITE_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	int bytes = DEFAULT_BYTES;
	char src[4096], dst[4096];

	if (argc < 4 || argc > 5 || (strcmp(argv[1], "report") && strcmp(argv[1], "trace"))) {
		fprintf(stderr, "usage: make-long-names report SRC_DIR DST_DIR [BYTES]\n"
		                "       make-long-names trace SRC.pvti DST.pvti [BYTES]\n");
		return 2;
	}
	if (argc == 5) {
		char *end;
		long v = strtol(argv[4], &end, 10);

		if (*end || v < 1 || v > 1 << 20) {
			fprintf(stderr, "make-long-names: bad byte count '%s'\n", argv[4]);
			return 2;
		}
		bytes = (int)v;
	}
	if (!strcmp(argv[1], "trace")) {
		remove(argv[3]);
		return rewrite(argv[2], argv[3],
		               "UPDATE string SET value = long_name(value, id);"
		               "UPDATE thread SET name = long_name(name, id);"
		               "UPDATE process SET name = long_name(name, pid);"
		               "UPDATE graph SET name = long_name(name, id);"
		               "UPDATE series SET name = long_name(name, id);"
		               "UPDATE heatmap SET name = long_name(name, id);",
		               bytes);
	}
	snprintf(src, sizeof src, "%s/profile.pop", argv[2]);
	snprintf(dst, sizeof dst, "%s/profile.pop", argv[3]);
	remove(dst);
	return rewrite(src, dst, "UPDATE string SET text = long_name(text, id);", bytes);
}
