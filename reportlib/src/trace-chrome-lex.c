/*
 * A streaming JSON tokenizer for the Chrome trace-event import
 * (trace-chrome.c). Hand-written rather than a DOM parser such as cJSON,
 * which would hold the whole document (a trace of gigabytes) in memory:
 * this one reads a block at a time and hands the caller one token, so
 * memory stays one block plus what the caller keeps (a name of at most
 * TSF_MAX_NAME_BYTES, an event's arguments up to a cap).
 *
 * Hostile input. Strings of any length are scanned and cut where the
 * caller's buffer stops; numbers of any length keep 19 significant digits
 * and a saturated exponent; nesting is iterative with a depth limit; bytes
 * that are not UTF-8, control characters in strings, bad escapes and a
 * file cut short are errors naming the line and byte offset.
 */
#define _GNU_SOURCE 1

#include <tilescope/alloc.h>
#include "trace-chrome-private.h"

#include <tilescope/utf8.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- cj_buf ------------------------------------------------------------------ */

void cj_buf_reset(cj_buf *b)
{
	b->len = 0;
	b->truncated = false;
}

int cj_buf_put(cj_buf *b, const void *p, size_t n)
{
	if (n > b->max - b->len) {
		n = b->max - b->len;
		b->truncated = true;
	}
	if (!n)
		return 0;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *d;

		while (cap < b->len + n + 1)
			cap *= 2;
		d = tsb_realloc(b->data, cap);
		if (!d)
			return -1;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int cj_buf_end(cj_buf *b)
{
	if (!b->data && !(b->data = tsb_malloc(b->cap = 256)))
		return -1;
	b->data[b->len] = '\0';
	return 0;
}

void cj_buf_clear(cj_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* --- Reading ------------------------------------------------------------------ */

int cj_lex_init_fd(cj_lex *lx, int fd)
{
	memset(lx, 0, sizeof(*lx));
	lx->fd = fd;
	lx->line = 1;
	lx->buf = tsb_malloc(CJ_BLOCK);
	return lx->buf ? 0 : -1;
}

void cj_lex_init_mem(cj_lex *lx, const char *data, size_t len)
{
	memset(lx, 0, sizeof(*lx));
	lx->fd = -1;
	lx->line = 1;
	lx->buf = (unsigned char *)data;
	lx->len = len;
	lx->eof = true;
}

void cj_lex_clear(cj_lex *lx)
{
	if (lx->fd >= 0)
		free(lx->buf);
	lx->buf = NULL;
}

int cj_fail(cj_lex *lx, const char *what)
{
	if (!lx->failed)
		snprintf(lx->msg, sizeof(lx->msg), "line %llu, byte %llu: %s",
		         (unsigned long long)lx->line, (unsigned long long)(lx->base + lx->pos), what);
	lx->failed = true;
	return -1;
}

/* Reads the next block once buf is used up: 1 when bytes came, 0 at the
 * end, -1 on a read error. What is being recorded is saved first. */
static int refill(cj_lex *lx)
{
	ssize_t got;

	if (lx->pos < lx->len)
		return 1;
	if (lx->eof || lx->failed)
		return 0;
	if (lx->rec) {
		if (cj_buf_put(lx->rec, lx->buf + lx->rec_from, lx->len - lx->rec_from))
			return cj_fail(lx, "out of memory");
		lx->rec_from = 0;
	}
	lx->base += lx->len;
	lx->len = lx->pos = 0;
	do
		got = read(lx->fd, lx->buf, CJ_BLOCK);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return cj_fail(lx, strerror(errno));
	if (got == 0) {
		lx->eof = true;
		return 0;
	}
	lx->len = (size_t)got;
	return 1;
}

/* The next byte, consumed: 0..255, or -1 at the end. */
static inline int next_byte(cj_lex *lx)
{
	if (lx->pos == lx->len && refill(lx) <= 0)
		return -1;
	return lx->buf[lx->pos++];
}

int cj_peek(cj_lex *lx)
{
	for (;;) {
		unsigned char c;

		if (lx->failed)
			return -1;
		if (lx->pos == lx->len && refill(lx) <= 0)
			return -1;
		c = lx->buf[lx->pos];
		if (c == '\n')
			lx->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			return c;
		lx->pos++;
	}
}

void cj_skip_bom(cj_lex *lx)
{
	if (lx->pos == lx->len && refill(lx) <= 0)
		return;
	if (lx->len - lx->pos >= 3 && lx->buf[lx->pos] == 0xef && lx->buf[lx->pos + 1] == 0xbb &&
	    lx->buf[lx->pos + 2] == 0xbf)
		lx->pos += 3;
}

void cj_take(cj_lex *lx)
{
	lx->pos++;
}

int cj_expect(cj_lex *lx, int c, const char *what)
{
	if (cj_peek(lx) != c)
		return cj_fail(lx, what);
	lx->pos++;
	return 0;
}

/* Appends buf[from..pos) to `out`. */
static int flush_run(cj_lex *lx, cj_buf *out, size_t from)
{
	if (out && lx->pos > from && cj_buf_put(out, lx->buf + from, lx->pos - from))
		return cj_fail(lx, "out of memory");
	return 0;
}

/* Four hex digits of a \u escape. */
static int hex4(cj_lex *lx, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		int c = next_byte(lx);

		if (c >= '0' && c <= '9')
			v = v << 4 | (uint32_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = v << 4 | (uint32_t)((c | 0x20) - 'a' + 10);
		else
			return cj_fail(lx, c < 0 ? "the file ends inside a string" : "a bad \\u escape");
	}
	*out = v;
	return 0;
}

/* Appends code point `cp` as UTF-8. */
static int put_cp(cj_lex *lx, cj_buf *out, uint32_t cp)
{
	unsigned char u[4];
	size_t n;

	if (!out)
		return 0;
	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		u[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		u[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	if (cj_buf_put(out, u, n))
		return cj_fail(lx, "out of memory");
	return 0;
}

/* A backslash escape (the backslash consumed). */
static int escape(cj_lex *lx, cj_buf *out)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	int c = next_byte(lx);
	const char *at;
	uint32_t cp, lo;

	if (c < 0)
		return cj_fail(lx, "the file ends inside a string");
	if (c != 'u') {
		at = c ? strchr(from, c) : NULL;
		if (!at)
			return cj_fail(lx, "a bad escape in a string");
		return put_cp(lx, out, (unsigned char)to[at - from]);
	}
	if (hex4(lx, &cp))
		return -1;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return cj_fail(lx, "a lone low surrogate in a \\u escape");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (next_byte(lx) != '\\' || next_byte(lx) != 'u' || hex4(lx, &lo) || lo < 0xdc00 ||
		    lo > 0xdfff)
			return cj_fail(lx, "a high surrogate without its low half in a \\u escape");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return put_cp(lx, out, cp);
}

/*
 * The string's bytes run by run: plain bytes are copied in runs (ASCII
 * checked a byte at a time, longer UTF-8 sequences decoded, refilling at
 * block ends), escapes decoded one by one.
 */
int cj_string(cj_lex *lx, cj_buf *out)
{
	size_t from;

	if (out)
		cj_buf_reset(out);
	if (cj_expect(lx, '"', "a string was expected"))
		return -1;
	from = lx->pos;
	for (;;) {
		unsigned char c;

		if (lx->pos == lx->len) {
			if (flush_run(lx, out, from))
				return -1;
			if (refill(lx) <= 0)
				return cj_fail(lx, "the file ends inside a string");
			from = lx->pos;
		}
		c = lx->buf[lx->pos];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			lx->pos++;
			continue;
		}
		if (c == '"') {
			if (flush_run(lx, out, from))
				return -1;
			lx->pos++;
			return 0;
		}
		if (c == '\\') {
			if (flush_run(lx, out, from))
				return -1;
			lx->pos++;
			if (escape(lx, out))
				return -1;
			from = lx->pos;
			continue;
		}
		if (c < 0x20)
			return cj_fail(lx, "a control character inside a string");
		/* A multi-byte sequence, possibly across the block's end. */
		{
			unsigned char seq[4];
			size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2, got = 0;
			uint32_t cp;

			if (lx->len - lx->pos >= need) {
				if (tsb_utf8_decode(lx->buf + lx->pos, need, &cp) != need)
					return cj_fail(lx, "bytes that are not UTF-8");
				lx->pos += need;
				continue;
			}
			if (flush_run(lx, out, from))
				return -1;
			while (got < need) {
				int b = next_byte(lx);

				if (b < 0)
					return cj_fail(lx, "the file ends inside a string");
				seq[got++] = (unsigned char)b;
			}
			if (tsb_utf8_decode(seq, need, &cp) != need)
				return cj_fail(lx, "bytes that are not UTF-8");
			if (out && cj_buf_put(out, seq, need))
				return cj_fail(lx, "out of memory");
			from = lx->pos;
		}
	}
}

/* --- Numbers -------------------------------------------------------------------- */

int cj_number(cj_lex *lx, cj_num *out)
{
	size_t tlen = 0;
	int64_t exp = 0, dropped = 0, frac = 0;
	unsigned digits = 0;
	bool any = false, long_text = false;
	int c;

	memset(out, 0, sizeof(*out));
	c = cj_peek(lx);

#define TAKE()                                                        \
	do {                                                              \
		if (tlen < sizeof(out->text) - 1)                             \
			out->text[tlen++] = (char)c;                              \
		else                                                          \
			long_text = true;                                         \
		lx->pos++;                                                    \
		c = lx->pos == lx->len && refill(lx) <= 0 ? -1 : lx->buf[lx->pos]; \
	} while (0)

	if (c == '-') {
		out->neg = true;
		TAKE();
	}
	if (c == '0') {
		any = true;
		TAKE();
	} else {
		while (c >= '0' && c <= '9') {
			any = true;
			if (digits < 19) {
				if (out->mant || c != '0')
					digits++;
				out->mant = out->mant * 10 + (uint64_t)(c - '0');
			} else {
				dropped++;
			}
			TAKE();
		}
	}
	if (!any)
		return cj_fail(lx, lx->failed ? "" : "a number was expected");
	if (c == '.') {
		TAKE();
		if (!(c >= '0' && c <= '9'))
			return cj_fail(lx, "a digit must follow the decimal point");
		while (c >= '0' && c <= '9') {
			if (digits < 19) {
				if (out->mant || c != '0')
					digits++;
				out->mant = out->mant * 10 + (uint64_t)(c - '0');
				frac++;
			}
			TAKE();
		}
	}
	if (c == 'e' || c == 'E') {
		bool eneg = false;

		TAKE();
		if (c == '+' || c == '-') {
			eneg = c == '-';
			TAKE();
		}
		if (!(c >= '0' && c <= '9'))
			return cj_fail(lx, "a digit must follow the exponent");
		while (c >= '0' && c <= '9') {
			if (exp < 1000000000)
				exp = exp * 10 + (c - '0');
			TAKE();
		}
		if (eneg)
			exp = -exp;
	}
#undef TAKE
	if (lx->failed)
		return -1;
	out->exp10 = exp + dropped - frac;
	if (long_text)
		out->text[0] = '\0';
	else
		out->text[tlen] = '\0';
	return 0;
}

int cj_num_us_to_ns(const cj_num *n, int64_t *ns)
{
	int64_t e = n->exp10 + 3;
	uint64_t v = n->mant;

	if (v == 0) {
		*ns = 0;
		return 0;
	}
	if (e > 0) {
		if (e > 19)
			return -1;
		for (int64_t i = 0; i < e; i++) {
			if (v > UINT64_MAX / 10)
				return -1;
			v *= 10;
		}
	} else if (e < 0) {
		uint64_t d = 1, r;

		if (e < -19) {
			v = 0;
		} else {
			for (int64_t i = 0; i < -e; i++)
				d *= 10;
			r = v % d;
			v /= d;
			if (r >= d - r)
				v++; /* to the nearest, halves away from zero */
		}
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*ns = n->neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* One "C" locale for strtod_l, made once. */
static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

double cj_num_double(const cj_num *n)
{
	double v;

	pthread_once(&c_locale_once, make_c_locale);
	if (n->text[0] && c_locale)
		return strtod_l(n->text, NULL, c_locale);
	/* A token too long to copy: 19 digits are more than a double holds. */
	if (n->exp10 > 400)
		v = n->mant ? HUGE_VAL : 0.0;
	else if (n->exp10 < -400)
		v = 0.0;
	else
		v = (double)n->mant * pow(10.0, (double)n->exp10);
	return n->neg ? -v : v;
}

int cj_num_int(const cj_num *n, int64_t *out)
{
	uint64_t v = n->mant;

	if (n->exp10 < 0) {
		for (int64_t i = 0; i < -n->exp10 && v; i++) {
			if (v % 10)
				return -1;
			v /= 10;
		}
	} else {
		for (int64_t i = 0; i < n->exp10 && v; i++) {
			if (v > UINT64_MAX / 10)
				return -1;
			v *= 10;
		}
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = n->neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* --- Skipping ----------------------------------------------------------------------- */

/* A literal: true, false or null. */
static int literal(cj_lex *lx)
{
	static const char *const words[] = {"true", "false", "null"};
	int c = cj_peek(lx);

	for (size_t w = 0; w < 3; w++) {
		const char *s = words[w];

		if (c != s[0])
			continue;
		for (; *s; s++)
			if (next_byte(lx) != (unsigned char)*s)
				return cj_fail(lx, "a bad literal");
		return 0;
	}
	return cj_fail(lx, c < 0 ? "the file ends where a value was expected" : "a value was expected");
}

/*
 * Skips one value. Containers are followed with a stack of bits (one per
 * level: object or array) instead of recursion, so a file of a million
 * '[' costs no stack, and is refused past CJ_MAX_NESTING. When `keep` is
 * given the lexer records every byte consumed into it.
 */
int cj_skip(cj_lex *lx, cj_buf *keep)
{
	uint8_t kind[CJ_MAX_NESTING / 8];
	size_t depth = 0;
	bool want_value = true; /* else: want ',' or a closer */
	cj_num num;
	int c, rc = 0;

	if (keep) {
		cj_buf_reset(keep);
		if (cj_peek(lx) < 0)
			return cj_fail(lx, "the file ends where a value was expected");
		lx->rec = keep;
		lx->rec_from = lx->pos;
	}
	for (;;) {
		c = cj_peek(lx);
		if (c < 0) {
			rc = cj_fail(lx, "the file ends inside a value");
			break;
		}
		if (want_value) {
			if (c == '{' || c == '[') {
				if (depth >= CJ_MAX_NESTING) {
					rc = cj_fail(lx, "arrays and objects nested too deep");
					break;
				}
				if (c == '{')
					kind[depth / 8] |= (uint8_t)(1u << depth % 8);
				else
					kind[depth / 8] &= (uint8_t)~(1u << depth % 8);
				depth++;
				lx->pos++;
				c = cj_peek(lx);
				if (c == '}' || c == ']') {
					want_value = false;
					continue;
				}
				if (kind[(depth - 1) / 8] >> (depth - 1) % 8 & 1) {
					if ((rc = cj_string(lx, NULL)) || (rc = cj_expect(lx, ':', "':' was expected")))
						break;
				}
				continue;
			}
			if (c == '"')
				rc = cj_string(lx, NULL);
			else if (c == '-' || (c >= '0' && c <= '9'))
				rc = cj_number(lx, &num);
			else
				rc = literal(lx);
			if (rc)
				break;
			want_value = false;
			if (depth == 0)
				break;
			continue;
		}
		/* After a value inside a container. */
		{
			bool obj = kind[(depth - 1) / 8] >> (depth - 1) % 8 & 1;

			if (c == ',') {
				lx->pos++;
				want_value = true;
				if (obj && ((rc = cj_string(lx, NULL)) || (rc = cj_expect(lx, ':', "':' was expected"))))
					break;
				continue;
			}
			if (c != (obj ? '}' : ']')) {
				rc = cj_fail(lx, obj ? "',' or '}' was expected" : "',' or ']' was expected");
				break;
			}
			lx->pos++;
			if (--depth == 0)
				break;
		}
	}
	if (keep) {
		if (!rc && cj_buf_put(keep, lx->buf + lx->rec_from, lx->pos - lx->rec_from))
			rc = cj_fail(lx, "out of memory");
		lx->rec = NULL;
		if (!rc && cj_buf_end(keep))
			rc = cj_fail(lx, "out of memory");
	}
	return rc;
}
