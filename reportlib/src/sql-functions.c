/*
 * Bounded versions of the built-in SQL functions whose cost is not
 * linear in their arguments, registered over the built-ins on every
 * connection reportlib opens (tsr_sqlite_lockdown). SQLite's progress
 * handler runs between virtual-machine steps, so neither the budget of
 * steps nor the clock can stop one long call of a function, and the
 * length limit alone does not bound these (measured with SQLite 3.40 on
 * this project's machines, strings of at most 1 MiB):
 *
 *   instr(X, Y), replace(X, Y, Z)  compare Y at every position of X:
 *       |X| x |Y| bytes, 68 s and 51 s for X of 1 MiB and Y of 512 KiB;
 *   ltrim / rtrim / trim(X, Y)     try every character of Y at each
 *       character trimmed from X: 12 s for 1 MiB of X and 1,000 of Y;
 *   printf / format                 %c repeats its character `precision`
 *       times even once the result is past the length limit:
 *       printf('%.*c', 2147483647, 'x') runs 140 s to return NULL.
 *
 * Here instr and replace search with memmem (linear: two-way for long
 * needles, bounded by 256 x |X| for short ones), the trims look each
 * character up in a sorted set, and printf/format refuse a width or
 * precision that adds up past the length limit before handing the call
 * to the built-in on a private in-memory connection. Each gives the
 * built-in's answer otherwise (tests/reportlib/test_hostile_schema.c
 * compares them). Like the built-ins they are SQLITE_INNOCUOUS (no side
 * effect, and now no unbounded cost), so a file's schema that names them
 * still parses and the schema check (tsr_sqlite_check_schema) can say
 * what it refuses.
 */
#define _GNU_SOURCE 1 /* memmem */

#include "report-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The current length limit of the connection calling `ctx`. */
static int64_t length_limit(sqlite3_context *ctx)
{
	return sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
}

/* True for a byte that continues a UTF-8 character. */
static bool is_continuation(unsigned char b)
{
	return (b & 0xc0) == 0x80;
}

/* --- instr ----------------------------------------------------------------------------- */

/*
 * instr(X, Y): the 1-based position of the first Y in X (in characters
 * for text, bytes when both are blobs), 0 when absent, 1 for an empty Y,
 * NULL when either is NULL. A blob and a text are both compared as text,
 * as the built-in does. Text matches count only at character starts.
 */
static void instr_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int th = sqlite3_value_type(argv[0]), tn = sqlite3_value_type(argv[1]);
	sqlite3_value *hv = NULL, *nv = NULL;
	const unsigned char *h, *n;
	int64_t nh, nn, pos = 1;
	bool text = true;

	(void)argc;
	if (th == SQLITE_NULL || tn == SQLITE_NULL)
		return;
	if (th == SQLITE_BLOB && tn == SQLITE_BLOB) {
		text = false;
		h = sqlite3_value_blob(argv[0]);
		nh = sqlite3_value_bytes(argv[0]);
		n = sqlite3_value_blob(argv[1]);
		nn = sqlite3_value_bytes(argv[1]);
	} else {
		/* Copies, as the built-in makes: reading a blob argument as text
		 * must not change the caller's value. */
		hv = sqlite3_value_dup(argv[0]);
		nv = sqlite3_value_dup(argv[1]);
		if (!hv || !nv) {
			sqlite3_result_error_nomem(ctx);
			goto cleanup;
		}
		h = sqlite3_value_text(hv);
		nh = sqlite3_value_bytes(hv);
		n = sqlite3_value_text(nv);
		nn = sqlite3_value_bytes(nv);
		if ((!h && nh) || (!n && nn)) {
			sqlite3_result_error_nomem(ctx);
			goto cleanup;
		}
	}
	if (nn > 0) {
		const unsigned char *hit;

		/* Text: a match counts only where a character starts. A needle
		 * that starts inside a character (not UTF-8) can then only match
		 * at the very start, where the built-in looks first; any other
		 * needle matches at character starts only. */
		if (text && is_continuation(n[0]))
			hit = nn <= nh && !memcmp(h, n, (size_t)nn) ? h : NULL;
		else
			hit = memmem(h, (size_t)nh, n, (size_t)nn);
		pos = 0;
		if (hit) {
			pos = 1;
			for (const unsigned char *p = h + 1; p <= hit; p++)
				pos += !text || !is_continuation(*p);
		}
	}
	sqlite3_result_int64(ctx, pos);
cleanup:
	sqlite3_value_free(hv);
	sqlite3_value_free(nv);
}

/* --- replace --------------------------------------------------------------------------- */

/*
 * replace(X, Y, Z): X with every Y, left to right and not overlapping,
 * replaced by Z, compared byte by byte as text. NULL when any is NULL;
 * X itself when Y is empty. A result past the length limit is an error.
 */
static void replace_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *s, *pat, *rep, *from, *hit;
	int64_t ns, np, nr, size, matches = 0;
	unsigned char *out, *o;

	(void)argc;
	if (!(s = sqlite3_value_text(argv[0])))
		return;
	ns = sqlite3_value_bytes(argv[0]);
	if (!(pat = sqlite3_value_text(argv[1])))
		return;
	if (!pat[0]) {
		sqlite3_result_value(ctx, argv[0]);
		return;
	}
	np = sqlite3_value_bytes(argv[1]);
	if (!(rep = sqlite3_value_text(argv[2])))
		return;
	nr = sqlite3_value_bytes(argv[2]);
	/* Two passes: the size (refused past the length limit, as in the
	 * built-in), then the copy. */
	for (from = s; ns - (from - s) >= np; from = hit + np, matches++)
		if (!(hit = memmem(from, (size_t)(ns - (from - s)), pat, (size_t)np)))
			break;
	size = ns + matches * (nr - np);
	if (size > length_limit(ctx)) {
		sqlite3_result_error_toobig(ctx);
		return;
	}
	out = o = sqlite3_malloc64((uint64_t)size + 1);
	if (!out) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (from = s; matches > 0; matches--, from = hit + np) {
		hit = memmem(from, (size_t)(ns - (from - s)), pat, (size_t)np);
		memcpy(o, from, (size_t)(hit - from));
		o += hit - from;
		memcpy(o, rep, (size_t)nr);
		o += nr;
	}
	memcpy(o, from, (size_t)(ns - (from - s)));
	o += ns - (from - s);
	*o = 0;
	sqlite3_result_text64(ctx, (char *)out, (uint64_t)(o - out), sqlite3_free, SQLITE_UTF8);
}

/* --- ltrim, rtrim, trim with a set of characters ---------------------------------------- */

/* The characters of a trim set, as the built-in splits it: a byte below
 * 0xc0, or one from 0xc0 up with every continuation byte after it. */
typedef struct trim_set {
	const unsigned char **chars; /* each one's first byte, in the set's order */
	unsigned char *len;          /* each one's length, as the built-in keeps it (a byte) */
	size_t n;
	/* The fast path: every character is ASCII or a whole UTF-8 sequence
	 * of 2 to 4 bytes, so at most one of them can match at either end of
	 * the string; then `keys` (n entries, sorted) holds them packed. */
	bool clean;
	uint32_t *keys;
} trim_set;

/* Bytes of the UTF-8 sequence that `lead` starts: 1 to 4, 0 when it
 * cannot start one. */
static int utf8_length(unsigned char lead)
{
	if (lead < 0x80)
		return 1;
	if (lead < 0xc0)
		return 0;
	if (lead < 0xe0)
		return 2;
	if (lead < 0xf0)
		return 3;
	return lead < 0xf8 ? 4 : 0;
}

/* `len` (1 to 4) bytes as one number, so that the set can be sorted.
 * No two characters of a clean set share a number: the lead byte, first,
 * decides the length. */
static uint32_t pack(const unsigned char *p, int len)
{
	uint32_t k = 0;

	for (int i = 0; i < 4; i++)
		k = k << 8 | (i < len ? p[i] : 0);
	return k;
}

static int compare_keys(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Whether the `len` bytes at `p` are one of the set's characters (the
 * fast path). */
static bool in_set(const trim_set *set, const unsigned char *p, int len)
{
	uint32_t key = pack(p, len);

	return bsearch(&key, set->keys, set->n, sizeof(*set->keys), compare_keys) != NULL;
}

/* Splits the NUL-terminated `cs` into set->chars; false when out of
 * memory. */
static bool trim_set_init(trim_set *set, const unsigned char *cs)
{
	size_t n = 0, count = 0;

	memset(set, 0, sizeof(*set));
	for (const unsigned char *z = cs; *z; count++)
		if (*z++ >= 0xc0)
			while (is_continuation(*z))
				z++;
	if (!count)
		return true;
	set->chars = sqlite3_malloc64(count * sizeof(*set->chars));
	set->len = sqlite3_malloc64(count);
	set->keys = sqlite3_malloc64(count * sizeof(*set->keys));
	if (!set->chars || !set->len || !set->keys)
		return false;
	set->clean = true;
	for (const unsigned char *z = cs; *z; n++) {
		const unsigned char *start = z;
		int want = utf8_length(*z);

		if (*z++ >= 0xc0)
			while (is_continuation(*z))
				z++;
		set->chars[n] = start;
		set->len[n] = (unsigned char)(z - start);
		if (want == 0 || z - start != want)
			set->clean = false;
		else
			set->keys[n] = pack(start, want);
	}
	set->n = n;
	if (set->clean)
		qsort(set->keys, n, sizeof(*set->keys), compare_keys);
	return true;
}

static void trim_set_free(trim_set *set)
{
	sqlite3_free(set->chars);
	sqlite3_free(set->len);
	sqlite3_free(set->keys);
}

/* The built-in's own search, for a set that is not clean UTF-8: the
 * first of the set's characters (in its order) matching at the start
 * (`left`) or the end of s[0..n); its length, 0 when none. */
static size_t slow_match(const trim_set *set, const unsigned char *s, size_t n, bool left)
{
	for (size_t i = 0; i < set->n; i++) {
		size_t len = set->len[i];

		if (len <= n && !memcmp(left ? s : s + n - len, set->chars[i], len))
			return len;
	}
	return 0;
}

/* Work the built-in's search may do, in character comparisons, before
 * it is refused: 2^26 is about half a second. */
#define SLOW_TRIM_BUDGET ((uint64_t)1 << 26)

/*
 * ltrim(X, Y), rtrim(X, Y), trim(X, Y) (`flags` 1, 2, 3 as user data):
 * X without the characters of Y at its start, end or both. NULL when
 * either is NULL; Y stops at its first NUL, as in the built-in.
 */
static void trim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int flags = (int)(intptr_t)sqlite3_user_data(ctx);
	const unsigned char *s, *cs;
	size_t n;
	trim_set set;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (!(s = sqlite3_value_text(argv[0])))
		return;
	n = (size_t)sqlite3_value_bytes(argv[0]);
	if (!(cs = sqlite3_value_text(argv[1])))
		return;
	if (!trim_set_init(&set, cs)) {
		trim_set_free(&set);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (set.n && !set.clean && (uint64_t)(n + 1) * set.n > SLOW_TRIM_BUDGET) {
		trim_set_free(&set);
		sqlite3_result_error(ctx, "trim: too many characters to trim (a set that is not "
		                          "plain UTF-8) from so long a string", -1);
		return;
	}
	for (int side = 1; set.n && side <= 2; side++) {
		bool left = side == 1;

		if (!(flags & side))
			continue;
		while (n > 0) {
			size_t len;

			if (!set.clean) {
				len = slow_match(&set, s, n, left);
			} else if (left) {
				int want = utf8_length(s[0]);

				len = want && (size_t)want <= n && in_set(&set, s, want) ? (size_t)want : 0;
			} else {
				/* The one character that could end the string: back over
				 * at most three continuation bytes to its lead. */
				size_t back = 1;

				while (back < 4 && back < n && is_continuation(s[n - back]))
					back++;
				len = 0;
				for (size_t l = 1; l <= back && !len; l++)
					if (utf8_length(s[n - l]) == (int)l && in_set(&set, s + n - l, (int)l))
						len = l;
			}
			if (!len)
				break;
			if (left)
				s += len;
			n -= len;
		}
	}
	trim_set_free(&set);
	sqlite3_result_text64(ctx, (const char *)s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* --- printf, format --------------------------------------------------------------------- */

/* The private connection that runs the built-in printf once the
 * arguments are checked, and its statements by number of arguments. */
typedef struct printf_delegate {
	sqlite3 *db;               /* ":memory:", opened at the first call */
	sqlite3_stmt *st[17];      /* "SELECT printf(?1, ..., ?n)" for n = index */
} printf_delegate;

static void printf_delegate_free(void *data)
{
	printf_delegate *d = data;

	if (!d)
		return;
	for (size_t i = 0; i < sizeof(d->st) / sizeof(d->st[0]); i++)
		sqlite3_finalize(d->st[i]);
	sqlite3_close_v2(d->db);
	sqlite3_free(d);
}

/* |v| of an argument read as printf reads a width (an integer), at
 * most INT64_MAX. */
static uint64_t int_arg(sqlite3_value **argv, int argc, int i)
{
	int64_t v = i < argc ? sqlite3_value_int64(argv[i]) : 0;

	return v == INT64_MIN ? (uint64_t)INT64_MAX : (uint64_t)(v < 0 ? -v : v);
}

/*
 * The sum of every width and precision in format `f` (argument 0), those
 * given by `*` read from the arguments they take, saturating at
 * UINT64_MAX: a bound on the work of the built-in, which pads and repeats
 * characters one at a time whatever the length limit. Conversions are
 * read as SQLite's printf reads them; a character it does not know ends
 * the format there, as in SQLite.
 */
static uint64_t printf_work(const unsigned char *f, sqlite3_value **argv, int argc)
{
	uint64_t sum = 0;
	int arg = 1;

	while ((f = (const unsigned char *)strchr((const char *)f, '%')) != NULL) {
		uint64_t number = 0;

		f++;
		/* Flags, widths, precisions and the long modifier, in any order:
		 * reading all of them only makes the bound larger. */
		for (;; f++) {
			if (*f >= '0' && *f <= '9') {
				number = number > UINT64_MAX / 16 ? UINT64_MAX : number * 10 + (*f - '0');
				continue;
			}
			sum = sum > UINT64_MAX - number ? UINT64_MAX : sum + number;
			number = 0;
			if (*f == '*') {
				uint64_t v = int_arg(argv, argc, arg++);

				sum = sum > UINT64_MAX - v ? UINT64_MAX : sum + v;
			} else if (!strchr("-+ #!,.l", *f) || !*f) {
				break;
			}
		}
		if (!*f)
			break;
		if (*f == '%' || *f == 'n')
			f++;
		else if (strchr("dsgzqQwcouxXfeEGipr", *f))
			f++, arg++;
		else
			break; /* SQLite stops at a conversion it does not know */
	}
	return sum;
}

/*
 * printf(FORMAT, ...) and format(FORMAT, ...): refused when the widths
 * and precisions add up past the connection's length limit (the result
 * could not hold them), else the built-in's answer.
 */
static void printf_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	printf_delegate *d = sqlite3_user_data(ctx);
	const unsigned char *f;
	int64_t limit = length_limit(ctx);
	sqlite3_stmt *st = NULL;
	uint64_t work;
	int rc;

	if (argc < 1 || !(f = sqlite3_value_text(argv[0])))
		return;
	work = printf_work(f, argv, argc);
	if (work > (uint64_t)limit) {
		char msg[160];

		snprintf(msg, sizeof(msg),
		         "printf: widths and precisions of %llu characters, more than a value may "
		         "hold (%lld bytes)", (unsigned long long)work, (long long)limit);
		sqlite3_result_error(ctx, msg, -1);
		return;
	}
	if (!d->db) {
		rc = sqlite3_open_v2(":memory:", &d->db,
		                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
		                         SQLITE_OPEN_PRIVATECACHE,
		                     NULL);
		if (rc != SQLITE_OK) {
			sqlite3_close_v2(d->db);
			d->db = NULL;
			sqlite3_result_error_code(ctx, rc);
			return;
		}
	}
	sqlite3_limit(d->db, SQLITE_LIMIT_LENGTH, (int)limit);
	if (argc < (int)(sizeof(d->st) / sizeof(d->st[0])))
		st = d->st[argc];
	if (!st) {
		char sql[16 + 6 * 128];
		size_t used = (size_t)snprintf(sql, sizeof(sql), "SELECT printf(?1");

		if (argc > 127) {
			sqlite3_result_error(ctx, "printf: too many arguments", -1);
			return;
		}
		for (int i = 2; i <= argc; i++)
			used += (size_t)snprintf(sql + used, sizeof(sql) - used, ",?%d", i);
		snprintf(sql + used, sizeof(sql) - used, ")");
		rc = sqlite3_prepare_v2(d->db, sql, -1, &st, NULL);
		if (rc != SQLITE_OK) {
			sqlite3_result_error(ctx, sqlite3_errmsg(d->db), -1);
			return;
		}
		if (argc < (int)(sizeof(d->st) / sizeof(d->st[0])))
			d->st[argc] = st;
	}
	for (int i = 0; i < argc; i++)
		sqlite3_bind_value(st, i + 1, argv[i]);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
	else if ((rc & 0xff) == SQLITE_TOOBIG)
		sqlite3_result_error_toobig(ctx);
	else
		sqlite3_result_error(ctx, sqlite3_errmsg(d->db), -1);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (argc >= (int)(sizeof(d->st) / sizeof(d->st[0])))
		sqlite3_finalize(st);
}

/* --- Registration ----------------------------------------------------------------------- */

/*
 * Registers the bounded functions on `db` over the built-ins of the same
 * names and numbers of arguments (the one-argument trims, which only
 * take spaces off, stay SQLite's). Returns an SQLite code.
 */
int tsr_sql_register_bounded_functions(sqlite3 *db)
{
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	static const struct {
		const char *name;
		int flags;
	} trims[] = {{"ltrim", 1}, {"rtrim", 2}, {"trim", 3}};
	int rc = sqlite3_create_function_v2(db, "instr", 2, flags, NULL, instr_fn, NULL, NULL,
	                                    NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(db, "replace", 3, flags, NULL, replace_fn, NULL,
		                                NULL, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(trims) / sizeof(trims[0]); i++)
		rc = sqlite3_create_function_v2(db, trims[i].name, 2, flags,
		                                (void *)(intptr_t)trims[i].flags, trim_fn, NULL, NULL,
		                                NULL);
	for (int i = 0; rc == SQLITE_OK && i < 2; i++) {
		printf_delegate *d = sqlite3_malloc(sizeof(*d));

		if (!d)
			return SQLITE_NOMEM;
		memset(d, 0, sizeof(*d));
		/* On failure SQLite calls the destructor itself. */
		rc = sqlite3_create_function_v2(db, i ? "format" : "printf", -1, flags, d, printf_fn,
		                                NULL, NULL, printf_delegate_free);
	}
	return rc;
}
