/*
 * The graph and execution profiles as JSON or CBOR, in the shape of the
 * Poplar user guide's "Profiling" chapter (tilescope/serialise.h).
 *
 * One idea in three parts. The profile is first turned into a small value
 * tree (maps, arrays, numbers, strings: sv_node); then one of two
 * emitters writes that tree as JSON text or as CBOR through libcbor's
 * encoders. Both formats therefore hold the same keys and values by
 * construction, and the shape of the output is written once, in the
 * build_* functions.
 *
 * Size. The guide's format is dense: every per-tile array has num_tiles
 * entries, and byComputeSet / cycleEstimates hold one such array per
 * compute set, so a large model's output is gigabytes whatever we do. The
 * tree must not make it worse: it borrows the profile's arrays instead of
 * copying them. A run of numbers in memory (a field of every element of a
 * struct array, a dense row of byCategory) is one SV_NUMS node, and a
 * sparse tsi_tile_values is one SV_DENSE node that becomes num_tiles
 * entries only in the output. The tree is thus proportional to compute
 * sets + programs + steps + variables, never to tiles x compute sets,
 * and the emitters write each value once into a buffer that grows by
 * doubling. CBOR is written with libcbor's streaming encoders
 * (cbor_encode_*) rather than built as cbor_item_t trees, which would
 * cost a heap item per number.
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
 *
 * Memory: the tree's nodes and the few arrays computed here (category
 * totals, liveness per tile, the joined program trace) live in one arena
 * freed at the end of the call. Errors are sticky in the tree (the first
 * one is kept, later constructors return NULL), so the build code reads
 * as the shape it produces; the result is checked once.
 */
#include "serialise.h"
#include "vocabulary.h"

#include <cbor.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The runtime's enumerations are the vocabulary's codes (vocabulary.h). */
_Static_assert((int)TSI_MEM_CATEGORY_COUNT == TSF_MEM_CATEGORY_COUNT &&
                   (int)TSI_MEM_CONSTANT == TSF_MEM_CONSTANT &&
                   (int)TSI_MEM_VERTEX_INSTANCE_STATE == TSF_MEM_VERTEX_INSTANCE_STATE,
               "tsi_mem_category follows the vocabulary");
_Static_assert((int)TSI_REGION_COUNT == TSF_REGION_COUNT, "tsi_mem_region follows the vocabulary");
_Static_assert((int)TSI_LP_TYPE_COUNT == TSF_PROGRAM_TYPE_COUNT && (int)TSI_LP_SYNC == TSF_PROGRAM_SYNC &&
                   (int)TSI_LP_DO_EXCHANGE == TSF_PROGRAM_DO_EXCHANGE &&
                   (int)TSI_LP_WRITE_UNDEF == TSF_PROGRAM_WRITE_UNDEF,
               "tsi_lowered_type follows the vocabulary");
_Static_assert((int)TSI_STEP_TYPE_COUNT == TSF_STEP_TYPE_COUNT && (int)TSI_STEP_SYNC == TSF_STEP_SYNC &&
                   (int)TSI_STEP_COPY_SHARED_STRUCTURE == TSF_STEP_COPY_SHARED_STRUCTURE,
               "tsi_step_type follows the vocabulary");
_Static_assert((int)TSI_SYNC_INTERNAL == TSF_SYNC_INTERNAL && (int)TSI_SYNC_GLOBAL == TSF_SYNC_GLOBAL,
               "tsi_sync_type follows the vocabulary");
_Static_assert((int)TSI_EXCHANGE_KIND_COUNT == TSF_EXCHANGE_KIND_COUNT &&
                   (int)TSI_EXCHANGE_HOST == TSF_EXCHANGE_HOST,
               "tsi_exchange_kind follows the vocabulary");
_Static_assert((int)TSI_PROFILER_MODE_COUNT == TSF_PROFILER_MODE_COUNT,
               "tsi_profiler_mode follows the vocabulary");
_Static_assert((int)TSI_TYPE_COUNT == TSF_DATA_TYPE_COUNT && (int)TSI_BOOL == TSF_DATA_TYPE_COUNT - 1,
               "tsi_type follows the vocabulary");

/* --- The value tree --------------------------------------------------------- */

typedef enum sv_kind {
	SV_NULL = 0,
	SV_BOOL,
	SV_UINT,
	SV_INT,
	SV_DOUBLE,
	SV_STRING,
	SV_ARRAY,
	SV_MAP,
	SV_NUMS,  /* an array of n numbers read from memory, `stride` bytes apart */
	SV_DENSE, /* an array of `len` numbers: value[k] at index[k], zero elsewhere */
} sv_kind;

/* How an SV_NUMS node reads its numbers. */
typedef enum sv_num_type { SV_U32 = 0, SV_I32, SV_U64, SV_SIZE } sv_num_type;

typedef struct sv_node sv_node;
struct sv_node {
	const char *key; /* the key when the node is a map's member, else NULL */
	sv_node *next;   /* the next member or element of the parent */
	sv_kind kind;
	union {
		bool b;
		uint64_t u;
		int64_t i;
		double d;
		struct {
			const char *p;
			size_t len;
		} str;
		struct {
			sv_node *first, *last;
			size_t n;
		} list;
		struct {
			const void *base;
			size_t n;
			size_t stride; /* bytes */
			sv_num_type type;
		} nums;
		struct {
			const uint32_t *index; /* strictly ascending, < len (checked on output) */
			const uint64_t *value;
			size_t n;
			size_t len;
		} dense;
	};
};

/* A block of the tree's arena. */
typedef struct sv_block {
	struct sv_block *next;
	size_t used, cap; /* bytes of data[] */
	max_align_t data[];
} sv_block;

#define SV_BLOCK_BYTES ((size_t)64 * 1024)

/* Where a failure's message goes: the caller's buffer (may be NULL). */
typedef struct sv_msg {
	char *text;
	size_t size;
} sv_msg;

/* Writes a failure's message; returns `code`. */
static int sv_msg_set(const sv_msg *m, int code, const char *fmt, va_list ap)
{
	if (m->text && m->size)
		vsnprintf(m->text, m->size, fmt, ap);
	return code;
}

static int sv_error(const sv_msg *m, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int sv_error(const sv_msg *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sv_msg_set(m, code, fmt, ap);
	va_end(ap);
	return code;
}

/* The tree being built: its arena and the first error. */
typedef struct sv_tree {
	sv_block *blocks;
	int rc;
	sv_msg msg;
} sv_tree;

/* Records the first failure of a build (later ones are consequences). */
static void sv_fail(sv_tree *t, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sv_fail(sv_tree *t, int code, const char *fmt, ...)
{
	va_list ap;

	if (t->rc)
		return;
	va_start(ap, fmt);
	t->rc = sv_msg_set(&t->msg, code, fmt, ap);
	va_end(ap);
}

/*
 * Zeroed memory from the tree's arena, 16-byte aligned; NULL (and the
 * tree's error set) when the host is out of memory. Requests larger than
 * a quarter block get a block of their own, put behind the current one so
 * that the current block's free space is not lost.
 */
static void *sv_alloc(sv_tree *t, size_t bytes)
{
	sv_block *b = t->blocks;
	size_t need;
	void *p;

	if (t->rc)
		return NULL;
	if (bytes > SIZE_MAX - sizeof(sv_block) - 16)
		goto nomem;
	need = (bytes + 15) & ~(size_t)15;
	if (!b || b->cap - b->used < need) {
		bool own = need > SV_BLOCK_BYTES / 4;
		size_t cap = own ? need : SV_BLOCK_BYTES;
		sv_block *nb = malloc(sizeof(*nb) + cap);

		if (!nb)
			goto nomem;
		nb->used = 0;
		nb->cap = cap;
		if (own && b) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			t->blocks = nb;
		}
		b = nb;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, bytes);
	return p;
nomem:
	sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
	return NULL;
}

/* A zeroed array of n elements of `size` bytes from the arena. */
static void *sv_alloc_array(sv_tree *t, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
		return NULL;
	}
	return sv_alloc(t, n * size);
}

/* Frees the arena, and with it every node and computed array. */
static void sv_tree_free(sv_tree *t)
{
	while (t->blocks) {
		sv_block *next = t->blocks->next;

		free(t->blocks);
		t->blocks = next;
	}
}

/* The node constructors: each returns NULL when the tree has failed
 * (sv_put / sv_push then ignore it). A new node of `kind`, zeroed. */
static sv_node *sv_new(sv_tree *t, sv_kind kind)
{
	sv_node *n = sv_alloc(t, sizeof(*n));

	if (n)
		n->kind = kind;
	return n;
}

/* null: a value the profile does not have (JSON null, CBOR simple 22). */
static sv_node *sv_null(sv_tree *t)
{
	return sv_new(t, SV_NULL);
}

/* true / false. */
static sv_node *sv_bool(sv_tree *t, bool v)
{
	sv_node *n = sv_new(t, SV_BOOL);

	if (n)
		n->b = v;
	return n;
}

/* An unsigned integer, exact up to 2^64 - 1. */
static sv_node *sv_uint(sv_tree *t, uint64_t v)
{
	sv_node *n = sv_new(t, SV_UINT);

	if (n)
		n->u = v;
	return n;
}

/* A signed integer (indexes that may be -1). */
static sv_node *sv_int(sv_tree *t, int64_t v)
{
	sv_node *n = sv_new(t, SV_INT);

	if (n)
		n->i = v;
	return n;
}

/* A double; NaN and infinities have no JSON form and become null. */
static sv_node *sv_double(sv_tree *t, double v)
{
	sv_node *n;

	if (!isfinite(v))
		return sv_null(t);
	n = sv_new(t, SV_DOUBLE);
	if (n)
		n->d = v;
	return n;
}

/* The first `len` bytes of `s` (borrowed: must outlive the emission). */
static sv_node *sv_string_n(sv_tree *t, const char *s, size_t len)
{
	sv_node *n = sv_new(t, SV_STRING);

	if (n) {
		n->str.p = s;
		n->str.len = len;
	}
	return n;
}

/* A borrowed NUL-terminated string; NULL becomes null. */
static sv_node *sv_string(sv_tree *t, const char *s)
{
	return s ? sv_string_n(t, s, strlen(s)) : sv_null(t);
}

/* An empty array, filled with sv_push. */
static sv_node *sv_array(sv_tree *t)
{
	return sv_new(t, SV_ARRAY);
}

/* An empty map, filled with sv_put (keys stay in insertion order). */
static sv_node *sv_map(sv_tree *t)
{
	return sv_new(t, SV_MAP);
}

/* `n` numbers of `type` at base, base + stride, ... (borrowed). */
static sv_node *sv_nums(sv_tree *t, const void *base, size_t n, size_t stride, sv_num_type type)
{
	sv_node *node;

	if (n && !base) {
		sv_fail(t, TSF_ERR_INVALID, "profile: an array of %zu numbers is NULL", n);
		return NULL;
	}
	node = sv_new(t, SV_NUMS);
	if (node) {
		node->nums.base = base;
		node->nums.n = n;
		node->nums.stride = stride;
		node->nums.type = type;
	}
	return node;
}

/* A dense array of `len` numbers from n (index, value) pairs (borrowed). */
static sv_node *sv_dense(sv_tree *t, const uint32_t *index, const uint64_t *value, size_t n,
                         size_t len)
{
	sv_node *node;

	if (n && (!index || !value)) {
		sv_fail(t, TSF_ERR_INVALID, "profile: a list of %zu tile values is NULL", n);
		return NULL;
	}
	node = sv_new(t, SV_DENSE);
	if (node) {
		node->dense.index = index;
		node->dense.value = value;
		node->dense.n = n;
		node->dense.len = len;
	}
	return node;
}

/* `len` zeros: for data the model does not have or did not record. */
static sv_node *sv_zeros(sv_tree *t, size_t len)
{
	return sv_dense(t, NULL, NULL, 0, len);
}

/* Sparse tile values as a dense per-tile array of num_tiles entries. */
static sv_node *sv_tiles(sv_tree *t, const tsi_tile_values *tv, size_t num_tiles)
{
	return sv_dense(t, tv->tiles, tv->values, tv->n, num_tiles);
}

/* Appends `item` to the array or map `list`. A NULL item or list means an
 * earlier failure that the tree already records. */
static void sv_push(sv_node *list, sv_node *item)
{
	if (!list || !item)
		return;
	if (list->list.last)
		list->list.last->next = item;
	else
		list->list.first = item;
	list->list.last = item;
	list->list.n++;
}

/* Adds member `key` (a string that outlives the emission) to map `map`. */
static void sv_put(sv_node *map, const char *key, sv_node *item)
{
	if (!map || !item)
		return;
	item->key = key;
	sv_push(map, item);
}

/* A field of every element of a struct array: `n` numbers from
 * &arr[0].field with the array's element size as stride. */
#define SV_FIELD(t, arr, n, field, type) \
	((n) ? sv_nums((t), (arr) ? (const void *)&(arr)[0].field : NULL, (n), sizeof((arr)[0]), (type)) \
	     : sv_array(t))

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
static int sv_emit_to(FILE *sink, const sv_node *root, tsf_doc_format format, sv_msg msg)
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
static int sv_emit(void **out, size_t *out_len, const sv_node *root, tsf_doc_format format,
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

/* --- The graph profile ------------------------------------------------------------ */

/* A vocabulary word for the document ("Unknown" for a code outside it,
 * which a profile built by the runtime never holds). */
static const char *vocab_name(tsf_vocab vocab, int code)
{
	const char *name = tsf_vocab_name(vocab, code);

	return name ? name : "Unknown";
}

/* The guide's syncType words. */
static const char *sync_type_name(tsi_sync_type type)
{
	const char *name = tsf_vocab_name(TSF_VOCAB_SYNC_TYPE, (int)type);

	return name ? name : "Unknown";
}

/* "target": the guide's fields, plus the architecture name and the
 * replication factor (the target is one replica's). */
static sv_node *build_target(sv_tree *t, const tsi_graph_profile *gp)
{
	const tsi_target *tg = &gp->target;
	sv_node *m = sv_map(t);

	sv_put(m, "type", sv_string(t, tg->kind == TSI_TARGET_CPU ? "CPU" : "IPU_MODEL"));
	sv_put(m, "bytesPerIPU", sv_uint(t, tg->bytes_per_tile * tg->tiles_per_ipu));
	sv_put(m, "bytesPerTile", sv_uint(t, tg->bytes_per_tile));
	sv_put(m, "clockFrequency", sv_uint(t, tg->clock_hz));
	sv_put(m, "numIPUs", sv_uint(t, tg->num_ipus));
	sv_put(m, "tilesPerIPU", sv_uint(t, tg->tiles_per_ipu));
	sv_put(m, "numTiles", sv_uint(t, tg->num_tiles));
	sv_put(m, "totalMemory", sv_uint(t, tg->bytes_per_tile * tg->num_tiles));
	sv_put(m, "relativeSyncDelayByTile",
	       gp->relative_sync_delay_by_tile
	           ? sv_nums(t, gp->relative_sync_delay_by_tile, tg->tiles_per_ipu, sizeof(uint32_t),
	                     SV_U32)
	           : sv_zeros(t, tg->tiles_per_ipu));
	sv_put(m, "minSyncDelay", sv_uint(t, gp->min_sync_delay));
	sv_put(m, "architecture", sv_string_n(t, tg->name, strnlen(tg->name, sizeof(tg->name))));
	sv_put(m, "replicationFactor", sv_uint(t, gp->replication_factor));
	return m;
}

/* "vertexTypes": names and sizes, plus each type's code size, instance
 * count and FLOPs. */
static sv_node *build_vertex_types(sv_tree *t, const tsi_graph_profile *gp)
{
	const tsi_vertex_type_profile *vt = gp->vertex_types;
	size_t n = gp->n_vertex_types;
	sv_node *m = sv_map(t), *names = sv_array(t);

	for (size_t i = 0; i < n && vt && !t->rc; i++)
		sv_push(names, sv_string(t, vt[i].name));
	sv_put(m, "names", names);
	sv_put(m, "sizes", SV_FIELD(t, vt, n, state_bytes, SV_U32));
	sv_put(m, "codeSizes", SV_FIELD(t, vt, n, code_bytes, SV_U32));
	sv_put(m, "instanceCounts", SV_FIELD(t, vt, n, instances, SV_U64));
	sv_put(m, "flops", SV_FIELD(t, vt, n, flops, SV_U64));
	return m;
}

/* A compute set's active cycles as a dense array over all vertex types
 * (the guide's [compute_set][vertex_type]); the set's own list is copied
 * in index order when it is not already. */
static sv_node *build_cycles_by_type(sv_tree *t, const tsi_compute_set_profile *c,
                                     size_t n_vertex_types)
{
	const uint32_t *index = c->vertex_types;
	const uint64_t *value = c->active_cycles_by_type;
	uint32_t *sorted_index;
	uint64_t *sorted_value;
	size_t n = c->n_types;
	bool sorted = true;

	for (size_t i = 1; i < n && index && sorted; i++)
		sorted = index[i - 1] < index[i];
	if (sorted)
		return sv_dense(t, index, value, n, n_vertex_types);
	/* Insertion into place: a compute set has a handful of types. */
	sorted_index = sv_alloc_array(t, n, sizeof(*sorted_index));
	sorted_value = sv_alloc_array(t, n, sizeof(*sorted_value));
	if (!sorted_index || !sorted_value)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		while (j > 0 && sorted_index[j - 1] > index[i]) {
			sorted_index[j] = sorted_index[j - 1];
			sorted_value[j] = sorted_value[j - 1];
			j--;
		}
		sorted_index[j] = index[i];
		sorted_value[j] = value[i];
	}
	return sv_dense(t, sorted_index, sorted_value, n, n_vertex_types);
}

/* "computeSets": names, vertex counts and types, cycleEstimates; plus
 * FLOPs and the debug context of each set. */
static sv_node *build_compute_sets(sv_tree *t, const tsi_graph_profile *gp)
{
	const tsi_compute_set_profile *cs = gp->compute_sets;
	size_t n = gp->n_compute_sets, nt = gp->target.num_tiles;
	sv_node *m = sv_map(t), *names = sv_array(t), *counts = sv_array(t), *types = sv_array(t);
	sv_node *est = sv_map(t), *active = sv_array(t), *by_type = sv_array(t);
	sv_node *cycles = sv_array(t);

	for (size_t i = 0; i < n && cs && !t->rc; i++) {
		const tsi_compute_set_profile *c = &cs[i];

		if (c->n_types && (!c->vertex_types || !c->vertex_counts || !c->active_cycles_by_type)) {
			sv_fail(t, TSF_ERR_INVALID, "profile: compute set %zu has %u vertex types "
			        "but no arrays for them", i, c->n_types);
			break;
		}
		sv_push(names, sv_string(t, c->name));
		sv_push(counts, sv_nums(t, c->vertex_counts, c->n_types, sizeof(uint64_t), SV_U64));
		sv_push(types, sv_nums(t, c->vertex_types, c->n_types, sizeof(uint32_t), SV_U32));
		sv_push(active, sv_tiles(t, &c->active_cycles_by_tile, nt));
		sv_push(by_type, build_cycles_by_type(t, c, gp->n_vertex_types));
		sv_push(cycles, sv_tiles(t, &c->cycles_by_tile, nt));
	}
	sv_put(m, "names", names);
	sv_put(m, "vertexCounts", counts);
	sv_put(m, "vertexTypes", types);
	sv_put(est, "activeCyclesByTile", active);
	sv_put(est, "activeCyclesByVertexType", by_type);
	sv_put(est, "cyclesByTile", cycles);
	sv_put(m, "cycleEstimates", est);
	sv_put(m, "flops", SV_FIELD(t, cs, n, flops, SV_U64));
	sv_put(m, "debugContextIds", SV_FIELD(t, cs, n, debug_context, SV_U32));
	return m;
}

/* "exchanges" / "externalExchanges" / "hostExchanges": bytes and cycles
 * by exchange then tile; plus the exchanges' names. */
static sv_node *build_exchanges(sv_tree *t, const tsi_graph_profile *gp, tsi_exchange_kind kind)
{
	const tsi_exchange_profile *ex = gp->exchanges[kind];
	size_t n = gp->n_exchanges[kind], nt = gp->target.num_tiles;
	sv_node *m = sv_map(t), *recv = sv_array(t), *sent = sv_array(t), *cycles = sv_array(t);
	sv_node *names = sv_array(t);

	for (size_t i = 0; i < n && ex && !t->rc; i++) {
		sv_push(recv, sv_tiles(t, &ex[i].bytes_received, nt));
		sv_push(sent, sv_tiles(t, &ex[i].bytes_sent, nt));
		sv_push(cycles, sv_tiles(t, &ex[i].cycles, nt));
		sv_push(names, sv_string(t, ex[i].name));
	}
	sv_put(m, "bytesReceivedByTile", recv);
	sv_put(m, "bytesSentByTile", sent);
	/* Internal exchanges are scheduled statically, so their cycles are
	 * known; the others are estimates. */
	sv_put(m, kind == TSI_EXCHANGE_INTERNAL ? "cyclesByTile" : "estimatedCyclesByTile", cycles);
	sv_put(m, "names", names);
	return m;
}

/* An exchange program's "memoryByInstruction". */
static sv_node *build_instructions(sv_tree *t, const tsi_exchange_instructions *x)
{
	sv_node *m = sv_map(t);

	sv_put(m, "delay", sv_uint(t, x->delay));
	sv_put(m, "exchange", sv_uint(t, x->exchange));
	sv_put(m, "other", sv_uint(t, x->other));
	sv_put(m, "receiveAddress", sv_uint(t, x->receive_address));
	sv_put(m, "receiveFormat", sv_uint(t, x->receive_format));
	sv_put(m, "receiveMux", sv_uint(t, x->receive_mux));
	sv_put(m, "send", sv_uint(t, x->send));
	sv_put(m, "sendWithPutAddress", sv_uint(t, x->send_with_put_address));
	sv_put(m, "sendWithPutFormat", sv_uint(t, x->send_with_put_format));
	sv_put(m, "sendWithPutMux", sv_uint(t, x->send_with_put_mux));
	sv_put(m, "total", sv_uint(t, x->total));
	return m;
}

/*
 * One entry of "programs": the tagged union of the guide, keys in its
 * (alphabetical) order. Structured programs have "children"; exchanges
 * their exchange index and memoryByInstruction (every exchange kind: the
 * model computes it for all three); Call the index of the function in
 * functionPrograms as "target". Tilescope adds "repeatCount" to Repeat,
 * "syncType" to Sync and "debugContext" when a context made the program.
 */
static sv_node *build_program(sv_tree *t, const tsi_lowered_program *lp, size_t index)
{
	sv_node *m = sv_map(t);
	bool structured = false, exchange = false;

	switch (lp->type) {
	case TSI_LP_SEQUENCE:
	case TSI_LP_REPEAT:
	case TSI_LP_REPEAT_WHILE_TRUE:
	case TSI_LP_REPEAT_WHILE_FALSE:
	case TSI_LP_IF:
	case TSI_LP_IF_ELSE:
	case TSI_LP_SWITCH:
		structured = true;
		break;
	case TSI_LP_DO_EXCHANGE:
	case TSI_LP_GLOBAL_EXCHANGE:
	case TSI_LP_STREAM_COPY:
		exchange = true;
		break;
	default:
		break;
	}
	if (lp->n_children && !lp->children) {
		sv_fail(t, TSF_ERR_INVALID, "profile: program %zu has %u children but no list",
		        index, lp->n_children);
		return NULL;
	}
	if (structured || lp->n_children)
		sv_put(m, "children", sv_nums(t, lp->children, lp->n_children, sizeof(uint32_t), SV_U32));
	if (lp->type == TSI_LP_ON_TILE_EXECUTE)
		sv_put(m, "computeSet", sv_int(t, lp->compute_set));
	if (lp->debug_context)
		sv_put(m, "debugContext", sv_uint(t, lp->debug_context));
	if (exchange) {
		sv_put(m, "exchange", sv_int(t, lp->exchange));
		sv_put(m, "memoryByInstruction", build_instructions(t, &lp->memory_by_instruction));
	}
	if (lp->name)
		sv_put(m, "name", sv_string(t, lp->name));
	if (lp->type == TSI_LP_REPEAT)
		sv_put(m, "repeatCount", sv_uint(t, lp->repeat_count));
	if (lp->type == TSI_LP_SYNC)
		sv_put(m, "syncType", sv_string(t, sync_type_name(lp->sync)));
	if (lp->type == TSI_LP_CALL)
		sv_put(m, "target", sv_int(t, lp->function));
	sv_put(m, "type", sv_string(t, vocab_name(TSF_VOCAB_PROGRAM_TYPE, (int)lp->type)));
	return m;
}

/* "memory"."byTile": the tsi_tile_memory fields, one array each. */
static sv_node *build_by_tile(sv_tree *t, const tsi_graph_profile *gp)
{
	static const struct {
		const char *key;
		size_t offset;
	} fields[] = {
		{"interleaved", offsetof(tsi_tile_memory, region[TSI_REGION_INTERLEAVED])},
		{"interleavedIncludingGaps",
		 offsetof(tsi_tile_memory, region_including_gaps[TSI_REGION_INTERLEAVED])},
		{"nonInterleaved", offsetof(tsi_tile_memory, region[TSI_REGION_NON_INTERLEAVED])},
		{"nonInterleavedIncludingGaps",
		 offsetof(tsi_tile_memory, region_including_gaps[TSI_REGION_NON_INTERLEAVED])},
		{"overflowed", offsetof(tsi_tile_memory, region[TSI_REGION_OVERFLOWED])},
		{"overflowedIncludingGaps",
		 offsetof(tsi_tile_memory, region_including_gaps[TSI_REGION_OVERFLOWED])},
		{"total", offsetof(tsi_tile_memory, total)},
		{"totalIncludingGaps", offsetof(tsi_tile_memory, total_including_gaps)},
	};
	size_t nt = gp->target.num_tiles;
	sv_node *m = sv_map(t);

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		sv_put(m, fields[f].key,
		       gp->by_tile ? sv_nums(t, (const char *)gp->by_tile + fields[f].offset, nt,
		                             sizeof(tsi_tile_memory), SV_U64)
		                   : sv_zeros(t, nt));
	return m;
}

/* "memory"."byCategory": every category of the guide, each region split
 * into nonOverlapped / overlapped, and "total" (the six cells summed). */
static sv_node *build_by_category(sv_tree *t, const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles;
	sv_node *m = sv_map(t);

	for (unsigned cat = 0; cat < TSI_MEM_CATEGORY_COUNT && !t->rc; cat++) {
		sv_node *c = sv_map(t);
		uint64_t *total = sv_alloc_array(t, nt, sizeof(*total));

		for (unsigned r = 0; r < TSI_REGION_COUNT; r++) {
			sv_node *region = sv_map(t);

			for (unsigned ov = 0; ov < 2; ov++) {
				size_t row = ((size_t)cat * TSI_REGION_COUNT + r) * 2 + ov;
				const uint64_t *cells = gp->by_category ? gp->by_category + row * nt : NULL;

				for (size_t tile = 0; cells && total && tile < nt; tile++)
					total[tile] += cells[tile];
				sv_put(region, ov ? "overlapped" : "nonOverlapped",
				       cells ? sv_nums(t, cells, nt, sizeof(uint64_t), SV_U64) : sv_zeros(t, nt));
			}
			sv_put(c, vocab_name(TSF_VOCAB_REGION, (int)r), region);
		}
		sv_put(c, "total", total ? sv_nums(t, total, nt, sizeof(uint64_t), SV_U64) : NULL);
		sv_put(m, vocab_name(TSF_VOCAB_MEM_CATEGORY, (int)cat), c);
	}
	return m;
}

/* "byComputeSet" / "byVertexType": seven arrays indexed by set (or
 * type) then tile. A NULL `vm` (no breakdown) gives zeros. */
static sv_node *build_vertex_memory(sv_tree *t, const tsi_vertex_memory *vm, size_t n, size_t nt)
{
	static const struct {
		const char *key;
		size_t offset;
	} fields[] = {
		{"codeBytes", offsetof(tsi_vertex_memory, code_bytes)},
		{"copyPtrBytes", offsetof(tsi_vertex_memory, copy_ptr_bytes)},
		{"descriptorBytes", offsetof(tsi_vertex_memory, descriptor_bytes)},
		{"edgePtrBytes", offsetof(tsi_vertex_memory, edge_ptr_bytes)},
		{"paddingBytes", offsetof(tsi_vertex_memory, padding_bytes)},
		{"vertexDataBytes", offsetof(tsi_vertex_memory, vertex_data_bytes)},
		{"totalBytes", offsetof(tsi_vertex_memory, total_bytes)},
	};
	sv_node *m = sv_map(t);

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]) && !t->rc; f++) {
		sv_node *rows = sv_array(t);

		for (size_t i = 0; i < n && !t->rc; i++) {
			const tsi_tile_values *tv =
			    vm ? (const void *)((const char *)&vm[i] + fields[f].offset) : NULL;

			sv_push(rows, tv ? sv_tiles(t, tv, nt) : sv_zeros(t, nt));
		}
		sv_put(m, fields[f].key, rows);
	}
	return m;
}

/* A change of one tile's live bytes at a liveness step. */
typedef struct live_event {
	uint32_t tile;
	uint64_t step;
	int64_t delta;
} live_event;

/* Order of the sweep: by tile, then step, an interval's end before
 * another's start at the same step (an interval ends after its last
 * step). */
static int cmp_live_event(const void *a, const void *b)
{
	const live_event *x = a, *y = b;

	if (x->tile != y->tile)
		return x->tile < y->tile ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
}

/*
 * Per tile, the peak over the liveness steps of the bytes of the
 * not-always-live variables live at once (each live from live_from to
 * live_to inclusive; live nowhere: live_from = UINT32_MAX) into
 * max_by_tile[num_tiles]: the guide's notAlwaysLive.maxBytesByTile, the
 * same sweep the memory model sizes each tile's overlap pool with.
 */
static void live_peaks(sv_tree *t, const tsi_graph_profile *gp, uint64_t *max_by_tile)
{
	size_t n_events = 0, k = 0;
	live_event *events = NULL;

	for (size_t v = 0; v < gp->n_variables; v++) {
		const tsi_variable_profile *var = &gp->variables[v];

		if (!var->always_live && var->live_from != UINT32_MAX &&
		    var->live_from <= var->live_to) {
			if (var->bytes_by_tile.n > (SIZE_MAX / sizeof(*events)) / 2 - n_events)
				goto nomem;
			n_events += 2 * var->bytes_by_tile.n;
		}
	}
	if (!n_events)
		return;
	events = malloc(n_events * sizeof(*events));
	if (!events)
		goto nomem;
	for (size_t v = 0; v < gp->n_variables; v++) {
		const tsi_variable_profile *var = &gp->variables[v];
		const tsi_tile_values *tv = &var->bytes_by_tile;

		if (var->always_live || var->live_from == UINT32_MAX || var->live_from > var->live_to)
			continue;
		for (size_t i = 0; i < tv->n; i++) {
			events[k++] = (live_event){tv->tiles[i], var->live_from, (int64_t)tv->values[i]};
			events[k++] = (live_event){tv->tiles[i], (uint64_t)var->live_to + 1,
			                           -(int64_t)tv->values[i]};
		}
	}
	qsort(events, n_events, sizeof(*events), cmp_live_event);
	for (size_t i = 0; i < n_events;) {
		uint32_t tile = events[i].tile;
		int64_t live = 0, peak = 0;

		for (; i < n_events && events[i].tile == tile; i++) {
			live += events[i].delta;
			if (live > peak)
				peak = live;
		}
		max_by_tile[tile] = (uint64_t)peak; /* tile < nt: checked by the caller */
	}
	free(events);
	return;
nomem:
	sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
}

/*
 * "memory"."liveness": always-live bytes (in all and by tile) and the
 * variables that are always live; not-always-live bytes at each liveness
 * step, their peak by tile and the variables concerned; and the liveness
 * steps' call-stack tree (program, parent step, depth). Variable indexes
 * are into the top-level "variables".
 */
static sv_node *build_liveness(sv_tree *t, const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles, nv = gp->n_variables, n_always = 0, n_other = 0;
	uint64_t *always = sv_alloc_array(t, nt, sizeof(*always));
	uint64_t *peak = sv_alloc_array(t, nt, sizeof(*peak));
	uint64_t *always_vars = sv_alloc_array(t, nv, sizeof(*always_vars));
	uint64_t *other_vars = sv_alloc_array(t, nv, sizeof(*other_vars));
	sv_node *m = sv_map(t), *al = sv_map(t), *nal = sv_map(t), *steps = sv_map(t);
	const tsi_liveness_step *ls = gp->liveness;
	size_t n_steps = gp->n_liveness;

	if (t->rc)
		return NULL;
	for (size_t v = 0; v < nv; v++) {
		const tsi_variable_profile *var = &gp->variables[v];
		const tsi_tile_values *tv = &var->bytes_by_tile;

		if (tv->n && (!tv->tiles || !tv->values)) {
			sv_fail(t, TSF_ERR_INVALID, "profile: variable %zu has no tile list", v);
			return NULL;
		}
		for (size_t i = 0; i < tv->n; i++) {
			if (tv->tiles[i] >= nt) {
				sv_fail(t, TSF_ERR_INVALID,
				        "profile: variable %zu is on tile %u of %zu", v, tv->tiles[i], nt);
				return NULL;
			}
			if (var->always_live)
				always[tv->tiles[i]] += tv->values[i];
		}
		if (var->always_live)
			always_vars[n_always++] = v;
		else
			other_vars[n_other++] = v;
	}
	live_peaks(t, gp, peak);

	sv_put(al, "bytes", sv_uint(t, gp->always_live_bytes));
	sv_put(al, "bytesByTile", sv_nums(t, always, nt, sizeof(uint64_t), SV_U64));
	sv_put(al, "variables", sv_nums(t, always_vars, n_always, sizeof(uint64_t), SV_U64));
	sv_put(m, "alwaysLive", al);
	sv_put(nal, "bytesByStep", SV_FIELD(t, ls, n_steps, not_always_live_bytes, SV_U64));
	sv_put(nal, "maxBytesByTile", sv_nums(t, peak, nt, sizeof(uint64_t), SV_U64));
	sv_put(nal, "variables", sv_nums(t, other_vars, n_other, sizeof(uint64_t), SV_U64));
	sv_put(m, "notAlwaysLive", nal);
	sv_put(steps, "program", SV_FIELD(t, ls, n_steps, program, SV_U32));
	sv_put(steps, "parent", SV_FIELD(t, ls, n_steps, parent, SV_I32));
	sv_put(steps, "depth", SV_FIELD(t, ls, n_steps, depth, SV_U32));
	sv_put(m, "steps", steps);
	return m;
}

/* "memory": byTile, byCategory, byComputeSet, byVertexType, liveness;
 * plus the out-of-memory tiles. */
static sv_node *build_memory(sv_tree *t, const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles;
	sv_node *m = sv_map(t);

	sv_put(m, "byTile", build_by_tile(t, gp));
	sv_put(m, "byCategory", build_by_category(t, gp));
	sv_put(m, "byComputeSet", build_vertex_memory(t, gp->by_compute_set, gp->n_compute_sets, nt));
	sv_put(m, "byVertexType", build_vertex_memory(t, gp->by_vertex_type, gp->n_vertex_types, nt));
	sv_put(m, "liveness", build_liveness(t, gp));
	sv_put(m, "outOfMemoryTiles",
	       sv_nums(t, gp->oom_tiles, gp->n_oom_tiles, sizeof(uint32_t), SV_U32));
	return m;
}

/* Tilescope's "variables": every variable of the graph profile (user
 * variables and constants, exchange buffers, always-live aggregates)
 * with its live interval (null when always live or live nowhere) and
 * its bytes on the tiles it is on (sparse: "tiles" and "tileBytes"). */
static sv_node *build_variables(sv_tree *t, const tsi_graph_profile *gp)
{
	sv_node *list = sv_array(t);

	for (size_t v = 0; v < gp->n_variables && !t->rc; v++) {
		const tsi_variable_profile *var = &gp->variables[v];
		bool live = !var->always_live && var->live_from != UINT32_MAX;
		sv_node *m = sv_map(t);

		sv_put(m, "name", sv_string(t, var->name));
		sv_put(m, "category", sv_string(t, vocab_name(TSF_VOCAB_MEM_CATEGORY, (int)var->category)));
		sv_put(m, "type", sv_string(t, vocab_name(TSF_VOCAB_DATA_TYPE, (int)var->type)));
		sv_put(m, "bytes", sv_uint(t, var->bytes));
		sv_put(m, "shape", sv_nums(t, var->shape, var->rank, sizeof(size_t), SV_SIZE));
		sv_put(m, "alwaysLive", sv_bool(t, var->always_live));
		sv_put(m, "liveFrom", live ? sv_uint(t, var->live_from) : sv_null(t));
		sv_put(m, "liveTo", live ? sv_uint(t, var->live_to) : sv_null(t));
		sv_put(m, "debugContext", sv_uint(t, var->debug_context));
		sv_put(m, "tiles", sv_nums(t, var->bytes_by_tile.tiles, var->bytes_by_tile.n,
		                           sizeof(uint32_t), SV_U32));
		sv_put(m, "tileBytes", sv_nums(t, var->bytes_by_tile.values, var->bytes_by_tile.n,
		                               sizeof(uint64_t), SV_U64));
		sv_push(list, m);
	}
	return list;
}

/* Tilescope's "debugContexts", in id order (id i is entry i - 1). */
static sv_node *build_debug_contexts(sv_tree *t, const tsi_graph_profile *gp)
{
	sv_node *list = sv_array(t);

	for (size_t i = 0; i < gp->n_debug_contexts && !t->rc; i++) {
		const tsi_debug_context_profile *dc = &gp->debug_contexts[i];
		sv_node *m = sv_map(t);

		sv_put(m, "id", sv_uint(t, dc->id));
		sv_put(m, "parent", sv_uint(t, dc->parent));
		sv_put(m, "name", sv_string(t, dc->name));
		sv_put(m, "layer", sv_string(t, dc->layer));
		sv_put(m, "api", sv_string(t, dc->api));
		sv_push(list, m);
	}
	return list;
}

/* Fails unless every list the profile counts is there. */
static void check_lists(sv_tree *t, const tsi_graph_profile *gp)
{
	const struct {
		const void *p;
		size_t n;
		const char *what;
	} lists[] = {
		{gp->programs, gp->n_programs, "programs"},
		{gp->control_programs, gp->n_control_programs, "control programs"},
		{gp->function_programs, gp->n_function_programs, "function programs"},
		{gp->vertex_types, gp->n_vertex_types, "vertex types"},
		{gp->compute_sets, gp->n_compute_sets, "compute sets"},
		{gp->variables, gp->n_variables, "variables"},
		{gp->liveness, gp->n_liveness, "liveness steps"},
		{gp->debug_contexts, gp->n_debug_contexts, "debug contexts"},
		{gp->oom_tiles, gp->n_oom_tiles, "out-of-memory tiles"},
	};

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (lists[i].n && !lists[i].p)
			sv_fail(t, TSF_ERR_INVALID, "profile: %zu %s but no list", lists[i].n,
			        lists[i].what);
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		if (gp->n_exchanges[k] && !gp->exchanges[k])
			sv_fail(t, TSF_ERR_INVALID, "profile: %zu exchanges of kind %d but no list",
			        gp->n_exchanges[k], k);
}

/* The whole graph profile, top-level keys in the guide's order, then
 * Tilescope's "variables" and "debugContexts". */
static sv_node *build_graph(sv_tree *t, const tsi_graph_profile *gp)
{
	sv_node *root = sv_map(t), *g = sv_map(t), *programs = sv_array(t);

	check_lists(t, gp);
	if (t->rc)
		return NULL;
	sv_put(root, "target", build_target(t, gp));
	/* The model keeps no compiler metrics: an empty map<string, double>. */
	sv_put(root, "optimizationInfo", sv_map(t));
	sv_put(g, "numComputeSets", sv_uint(t, gp->num_compute_sets));
	sv_put(g, "numEdges", sv_uint(t, gp->num_edges));
	sv_put(g, "numVars", sv_uint(t, gp->num_vars));
	sv_put(g, "numVertices", sv_uint(t, gp->num_vertices));
	sv_put(root, "graph", g);
	sv_put(root, "vertexTypes", build_vertex_types(t, gp));
	sv_put(root, "computeSets", build_compute_sets(t, gp));
	sv_put(root, "exchanges", build_exchanges(t, gp, TSI_EXCHANGE_INTERNAL));
	sv_put(root, "externalExchanges", build_exchanges(t, gp, TSI_EXCHANGE_EXTERNAL));
	sv_put(root, "hostExchanges", build_exchanges(t, gp, TSI_EXCHANGE_HOST));
	for (size_t i = 0; i < gp->n_programs && !t->rc; i++)
		sv_push(programs, build_program(t, &gp->programs[i], i));
	sv_put(root, "programs", programs);
	sv_put(root, "controlPrograms",
	       sv_nums(t, gp->control_programs, gp->n_control_programs, sizeof(uint32_t), SV_U32));
	sv_put(root, "functionPrograms",
	       sv_nums(t, gp->function_programs, gp->n_function_programs, sizeof(uint32_t), SV_U32));
	sv_put(root, "memory", build_memory(t, gp));
	sv_put(root, "variables", build_variables(t, gp));
	sv_put(root, "debugContexts", build_debug_contexts(t, gp));
	return root;
}

/* --- The execution profile ----------------------------------------------------------- */

/* Which compute sets and IPU-to-IPU exchanges the runs executed, and the
 * cycles of each compute set's last execution. */
typedef struct exec_facts {
	uint8_t *cs_ran;     /* n_compute_sets */
	uint64_t *cs_cycles; /* n_compute_sets */
	uint8_t *ext_ran;    /* n_exchanges[EXTERNAL] */
} exec_facts;

/*
 * One entry of "simulation"."steps", with the fields the guide gives its
 * type. cyclesFrom / cyclesTo are on the axis of all runs (`offset`: the
 * cycles of the runs before). A Sync step also keeps the program it syncs
 * for and its cycles, which the guide's Sync entry does not show, so that
 * the steps account for the whole time.
 */
static sv_node *build_step(sv_tree *t, const tsi_graph_profile *gp, const tsi_step *st,
                           uint64_t offset, exec_facts *facts)
{
	sv_node *m = sv_map(t);
	bool exchange = false;

	if ((unsigned)st->type >= TSI_STEP_TYPE_COUNT || st->program >= gp->n_programs) {
		sv_fail(t, TSF_ERR_INVALID, "profile: a step of type %d names program %u of %zu",
		        (int)st->type, st->program, gp->n_programs);
		return NULL;
	}
	sv_put(m, "type", sv_string(t, vocab_name(TSF_VOCAB_STEP_TYPE, (int)st->type)));
	if (st->type == TSI_STEP_SYNC) {
		sv_put(m, "syncType", sv_string(t, sync_type_name(st->sync_type)));
		sv_put(m, "program", sv_uint(t, st->program));
		sv_put(m, "cycles", sv_uint(t, st->cycles));
		sv_put(m, "cyclesFrom", sv_uint(t, st->cycles_from + offset));
		sv_put(m, "cyclesTo", sv_uint(t, st->cycles_to + offset));
		return m;
	}
	sv_put(m, "program", sv_uint(t, st->program));
	if (gp->programs[st->program].name)
		sv_put(m, "name", sv_string(t, gp->programs[st->program].name));
	sv_put(m, "tileBalance", sv_double(t, st->tile_balance));
	sv_put(m, "activeTiles", sv_uint(t, st->active_tiles));
	sv_put(m, "activeTileBalance", sv_double(t, st->active_tile_balance));
	sv_put(m, "cycles", sv_uint(t, st->cycles));
	sv_put(m, "cyclesFrom", sv_uint(t, st->cycles_from + offset));
	sv_put(m, "cyclesTo", sv_uint(t, st->cycles_to + offset));
	switch (st->type) {
	case TSI_STEP_ON_TILE_EXECUTE:
		if (st->compute_set < 0 || (size_t)st->compute_set >= gp->n_compute_sets) {
			sv_fail(t, TSF_ERR_INVALID, "profile: a step names compute set %d of %zu",
			        (int)st->compute_set, gp->n_compute_sets);
			return NULL;
		}
		facts->cs_ran[st->compute_set] = 1;
		facts->cs_cycles[st->compute_set] = st->cycles;
		sv_put(m, "threadBalance", sv_double(t, st->thread_balance));
		sv_put(m, "computeSet", sv_int(t, st->compute_set));
		break;
	case TSI_STEP_DO_EXCHANGE:
		sv_put(m, "exchange", sv_int(t, st->exchange));
		exchange = true;
		break;
	case TSI_STEP_GLOBAL_EXCHANGE:
		if (st->exchange >= 0 && (size_t)st->exchange < gp->n_exchanges[TSI_EXCHANGE_EXTERNAL])
			facts->ext_ran[st->exchange] = 1;
		sv_put(m, "externalExchange", sv_int(t, st->exchange));
		exchange = true;
		break;
	case TSI_STEP_STREAM_COPY:
		sv_put(m, "hostExchange", sv_int(t, st->exchange));
		exchange = true;
		break;
	case TSI_STEP_COPY_SHARED_STRUCTURE:
		exchange = true;
		break;
	default:
		break;
	}
	if (exchange) {
		sv_put(m, "totalData", sv_uint(t, st->total_data));
		sv_put(m, "dataBalance", sv_double(t, st->data_balance));
	}
	if (st->type == TSI_STEP_ON_TILE_EXECUTE || st->type == TSI_STEP_DO_EXCHANGE ||
	    st->type == TSI_STEP_COPY_SHARED_STRUCTURE)
		sv_put(m, "cyclesOverlapped", sv_uint(t, st->cycles_overlapped));
	return m;
}

/*
 * The arrays of the profiler mode, as instrumentation would have recorded
 * them: a compute set's cycles on each tile (COMPUTE_SETS) or on its
 * longest tile (SINGLE_TILE_COMPUTE_SETS) at its last execution, an
 * IPU-to-IPU exchange's cycles by tile (EXTERNAL_EXCHANGES); zero for what
 * never ran. VERTICES: the model keeps no per-vertex records, so its three
 * arrays are empty.
 */
static void build_mode_arrays(sv_tree *t, sv_node *root, const tsi_graph_profile *gp,
                              const exec_facts *facts)
{
	size_t nt = gp->target.num_tiles, ncs = gp->n_compute_sets;
	size_t next = gp->n_exchanges[TSI_EXCHANGE_EXTERNAL];
	sv_node *rows;

	switch (gp->profiler_mode) {
	case TSI_PROFILER_COMPUTE_SETS:
		rows = sv_array(t);
		for (size_t i = 0; i < ncs && !t->rc; i++)
			sv_push(rows, facts->cs_ran[i] ? sv_tiles(t, &gp->compute_sets[i].cycles_by_tile, nt)
			                               : sv_zeros(t, nt));
		sv_put(root, "computeSetCyclesByTile", rows);
		break;
	case TSI_PROFILER_SINGLE_TILE_COMPUTE_SETS:
		sv_put(root, "computeSetCycles",
		       sv_nums(t, facts->cs_cycles, ncs, sizeof(uint64_t), SV_U64));
		break;
	case TSI_PROFILER_VERTICES:
		sv_put(root, "vertexCycles", sv_array(t));
		sv_put(root, "vertexComputeSet", sv_array(t));
		sv_put(root, "vertexType", sv_array(t));
		break;
	case TSI_PROFILER_EXTERNAL_EXCHANGES:
		rows = sv_array(t);
		for (size_t i = 0; i < next && !t->rc; i++)
			sv_push(rows, facts->ext_ran[i]
			                  ? sv_tiles(t, &gp->exchanges[TSI_EXCHANGE_EXTERNAL][i].cycles, nt)
			                  : sv_zeros(t, nt));
		sv_put(root, "externalExchangeCycles", rows);
		break;
	default:
		break;
	}
}

/* "tileCycles" summed over the runs. */
static sv_node *build_tile_cycles(sv_tree *t, const tsi_tile_cycles *c)
{
	sv_node *m = sv_map(t);

	sv_put(m, "activeCompute", sv_uint(t, c->active_compute));
	sv_put(m, "compute", sv_uint(t, c->compute));
	sv_put(m, "copySharedStructure", sv_uint(t, c->copy_shared_structure));
	sv_put(m, "doExchange", sv_uint(t, c->do_exchange));
	sv_put(m, "globalExchange", sv_uint(t, c->global_exchange));
	sv_put(m, "streamCopy", sv_uint(t, c->stream_copy));
	sv_put(m, "sync", sv_uint(t, c->sync));
	return m;
}

/*
 * The execution profile of runs[0..n_runs): profilerMode, the mode's
 * arrays, programTrace (the runs' traces joined), simulation (cycles and
 * tileCycles summed, the steps on one cycle axis) and Tilescope's "runs":
 * per run its engine program, where its trace and steps start in the
 * joined arrays and how many, where it starts on the cycle axis and its
 * cycles.
 */
static sv_node *build_execution(sv_tree *t, const tsi_graph_profile *gp,
                                const tsi_run_profile *const *runs, size_t n_runs)
{
	sv_node *root = sv_map(t), *sim = sv_map(t), *steps = sv_array(t), *run_list = sv_array(t);
	size_t n_trace = 0, at = 0, n_steps = 0;
	uint64_t offset = 0;
	tsi_tile_cycles sum = {0};
	uint32_t *trace;
	exec_facts facts;

	check_lists(t, gp);
	if (n_runs && !runs)
		sv_fail(t, TSF_ERR_INVALID, "execution profile: %zu runs but no list", n_runs);
	for (size_t r = 0; r < n_runs && !t->rc; r++) {
		const tsi_run_profile *run = runs[r];

		if (!run || (run->n_trace && !run->program_trace) || (run->n_steps && !run->steps))
			sv_fail(t, TSF_ERR_INVALID, "execution profile: run %zu is incomplete", r);
		else if (run->n_trace > SIZE_MAX - n_trace)
			sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
		else
			n_trace += run->n_trace;
	}
	trace = sv_alloc_array(t, n_trace, sizeof(*trace));
	facts.cs_ran = sv_alloc_array(t, gp->n_compute_sets, 1);
	facts.cs_cycles = sv_alloc_array(t, gp->n_compute_sets, sizeof(uint64_t));
	facts.ext_ran = sv_alloc_array(t, gp->n_exchanges[TSI_EXCHANGE_EXTERNAL], 1);
	if (t->rc)
		return NULL;

	for (size_t r = 0; r < n_runs && !t->rc; r++) {
		const tsi_run_profile *run = runs[r];
		sv_node *rm = sv_map(t);

		sv_put(rm, "program", sv_uint(t, run->program_index));
		sv_put(rm, "programTraceStart", sv_uint(t, at));
		sv_put(rm, "programTraceLength", sv_uint(t, run->n_trace));
		sv_put(rm, "stepsStart", sv_uint(t, n_steps));
		sv_put(rm, "stepsLength", sv_uint(t, run->n_steps));
		sv_put(rm, "cyclesFrom", sv_uint(t, offset));
		sv_put(rm, "cycles", sv_uint(t, run->cycles));
		sv_push(run_list, rm);
		if (run->n_trace)
			memcpy(trace + at, run->program_trace, run->n_trace * sizeof(*trace));
		at += run->n_trace;
		for (size_t s = 0; s < run->n_steps && !t->rc; s++)
			sv_push(steps, build_step(t, gp, &run->steps[s], offset, &facts));
		n_steps += run->n_steps;
		offset += run->cycles;
		sum.active_compute += run->tile_cycles.active_compute;
		sum.compute += run->tile_cycles.compute;
		sum.do_exchange += run->tile_cycles.do_exchange;
		sum.global_exchange += run->tile_cycles.global_exchange;
		sum.stream_copy += run->tile_cycles.stream_copy;
		sum.sync += run->tile_cycles.sync;
		sum.copy_shared_structure += run->tile_cycles.copy_shared_structure;
	}
	if (t->rc)
		return NULL;
	sv_put(root, "profilerMode", sv_string(t, vocab_name(TSF_VOCAB_PROFILER_MODE, (int)gp->profiler_mode)));
	build_mode_arrays(t, root, gp, &facts);
	sv_put(root, "programTrace", sv_nums(t, trace, n_trace, sizeof(uint32_t), SV_U32));
	sv_put(sim, "cycles", sv_uint(t, offset));
	sv_put(sim, "tileCycles", build_tile_cycles(t, &sum));
	sv_put(sim, "steps", steps);
	sv_put(root, "simulation", sim);
	sv_put(root, "runs", run_list);
	return root;
}

/* --- Public functions ------------------------------------------------------------------- */

/* Checks the arguments both entry points share and clears the outputs. */
static int check_args(void **out, size_t *out_len, const tsi_graph_profile *gp,
                      tsf_doc_format format, const sv_msg *msg)
{
	if (msg->text && msg->size)
		msg->text[0] = '\0';
	if (out)
		*out = NULL;
	if (out_len)
		*out_len = 0;
	if (!out || !out_len || !gp)
		return sv_error(msg, TSF_ERR_INVALID, "serialising a profile: NULL output or profile");
	if (format != TSF_DOC_JSON && format != TSF_DOC_CBOR)
		return sv_error(msg, TSF_ERR_INVALID, "serialising a profile: unknown format %d",
		                (int)format);
	return 0;
}

/*
 * Builds the graph profile's document (runs NULL) or the execution
 * profile's, and writes it to a malloc'd buffer (sink NULL) or to `sink`.
 */
static int serialise(void **out, size_t *out_len, FILE *sink, const tsi_graph_profile *gp,
                     const tsi_run_profile *const *runs, size_t n_runs, bool execution,
                     tsf_doc_format format, char *msg, size_t msg_size)
{
	sv_tree t = {NULL, 0, {msg, msg_size}};
	void *unused_out;
	size_t unused_len;
	const sv_node *root;
	int rc = sink ? check_args(&unused_out, &unused_len, gp, format, &t.msg)
	              : check_args(out, out_len, gp, format, &t.msg);

	if (rc)
		goto out;
	root = execution ? build_execution(&t, gp, runs, n_runs) : build_graph(&t, gp);
	rc = t.rc;
	if (rc)
		goto out;
	rc = sink ? sv_emit_to(sink, root, format, t.msg) : sv_emit(out, out_len, root, format, t.msg);
out:
	sv_tree_free(&t);
	return rc;
}

int tsf_graph_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                tsf_doc_format format, char *msg, size_t msg_size)
{
	return serialise(out, out_len, NULL, gp, NULL, 0, false, format, msg, msg_size);
}

int tsf_execution_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                    const tsi_run_profile *const *runs, size_t n_runs,
                                    tsf_doc_format format, char *msg, size_t msg_size)
{
	return serialise(out, out_len, NULL, gp, runs, n_runs, true, format, msg, msg_size);
}

int tsf_graph_profile_write(FILE *sink, const tsi_graph_profile *gp, tsf_doc_format format,
                            char *msg, size_t msg_size)
{
	if (!sink)
		return sv_error(&(sv_msg){msg, msg_size}, TSF_ERR_INVALID, "serialising: NULL stream");
	return serialise(NULL, NULL, sink, gp, NULL, 0, false, format, msg, msg_size);
}

int tsf_execution_profile_write(FILE *sink, const tsi_graph_profile *gp,
                                const tsi_run_profile *const *runs, size_t n_runs,
                                tsf_doc_format format, char *msg, size_t msg_size)
{
	if (!sink)
		return sv_error(&(sv_msg){msg, msg_size}, TSF_ERR_INVALID, "serialising: NULL stream");
	return serialise(NULL, NULL, sink, gp, runs, n_runs, true, format, msg, msg_size);
}
