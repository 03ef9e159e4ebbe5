/*
 * The value tree of the profile documents (serialise-private.h): maps,
 * arrays, numbers and strings, allocated from one arena of 64 KiB blocks
 * that is freed in one go when the document is written. The tree is the
 * one description of a document's shape: both emitters walk it, so the
 * JSON and the CBOR hold the same keys and values by construction.
 */
#include <tilescope/alloc.h>
#include "serialise-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A block of the tree's arena. */
typedef struct sv_block {
	struct sv_block *next;
	size_t used, cap; /* bytes of data[] */
	max_align_t data[];
} sv_block;

#define SV_BLOCK_BYTES ((size_t)64 * 1024)

/* Writes a failure's message; returns `code`. */
static int sv_msg_set(const sv_msg *m, int code, const char *fmt, va_list ap)
{
	if (m->text && m->size)
		vsnprintf(m->text, m->size, fmt, ap);
	return code;
}

int sv_error(const sv_msg *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sv_msg_set(m, code, fmt, ap);
	va_end(ap);
	return code;
}

/* Records the first failure of a build (later ones are consequences). */
void sv_fail(sv_tree *t, int code, const char *fmt, ...)
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
		sv_block *nb = tsb_malloc(sizeof(*nb) + cap);

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
void *sv_alloc_array(sv_tree *t, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
		return NULL;
	}
	return sv_alloc(t, n * size);
}

/* Frees the arena, and with it every node and computed array. */
void sv_tree_free(sv_tree *t)
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
sv_node *sv_null(sv_tree *t)
{
	return sv_new(t, SV_NULL);
}

/* true / false. */
sv_node *sv_bool(sv_tree *t, bool v)
{
	sv_node *n = sv_new(t, SV_BOOL);

	if (n)
		n->b = v;
	return n;
}

/* An unsigned integer, exact up to 2^64 - 1. */
sv_node *sv_uint(sv_tree *t, uint64_t v)
{
	sv_node *n = sv_new(t, SV_UINT);

	if (n)
		n->u = v;
	return n;
}

/* A signed integer (indexes that may be -1). */
sv_node *sv_int(sv_tree *t, int64_t v)
{
	sv_node *n = sv_new(t, SV_INT);

	if (n)
		n->i = v;
	return n;
}

/* A double; NaN and infinities have no JSON form and become null. */
sv_node *sv_double(sv_tree *t, double v)
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
sv_node *sv_string_n(sv_tree *t, const char *s, size_t len)
{
	sv_node *n = sv_new(t, SV_STRING);

	if (n) {
		n->str.p = s;
		n->str.len = len;
	}
	return n;
}

/* A borrowed NUL-terminated string; NULL becomes null. */
sv_node *sv_string(sv_tree *t, const char *s)
{
	return s ? sv_string_n(t, s, strlen(s)) : sv_null(t);
}

/* An empty array, filled with sv_push. */
sv_node *sv_array(sv_tree *t)
{
	return sv_new(t, SV_ARRAY);
}

/* An empty map, filled with sv_put (keys stay in insertion order). */
sv_node *sv_map(sv_tree *t)
{
	return sv_new(t, SV_MAP);
}

/* `n` numbers of `type` at base, base + stride, ... (borrowed). */
sv_node *sv_nums(sv_tree *t, const void *base, size_t n, size_t stride, sv_num_type type)
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
sv_node *sv_dense(sv_tree *t, const uint32_t *index, const uint64_t *value, size_t n,
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
sv_node *sv_zeros(sv_tree *t, size_t len)
{
	return sv_dense(t, NULL, NULL, 0, len);
}

/* Sparse tile values as a dense per-tile array of num_tiles entries. */
sv_node *sv_tiles(sv_tree *t, const tsi_tile_values *tv, size_t num_tiles)
{
	return sv_dense(t, tv->tiles, tv->values, tv->n, num_tiles);
}

/* Appends `item` to the array or map `list`. A NULL item or list means an
 * earlier failure that the tree already records. */
void sv_push(sv_node *list, sv_node *item)
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
void sv_put(sv_node *map, const char *key, sv_node *item)
{
	if (!map || !item)
		return;
	item->key = key;
	sv_push(map, item);
}
