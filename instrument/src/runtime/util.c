/*
 * Memory helpers of the runtime: the graph arena (many small objects that
 * live exactly as long as their graph) and a growable pointer array.
 */
#include "../ipu-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Blocks are at least this big; a larger request gets a block of its own. */
#define ARENA_BLOCK_BYTES (256u * 1024u)

struct tsi_arena_block {
	tsi_arena_block *next;
	size_t size; /* usable bytes after the header */
	size_t used;
	_Alignas(16) unsigned char data[];
};

/*
 * Returns `bytes` of zeroed memory aligned to `align` (8 or 16) from the
 * arena, or NULL when the host is out of memory. The memory stays valid
 * until tsi_arena_clear().
 */
static void *arena_take(tsi_arena *arena, size_t bytes, size_t align)
{
	tsi_arena_block *b = arena->head;
	size_t need = (bytes + align - 1) & ~(align - 1);
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;

	if (need < bytes)
		return NULL; /* overflow */
	if (!b || at > b->size || b->size - at < need) {
		size_t size = need > ARENA_BLOCK_BYTES ? need : ARENA_BLOCK_BYTES;
		tsi_arena_block *nb = malloc(sizeof(*nb) + size);

		if (!nb)
			return NULL;
		nb->size = size;
		nb->used = 0;
		/* A big one-off block goes behind the current one so the current
		 * block's free space is not wasted. */
		if (b && size > ARENA_BLOCK_BYTES) {
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			arena->head = nb;
		}
		b = nb;
		at = 0;
	}
	void *p = b->data + at;
	b->used = at + need;
	arena->used_bytes += need;
	memset(p, 0, need);
	return p;
}

/* Zeroed memory aligned to 16 bytes (see arena_take). */
void *tsi_arena_alloc(tsi_arena *arena, size_t bytes)
{
	return arena_take(arena, bytes, 16);
}

/* Zeroed memory aligned to 8 bytes, for the many small records (tensor
 * views, field connections) whose sizes are multiples of 8: rounding each
 * to 16 would waste a tenth of a large model's graph. */
void *tsi_arena_alloc8(tsi_arena *arena, size_t bytes)
{
	return arena_take(arena, bytes, 8);
}

/* Copies a NUL-terminated string into the arena; NULL stays NULL. */
char *tsi_arena_strdup(tsi_arena *arena, const char *s)
{
	size_t n;
	char *p;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	p = tsi_arena_alloc(arena, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* printf into the arena. */
char *tsi_arena_printf(tsi_arena *arena, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = tsi_arena_alloc(arena, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* Releases every block of the arena. */
void tsi_arena_clear(tsi_arena *arena)
{
	tsi_arena_block *b = arena->head;

	while (b) {
		tsi_arena_block *next = b->next;
		free(b);
		b = next;
	}
	arena->head = NULL;
	arena->used_bytes = 0;
}

/* Appends `item`, doubling the capacity when full. */
int tsi_vec_push(tsi_vec *vec, void *item)
{
	if (vec->len == vec->cap) {
		size_t cap = vec->cap ? vec->cap * 2 : 8;
		void **items = realloc(vec->items, cap * sizeof(*items));

		if (!items)
			return TSI_ERR_NO_MEMORY;
		vec->items = items;
		vec->cap = cap;
	}
	vec->items[vec->len++] = item;
	return TSI_OK;
}

/* Frees the array (not the items). */
void tsi_vec_clear(tsi_vec *vec)
{
	free(vec->items);
	vec->items = NULL;
	vec->len = vec->cap = 0;
}
