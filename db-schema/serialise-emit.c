/*
 * The two emitters of the value tree: JSON text and CBOR (RFC 8949,
 * through libcbor's streaming encoders rather than cbor_item_t trees,
 * which would cost a heap item per number), into a buffer that grows by
 * doubling or to a stream through a 256 KiB buffer.
 *
 * Exactness. Integers never pass through a double: JSON gets their
 * decimal digits, CBOR an unsigned or negative integer of the smallest
 * width. Doubles (balances) are written with 17 significant digits, so
 * they read back bit for bit; a non-finite double becomes null in both
 * formats, as JSON has no way to write it.
 *
 * Strings come from users (names of variables, compute sets ...). Both
 * formats require UTF-8, so every byte that does not start a well-formed
 * UTF-8 sequence is written as U+FFFD by both emitters alike.
 */
#include "serialise-private.h"

#include <cbor.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- Reading numbers and strings for the emitters --------------------------- */

/* A number as sign and magnitude, the form both emitters write. */
typedef struct sv_num {
	bool neg;
	uint64_t mag; /* |value|; for a negative value at least 1 */
} sv_num;

/* Sign and magnitude of v (INT64_MIN included, without overflow). */
static sv_num num_signed(int64_t v)
{
	sv_num r;

	r.neg = v < 0;
	r.mag = r.neg ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
	return r;
}

/* Element i of an SV_NUMS node. */
static sv_num nums_at(const sv_node *n, size_t i)
{
	const unsigned char *p = (const unsigned char *)n->nums.base + i * n->nums.stride;
	sv_num r = {false, 0};

	switch (n->nums.type) {
	case SV_U32: {
		uint32_t v;
		memcpy(&v, p, sizeof(v));
		r.mag = v;
		break;
	}
	case SV_I32: {
		int32_t v;
		memcpy(&v, p, sizeof(v));
		r = num_signed(v);
		break;
	}
	case SV_U64: {
		uint64_t v;
		memcpy(&v, p, sizeof(v));
		r.mag = v;
		break;
	}
	case SV_SIZE: {
		size_t v;
		memcpy(&v, p, sizeof(v));
		r.mag = v;
		break;
	}
	}
	return r;
}

/* Element i of an SV_DENSE node, walking its pairs in order with *k. */
static uint64_t dense_at(const sv_node *n, size_t i, size_t *k)
{
	if (*k < n->dense.n && n->dense.index[*k] == i)
		return n->dense.value[(*k)++];
	return 0;
}

/* Length of the well-formed UTF-8 sequence at s[0..n) (1 to 4), or 0
 * when s[0] does not start one (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

static const unsigned char replacement_char[3] = {0xEF, 0xBF, 0xBD}; /* U+FFFD */

/* --- Output buffer ----------------------------------------------------------- */

typedef struct sv_out {
	unsigned char *p;
	size_t len, cap;
	sv_msg msg;
	FILE *sink;        /* NULL: the whole document in p; else written out as it grows */
	int sink_errno;    /* the errno of a failed write to sink, 0 when none */
} sv_out;

/* What a sink's buffer holds at most before it is written out. */
#define SV_SINK_CHUNK ((size_t)256 << 10)

/* After the walk: every pair used means the indexes were strictly
 * ascending and below len, as tsi_tile_values promises. */
static int dense_check(const sv_out *o, const sv_node *n, size_t k)
{
	if (k == n->dense.n)
		return 0;
	return sv_error(&o->msg, TSF_ERR_INVALID,
	                "profile: tile values are not ascending or reach past %zu entries "
	                "(index %u)",
	                n->dense.len, n->dense.index[k]);
}


/* Makes room for `extra` more bytes (doubling, so appends are amortised
 * constant time). False when the host is out of memory. */
static bool out_reserve(sv_out *o, size_t extra)
{
	size_t cap = o->cap ? o->cap : 4096;
	unsigned char *p;

	/* Streaming: what is written so far goes out before the buffer would
	 * grow past a chunk, so memory stays a chunk whatever the output's
	 * size. Callers write at o->p + o->len after this returns, so the
	 * flush is invisible to them. */
	if (o->sink && o->len && o->len + extra > SV_SINK_CHUNK) {
		if (fwrite(o->p, 1, o->len, o->sink) != o->len) {
			o->sink_errno = errno ? errno : EIO;
			return false;
		}
		o->len = 0;
	}
	if (o->cap - o->len >= extra)
		return true;
	if (extra > SIZE_MAX - o->len)
		return false;
	while (cap - o->len < extra) {
		if (cap > SIZE_MAX / 2)
			return false;
		cap *= 2;
	}
	p = realloc(o->p, cap);
	if (!p)
		return false;
	o->p = p;
	o->cap = cap;
	return true;
}

/* Appends n bytes; false when the host is out of memory. */
static bool out_put(sv_out *o, const void *bytes, size_t n)
{
	if (!out_reserve(o, n))
		return false;
	memcpy(o->p + o->len, bytes, n);
	o->len += n;
	return true;
}

/* The emitters' one failure besides bad tile lists: out of memory, or
 * a write to the sink that failed. */
static int out_no_memory(const sv_out *o)
{
	if (o->sink_errno)
		return sv_error(&o->msg, TSF_ERR_IO, "write failed: %s", strerror(o->sink_errno));
	return sv_error(&o->msg, TSF_ERR_NO_MEMORY, "out of host memory writing a serialised profile");
}

/* --- JSON emitter --------------------------------------------------------------- */

/* Appends a number's decimal digits (with '-' when negative). The caller
 * has reserved 21 bytes. */
static void json_num_raw(sv_out *o, sv_num v)
{
	char tmp[20];
	size_t n = 0;
	uint64_t m = v.mag;

	do {
		tmp[n++] = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	if (v.neg)
		o->p[o->len++] = '-';
	while (n)
		o->p[o->len++] = (unsigned char)tmp[--n];
}

/* json_num_raw with its own reservation. */
static bool json_num(sv_out *o, sv_num v)
{
	if (!out_reserve(o, 21))
		return false;
	json_num_raw(o, v);
	return true;
}

/*
 * A double with 17 significant digits (enough to read back the same
 * double), and a ".0" when %g printed an integer so that readers see a
 * floating-point value. %g follows the C locale's decimal point only when
 * LC_NUMERIC is "C"; a model may have set another, so whatever the locale
 * put between the digits becomes '.'.
 */
static bool json_double(sv_out *o, double d)
{
	char buf[64], clean[72];
	size_t n = 0;
	bool frac = false;
	int len = snprintf(buf, sizeof(buf), "%.17g", d);

	if (len <= 0 || (size_t)len >= sizeof(buf))
		return out_put(o, "0.0", 3);
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
	return out_put(o, clean, n);
}

/* A JSON string: quotes, escapes for '"', '\' and control characters,
 * U+FFFD for bytes that are not UTF-8. */
static bool json_string(sv_out *o, const char *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;

	if (!out_reserve(o, len + 2))
		return false;
	o->p[o->len++] = '"';
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t k = utf8_seq(s + i, len - i);

		if (!out_reserve(o, 7))
			return false;
		if (k == 0) {
			memcpy(o->p + o->len, replacement_char, 3);
			o->len += 3;
			i++;
			continue;
		}
		if (k > 1) {
			if (!out_put(o, s + i, k))
				return false;
			i += k;
			continue;
		}
		i++;
		if (c == '"' || c == '\\') {
			o->p[o->len++] = '\\';
			o->p[o->len++] = c;
		} else if (c == '\n') {
			memcpy(o->p + o->len, "\\n", 2);
			o->len += 2;
		} else if (c == '\t') {
			memcpy(o->p + o->len, "\\t", 2);
			o->len += 2;
		} else if (c < 0x20) {
			memcpy(o->p + o->len, "\\u00", 4);
			o->p[o->len + 4] = (unsigned char)hex[c >> 4];
			o->p[o->len + 5] = (unsigned char)hex[c & 15];
			o->len += 6;
		} else {
			o->p[o->len++] = c;
		}
	}
	return out_put(o, "\"", 1);
}

/* Writes node `n` (and what it holds) as compact JSON. */
static int json_value(sv_out *o, const sv_node *n)
{
	int rc = 0;
	size_t k = 0;

	switch (n->kind) {
	case SV_NULL:
		if (!out_put(o, "null", 4))
			goto nomem;
		break;
	case SV_BOOL:
		if (!(n->b ? out_put(o, "true", 4) : out_put(o, "false", 5)))
			goto nomem;
		break;
	case SV_UINT:
		if (!json_num(o, (sv_num){false, n->u}))
			goto nomem;
		break;
	case SV_INT:
		if (!json_num(o, num_signed(n->i)))
			goto nomem;
		break;
	case SV_DOUBLE:
		if (!json_double(o, n->d))
			goto nomem;
		break;
	case SV_STRING:
		if (!json_string(o, n->str.p, n->str.len))
			goto nomem;
		break;
	case SV_ARRAY:
	case SV_MAP:
		if (!out_put(o, n->kind == SV_MAP ? "{" : "[", 1))
			goto nomem;
		for (const sv_node *c = n->list.first; c; c = c->next) {
			if (c != n->list.first && !out_put(o, ",", 1))
				goto nomem;
			if (n->kind == SV_MAP && (!json_string(o, c->key, strlen(c->key)) ||
			                          !out_put(o, ":", 1)))
				goto nomem;
			rc = json_value(o, c);
			if (rc)
				goto out;
		}
		if (!out_put(o, n->kind == SV_MAP ? "}" : "]", 1))
			goto nomem;
		break;
	case SV_NUMS:
		if (!out_put(o, "[", 1))
			goto nomem;
		for (size_t i = 0; i < n->nums.n; i++) {
			if (!out_reserve(o, 22))
				goto nomem;
			if (i)
				o->p[o->len++] = ',';
			json_num_raw(o, nums_at(n, i));
		}
		if (!out_put(o, "]", 1))
			goto nomem;
		break;
	case SV_DENSE:
		if (!out_put(o, "[", 1))
			goto nomem;
		for (size_t i = 0; i < n->dense.len; i++) {
			if (!out_reserve(o, 22))
				goto nomem;
			if (i)
				o->p[o->len++] = ',';
			json_num_raw(o, (sv_num){false, dense_at(n, i, &k)});
		}
		rc = dense_check(o, n, k);
		if (rc)
			goto out;
		if (!out_put(o, "]", 1))
			goto nomem;
		break;
	}
out:
	return rc;
nomem:
	return out_no_memory(o);
}

/* --- CBOR emitter --------------------------------------------------------------- */

/* The longest head libcbor writes: a type byte and an 8-byte argument. */
#define CBOR_HEAD_MAX 9

/* Appends what one of libcbor's encoders writes for `arg`; the encoders
 * return 0 when the space is too small, which the reservation rules out. */
#define CBOR_PUT(o, encoder, arg)                                                          \
	(out_reserve((o), CBOR_HEAD_MAX) &&                                                     \
	 ((o)->len += encoder((arg), (o)->p + (o)->len, (o)->cap - (o)->len), true))

/* An integer as CBOR major type 0 or 1 (-1 - n), smallest width. */
static bool cbor_num(sv_out *o, sv_num v)
{
	return v.neg ? CBOR_PUT(o, cbor_encode_negint, v.mag - 1) : CBOR_PUT(o, cbor_encode_uint, v.mag);
}

/* A text string with the same U+FFFD replacement as json_string. */
static bool cbor_text(sv_out *o, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t out_len = 0;

	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(s + i, len - i);

		out_len += k ? k : sizeof(replacement_char);
		i += k ? k : 1;
	}
	if (!CBOR_PUT(o, cbor_encode_string_start, out_len) || !out_reserve(o, out_len))
		return false;
	for (size_t i = 0; i < len;) {
		size_t k = utf8_seq(s + i, len - i);

		if (k) {
			memcpy(o->p + o->len, s + i, k);
			o->len += k;
			i += k;
		} else {
			memcpy(o->p + o->len, replacement_char, sizeof(replacement_char));
			o->len += sizeof(replacement_char);
			i++;
		}
	}
	return true;
}

/* Writes node `n` (and what it holds) as CBOR with definite lengths. */
static int cbor_value(sv_out *o, const sv_node *n)
{
	int rc = 0;
	size_t k = 0;

	switch (n->kind) {
	case SV_NULL:
		if (!out_reserve(o, 1))
			goto nomem;
		o->len += cbor_encode_null(o->p + o->len, o->cap - o->len);
		break;
	case SV_BOOL:
		if (!CBOR_PUT(o, cbor_encode_bool, n->b))
			goto nomem;
		break;
	case SV_UINT:
		if (!cbor_num(o, (sv_num){false, n->u}))
			goto nomem;
		break;
	case SV_INT:
		if (!cbor_num(o, num_signed(n->i)))
			goto nomem;
		break;
	case SV_DOUBLE:
		if (!CBOR_PUT(o, cbor_encode_double, n->d))
			goto nomem;
		break;
	case SV_STRING:
		if (!cbor_text(o, n->str.p, n->str.len))
			goto nomem;
		break;
	case SV_ARRAY:
	case SV_MAP:
		if (!(n->kind == SV_MAP ? CBOR_PUT(o, cbor_encode_map_start, n->list.n)
		                        : CBOR_PUT(o, cbor_encode_array_start, n->list.n)))
			goto nomem;
		for (const sv_node *c = n->list.first; c; c = c->next) {
			if (n->kind == SV_MAP && !cbor_text(o, c->key, strlen(c->key)))
				goto nomem;
			rc = cbor_value(o, c);
			if (rc)
				goto out;
		}
		break;
	case SV_NUMS:
		if (!CBOR_PUT(o, cbor_encode_array_start, n->nums.n))
			goto nomem;
		for (size_t i = 0; i < n->nums.n; i++)
			if (!cbor_num(o, nums_at(n, i)))
				goto nomem;
		break;
	case SV_DENSE:
		if (!CBOR_PUT(o, cbor_encode_array_start, n->dense.len))
			goto nomem;
		for (size_t i = 0; i < n->dense.len; i++)
			if (!CBOR_PUT(o, cbor_encode_uint, dense_at(n, i, &k)))
				goto nomem;
		rc = dense_check(o, n, k);
		break;
	}
out:
	return rc;
nomem:
	return out_no_memory(o);
}

/*
 * Writes the tree rooted at `root` in `format` to `sink` as it goes (a
 * buffer of SV_SINK_CHUNK at most in memory), then flushes it.
 */
int sv_emit_to(FILE *sink, const sv_node *root, tsf_doc_format format, sv_msg msg)
{
	sv_out o = {NULL, 0, 0, msg, sink, 0};
	int rc = format == TSF_DOC_JSON ? json_value(&o, root) : cbor_value(&o, root);

	if (!rc && o.len && fwrite(o.p, 1, o.len, sink) != o.len)
		o.sink_errno = errno ? errno : EIO;
	if (!rc && !o.sink_errno && fflush(sink) != 0)
		o.sink_errno = errno ? errno : EIO;
	if (!rc && o.sink_errno)
		rc = out_no_memory(&o);
	free(o.p);
	return rc;
}

/*
 * Writes the tree rooted at `root` in `format` into a malloc'd buffer
 * (*out, *out_len; JSON also NUL-terminated, the NUL not counted).
 */
int sv_emit(void **out, size_t *out_len, const sv_node *root, tsf_doc_format format,
                   sv_msg msg)
{
	sv_out o = {NULL, 0, 0, msg, NULL, 0};
	unsigned char *shrunk;
	int rc;

	rc = format == TSF_DOC_JSON ? json_value(&o, root) : cbor_value(&o, root);
	if (rc)
		goto out;
	if (format == TSF_DOC_JSON) {
		if (!out_reserve(&o, 1)) {
			rc = out_no_memory(&o);
			goto out;
		}
		o.p[o.len] = '\0';
	}
	shrunk = realloc(o.p, o.len + 1); /* give back the doubling's slack */
	if (shrunk)
		o.p = shrunk;
	*out = o.p;
	*out_len = o.len;
	o.p = NULL;
out:
	free(o.p);
	return rc;
}
