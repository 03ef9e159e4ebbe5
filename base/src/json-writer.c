/*
 * The streaming JSON writer (tilescope/json-writer.h). Before it, the
 * format library's profile emitters, reportlib's Chrome export and the
 * Chrome importer's metadata each escaped strings and printed numbers by
 * hand, with three slightly different rules; the flags keep each
 * document's spelling byte for byte while the code is one.
 *
 * State: a stack of open containers, each remembering whether it has a
 * member yet (for the comma) and, for an object, whether a key is waiting
 * for its value.
 *
 * Speed: a graph profile's JSON is mostly numbers (a million of them in
 * tutorial 5's, one per tile in each per-tile array), so a number in
 * compact output is written straight into the buffer after one check
 * (value_slot), and put() copies in place after one comparison
 * (`limit`), leaving growth, the sink, a FILE and a failure to
 * put_slow(). Strings copy their plain ASCII runs without decoding them.
 * The bytes are the same as the checked path's, which pretty output, a
 * FILE writer and the top level still take.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/alloc.h"
#include "tilescope/json-writer.h"
#include "tilescope/utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One open container. */
typedef struct frame {
	bool object;   /* else an array */
	bool has_item; /* a member was written: the next needs a comma */
	bool has_key;  /* (object) a key waits for its value */
} frame;

/* What a sink writer gathers before it calls its callback. */
#define SINK_CHUNK ((size_t)64 << 10)

struct tsb_json {
	unsigned flags;
	int status;      /* sticky tsb_json_status */
	FILE *file;      /* NULL: into buf (or through `sink`) */
	tsb_json_write_cb sink; /* NULL: buf is the output */
	void *sink_data;
	char *buf;       /* NUL-terminated when not NULL */
	size_t len, cap; /* bytes in buf, its size */
	size_t limit;    /* put() copies in place while len + n < limit: cap
	                    for a buffer writer, SINK_CHUNK for a sink writer
	                    (it feeds the sink before it would reach it), len
	                    for a FILE writer (0) or after a failure, so that
	                    those always take put_slow(); never below len */
	frame *stack;    /* open containers, innermost last */
	size_t depth, cap_stack;
	bool done;       /* the top-level value is complete */
};

/* Records the writer's first failure (`code`); every later write then
 * takes put_slow(), which writes nothing. Returns the status. */
static int fail(tsb_json *j, int code)
{
	if (!j->status)
		j->status = code;
	j->limit = j->len;
	return j->status;
}

/* Hands a sink writer's gathered bytes to its callback. */
static int flush_sink(tsb_json *j)
{
	int rc = j->status;

	if (!rc && j->len && j->sink(j->sink_data, j->buf, j->len))
		rc = TSB_JSON_ERR_IO;
	j->len = 0;
	return rc ? fail(j, rc) : TSB_JSON_OK;
}

/* put() when the bytes do not fit in place: a FILE writer, a buffer that
 * grows, a sink to feed first, or a failure (then nothing is written). */
static __attribute__((noinline)) int put_slow(tsb_json *j, const void *bytes, size_t n)
{
	if (j->status)
		return j->status;
	if (j->file) {
		if (n && fwrite(bytes, 1, n, j->file) != n)
			return fail(j, TSB_JSON_ERR_IO);
		return j->status;
	}
	if (j->sink && j->len + n >= SINK_CHUNK) {
		if (flush_sink(j))
			return j->status;
		if (n >= SINK_CHUNK) {
			if (j->sink(j->sink_data, bytes, n))
				return fail(j, TSB_JSON_ERR_IO);
			return j->status;
		}
	}
	if (j->cap - j->len <= n) {
		size_t cap = j->cap ? j->cap : 256;
		char *p;

		while (cap - j->len <= n) {
			if (cap > SIZE_MAX / 2)
				return fail(j, TSB_JSON_ERR_NO_MEMORY);
			cap *= 2;
		}
		p = tsb_realloc(j->buf, cap);
		if (!p)
			return fail(j, TSB_JSON_ERR_NO_MEMORY);
		j->buf = p;
		j->cap = cap;
		if (!j->sink)
			j->limit = cap;
	}
	memcpy(j->buf + j->len, bytes, n);
	j->len += n;
	j->buf[j->len] = '\0';
	return TSB_JSON_OK;
}

/* Appends n bytes to the output; sets the status on failure. In place
 * when they fit (limit - len never wraps: limit >= len). */
static inline int put(tsb_json *j, const void *bytes, size_t n)
{
	if (n < j->limit - j->len) {
		memcpy(j->buf + j->len, bytes, n);
		j->len += n;
		j->buf[j->len] = '\0';
		return TSB_JSON_OK;
	}
	return put_slow(j, bytes, n);
}

/* A newline and two spaces per open level (pretty output). */
static int newline_pretty(tsb_json *j)
{
	static const char spaces[] = "                                ";

	put(j, "\n", 1);
	for (size_t left = j->depth * 2; left;) {
		size_t n = left < sizeof(spaces) - 1 ? left : sizeof(spaces) - 1;

		put(j, spaces, n);
		left -= n;
	}
	return j->status;
}

/* The line break before a member (pretty output only). */
static inline int newline(tsb_json *j)
{
	if (!(j->flags & TSB_JSON_PRETTY))
		return j->status;
	return newline_pretty(j);
}

/* What must come before a value: a comma and a newline in an array, the
 * key already in an object; a usage error where no value may stand. */
static int before_value(tsb_json *j)
{
	frame *f;

	if (j->status)
		return j->status;
	if (j->depth == 0) {
		if (j->done)
			fail(j, TSB_JSON_ERR_USAGE);
		return j->status;
	}
	f = &j->stack[j->depth - 1];
	if (f->object) {
		if (!f->has_key)
			return fail(j, TSB_JSON_ERR_USAGE);
		f->has_key = false;
		return j->status;
	}
	if (f->has_item)
		put(j, ",", 1);
	f->has_item = true;
	return newline(j);
}

/*
 * Where a value of at most `n` bytes is written in place, after the comma
 * that goes before it: the checked path's bytes and state (before_value,
 * put, after_value) in one test. NULL when the value must take that path
 * instead: pretty output, the top level, a key missing (a usage error),
 * no room in place (a FILE writer, a failure, a buffer to grow, a sink to
 * feed).
 */
static inline char *value_slot(tsb_json *j, size_t n)
{
	frame *f;

	if ((j->flags & TSB_JSON_PRETTY) || j->depth == 0 || n + 1 >= j->limit - j->len)
		return NULL;
	f = &j->stack[j->depth - 1];
	if (f->object) {
		if (!f->has_key)
			return NULL;
		f->has_key = false;
	} else {
		if (f->has_item)
			j->buf[j->len++] = ',';
		f->has_item = true;
	}
	return j->buf + j->len;
}

/* After a complete value at the top level, the document is done. */
static int after_value(tsb_json *j)
{
	if (!j->status && j->depth == 0)
		j->done = true;
	return j->status;
}

/* The escaped body of a string, by the rule of json-writer.h. */
static int put_escaped(tsb_json *j, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0; /* bytes from `start` to copy as they are */
	size_t start = 0;

	for (size_t i = 0; i < len && !j->status;) {
		uint32_t cp;
		size_t k;
		char esc[8];
		const char *rep = NULL;
		size_t rep_len = 0;

		/* Plain ASCII, most of every name, goes as it is, undecoded. */
		while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\') {
			i++;
			run++;
		}
		if (i == len)
			break;
		k = tsb_utf8_decode(s + i, len - i, &cp);
		if (k == 0) {
			rep = j->flags & TSB_JSON_ESCAPE_INVALID ? "\\ufffd" : "\xef\xbf\xbd";
			rep_len = j->flags & TSB_JSON_ESCAPE_INVALID ? 6 : 3;
			k = 1;
		} else if (cp == '"' || cp == '\\') {
			esc[0] = '\\';
			esc[1] = (char)cp;
			rep = esc;
			rep_len = 2;
		} else if (cp < 0x20) {
			const char *shorts = "b\bf\fn\nr\rt\t";
			const char *at = NULL;

			for (const char *p = shorts; *p; p += 2)
				if ((unsigned char)p[1] == cp &&
				    ((j->flags & TSB_JSON_SHORT_ESCAPES) ||
				     ((j->flags & TSB_JSON_SHORT_NEWLINE_TAB) && (cp == '\n' || cp == '\t'))))
					at = p;
			if (at) {
				esc[0] = '\\';
				esc[1] = at[0];
				rep_len = 2;
			} else {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[cp >> 4];
				esc[5] = hex[cp & 15];
				rep_len = 6;
			}
			rep = esc;
		} else if ((cp == 0x2028 || cp == 0x2029) && (j->flags & TSB_JSON_ESCAPE_SEPARATORS)) {
			rep = cp == 0x2028 ? "\\u2028" : "\\u2029";
			rep_len = 6;
		}
		if (rep) {
			put(j, s + start, run);
			put(j, rep, rep_len);
			start = i + k;
			run = 0;
		} else {
			run += k;
		}
		i += k;
	}
	put(j, s + start, run);
	return j->status;
}

static int string_value(tsb_json *j, const char *s, size_t len)
{
	put(j, "\"", 1);
	put_escaped(j, s, len);
	return put(j, "\"", 1);
}

/* Makes a writer; the sink is set by the caller. */
static tsb_json *make(unsigned flags)
{
	tsb_json *j = tsb_calloc(1, sizeof(*j));

	if (j)
		j->flags = flags;
	return j;
}

TSB_API tsb_json *tsb_json_new_buffer(unsigned flags)
{
	tsb_json *j = make(flags);

	if (j && put(j, "", 0)) { /* the empty, terminated buffer */
		tsb_json_free(j);
		return NULL;
	}
	return j;
}

TSB_API tsb_json *tsb_json_new_file(FILE *f, unsigned flags)
{
	tsb_json *j;

	if (!f)
		return NULL;
	j = make(flags);
	if (j)
		j->file = f;
	return j;
}

TSB_API tsb_json *tsb_json_new_sink(tsb_json_write_cb write, void *user_data, unsigned flags)
{
	tsb_json *j;

	if (!write)
		return NULL;
	j = make(flags);
	if (!j)
		return NULL;
	j->sink = write;
	j->sink_data = user_data;
	j->buf = tsb_malloc(SINK_CHUNK + 1);
	if (!j->buf) {
		tsb_free(j);
		return NULL;
	}
	j->cap = SINK_CHUNK + 1;
	j->limit = SINK_CHUNK;
	return j;
}

TSB_API void tsb_json_free(tsb_json *j)
{
	if (!j)
		return;
	tsb_free(j->buf);
	tsb_free(j->stack);
	tsb_free(j);
}

/* Opens an object or an array. */
static int begin(tsb_json *j, bool object)
{
	if (!j)
		return TSB_JSON_ERR_USAGE;
	if (before_value(j))
		return j->status;
	if (j->depth == j->cap_stack) {
		size_t cap = j->cap_stack ? j->cap_stack * 2 : 8;
		frame *f = tsb_realloc(j->stack, cap * sizeof(*f));

		if (!f)
			return fail(j, TSB_JSON_ERR_NO_MEMORY);
		j->stack = f;
		j->cap_stack = cap;
	}
	j->stack[j->depth++] = (frame){object, false, false};
	return put(j, object ? "{" : "[", 1);
}

/* Closes the innermost container, which must be an object (or array). */
static int end(tsb_json *j, bool object)
{
	frame f;

	if (!j)
		return TSB_JSON_ERR_USAGE;
	if (j->status)
		return j->status;
	if (j->depth == 0 || j->stack[j->depth - 1].object != object ||
	    j->stack[j->depth - 1].has_key)
		return fail(j, TSB_JSON_ERR_USAGE);
	f = j->stack[--j->depth];
	if (f.has_item)
		newline(j);
	put(j, object ? "}" : "]", 1);
	return after_value(j);
}

TSB_API int tsb_json_begin_object(tsb_json *j)
{
	return begin(j, true);
}

TSB_API int tsb_json_end_object(tsb_json *j)
{
	return end(j, true);
}

TSB_API int tsb_json_begin_array(tsb_json *j)
{
	return begin(j, false);
}

TSB_API int tsb_json_end_array(tsb_json *j)
{
	return end(j, false);
}

TSB_API int tsb_json_key(tsb_json *j, const char *key)
{
	frame *f;

	if (!j)
		return TSB_JSON_ERR_USAGE;
	if (j->status)
		return j->status;
	if (!key || j->depth == 0 || !j->stack[j->depth - 1].object || j->stack[j->depth - 1].has_key)
		return fail(j, TSB_JSON_ERR_USAGE);
	f = &j->stack[j->depth - 1];
	if (f->has_item)
		put(j, ",", 1);
	f->has_item = true;
	newline(j);
	string_value(j, key, strlen(key));
	put(j, j->flags & TSB_JSON_PRETTY ? ": " : ":", j->flags & TSB_JSON_PRETTY ? 2 : 1);
	f->has_key = true;
	return j->status;
}

TSB_API int tsb_json_string_len(tsb_json *j, const char *s, size_t len)
{
	if (!s)
		return tsb_json_null(j);
	if (!j)
		return TSB_JSON_ERR_USAGE;
	if (before_value(j))
		return j->status;
	string_value(j, s, len);
	return after_value(j);
}

TSB_API int tsb_json_string(tsb_json *j, const char *s)
{
	return tsb_json_string_len(j, s, s ? strlen(s) : 0);
}

/* A token that needs no escaping: a number, a literal, raw JSON. */
static int token(tsb_json *j, const char *text, size_t len)
{
	if (!j)
		return TSB_JSON_ERR_USAGE;
	if (before_value(j))
		return j->status;
	put(j, text, len);
	return after_value(j);
}

/* The decimal digits of `v` (with '-' when `neg`), ending at `end`;
 * returns where they start. By hand: a profile holds millions of them. */
static inline char *digits(char *end, bool neg, uint64_t v)
{
	char *p = end;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		*--p = '-';
	return p;
}

/* An integer as sign and magnitude: in place when value_slot allows
 * (20 bytes hold any: "-9223372036854775808"), else as a token. */
static inline int integer(tsb_json *j, bool neg, uint64_t mag)
{
	char buf[24], *p = digits(buf + sizeof(buf), neg, mag);
	size_t n = (size_t)(buf + sizeof(buf) - p);
	char *out;

	if (!j)
		return TSB_JSON_ERR_USAGE;
	out = value_slot(j, 20);
	if (!out)
		return token(j, p, n);
	for (size_t i = 0; i < n; i++)
		out[i] = p[i];
	j->len += n;
	j->buf[j->len] = '\0';
	return TSB_JSON_OK;
}

TSB_API int tsb_json_u64(tsb_json *j, uint64_t v)
{
	return integer(j, false, v);
}

TSB_API int tsb_json_i64(tsb_json *j, int64_t v)
{
	/* |INT64_MIN| without overflow. */
	return integer(j, v < 0, v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v);
}

/*
 * 17 significant digits (enough to read back the same double), and a
 * ".0" when %g printed an integer. %g follows the C locale's decimal
 * point only when LC_NUMERIC is "C"; a program may have set another, so
 * whatever the locale put between the digits becomes '.'.
 */
TSB_API int tsb_json_double(tsb_json *j, double d)
{
	char buf[64], clean[72];
	size_t n = 0;
	bool frac = false;
	int len;

	if (d != d || d - d != 0) /* NaN or an infinity */
		return tsb_json_null(j);
	len = snprintf(buf, sizeof(buf), "%.17g", d);
	if (len <= 0 || (size_t)len >= sizeof(buf))
		return token(j, "0.0", 3);
	for (int i = 0; i < len; i++) {
		char c = buf[i];

		if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
			clean[n++] = c;
		} else if (c == 'e' || c == 'E') {
			clean[n++] = 'e';
			frac = true;
		} else if (n == 0 || clean[n - 1] != '.') {
			clean[n++] = '.'; /* the radix character, possibly several bytes */
			frac = true;
		}
	}
	if (!frac) {
		clean[n++] = '.';
		clean[n++] = '0';
	}
	return token(j, clean, n);
}

TSB_API int tsb_json_bool(tsb_json *j, bool v)
{
	return v ? token(j, "true", 4) : token(j, "false", 5);
}

TSB_API int tsb_json_null(tsb_json *j)
{
	return token(j, "null", 4);
}

TSB_API int tsb_json_raw(tsb_json *j, const char *json)
{
	if (!json)
		return tsb_json_null(j);
	return token(j, json, strlen(json));
}

TSB_API int tsb_json_error(const tsb_json *j)
{
	return j ? j->status : TSB_JSON_ERR_USAGE;
}

TSB_API int tsb_json_finish(tsb_json *j)
{
	if (!j)
		return TSB_JSON_ERR_USAGE;
	if (j->status)
		return j->status;
	if (!j->done || j->depth)
		return fail(j, TSB_JSON_ERR_USAGE);
	if (j->file && fflush(j->file) != 0)
		fail(j, TSB_JSON_ERR_IO);
	if (j->sink)
		flush_sink(j);
	return j->status;
}

TSB_API const char *tsb_json_get_buffer(const tsb_json *j, size_t *len)
{
	bool mine = j && !j->file && !j->sink;

	if (len)
		*len = mine ? j->len : 0;
	return mine ? j->buf : NULL;
}

TSB_API char *tsb_json_steal(tsb_json *j, size_t *len)
{
	char *p;

	if (len)
		*len = 0;
	if (!j || j->file || j->sink || j->status)
		return NULL;
	p = j->buf;
	if (len)
		*len = j->len;
	j->buf = NULL;
	j->len = j->cap = j->limit = 0;
	j->depth = 0;
	j->done = false;
	put(j, "", 0);
	return p;
}

TSB_API int tsb_json_fputs(FILE *f, const char *s, size_t len, unsigned flags)
{
	tsb_json j = {.flags = flags, .file = f};

	if (!f)
		return TSB_JSON_ERR_USAGE;
	if (!s)
		s = "";
	if (len == SIZE_MAX)
		len = strlen(s);
	return string_value(&j, s, len);
}
