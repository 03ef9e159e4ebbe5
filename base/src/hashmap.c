/*
 * The hash map (tilescope/hashmap.h). Each slot keeps its key's full hash,
 * so that a probe compares strings only on a hash match and a rehash
 * never hashes a key again. Deleted slots are tombstones, counted against
 * the load so that a map that keeps adding and removing still has empty
 * slots to end its probes; a rehash (at the same size when most of the
 * load is tombstones) clears them.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/alloc.h"
#include "tilescope/hashmap.h"

#include <stdlib.h>
#include <string.h>

enum { EMPTY = 0, FULL = 1, DELETED = 2 };

typedef struct slot {
	uint64_t hash;
	union {
		const char *s;
		uint64_t u;
	} key;
	uintptr_t value;
	unsigned char state;
} slot;

struct tsb_hashmap {
	unsigned flags;
	slot *slots;
	size_t cap;       /* a power of two, or 0 before the first put */
	size_t count;     /* FULL slots */
	size_t deleted;   /* DELETED slots */
	size_t key_bytes; /* bytes of the key copies (TSB_HASHMAP_COPY_KEYS) */
};

TSB_API uint64_t tsb_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3u;
	return h;
}

TSB_API uint64_t tsb_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

/* An integer key's hash: the finaliser of SplitMix64, so that keys that
 * differ in their high bits only (pointers, ids times a stride) spread
 * over the low bits that pick the slot. */
static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9u;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

static bool str_keys(const tsb_hashmap *m)
{
	return !(m->flags & TSB_HASHMAP_U64_KEYS);
}

TSB_API tsb_hashmap *tsb_hashmap_new(unsigned flags)
{
	tsb_hashmap *m = tsb_calloc(1, sizeof(*m));

	if (m)
		m->flags = flags;
	return m;
}

TSB_API void tsb_hashmap_free(tsb_hashmap *m)
{
	if (!m)
		return;
	if (str_keys(m) && (m->flags & TSB_HASHMAP_COPY_KEYS))
		for (size_t i = 0; i < m->cap; i++)
			if (m->slots[i].state == FULL)
				tsb_free((char *)m->slots[i].key.s);
	tsb_free(m->slots);
	tsb_free(m);
}

TSB_API size_t tsb_hashmap_count(const tsb_hashmap *m)
{
	return m ? m->count : 0;
}

TSB_API size_t tsb_hashmap_get_memory(const tsb_hashmap *m)
{
	return m ? sizeof(*m) + m->cap * sizeof(slot) + m->key_bytes : 0;
}

/* Whether slot `s` holds the key (hash `h`, string `sk` or integer `uk`).
 * A string map is always asked with a string (the callers refuse NULL),
 * an integer map with NULL: testing `sk` rather than the map's kind lets
 * the optimiser see that strcmp never gets NULL (-Wnonnull in release). */
static bool matches(const slot *s, uint64_t h, const char *sk, uint64_t uk)
{
	if (s->state != FULL || s->hash != h)
		return false;
	return sk ? strcmp(s->key.s, sk) == 0 : s->key.u == uk;
}

/* The slot holding the key, or NULL. */
static slot *find(const tsb_hashmap *m, uint64_t h, const char *sk, uint64_t uk)
{
	size_t mask, i;

	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = (size_t)h & mask; m->slots[i].state != EMPTY; i = (i + 1) & mask)
		if (matches(&m->slots[i], h, sk, uk))
			return &m->slots[i];
	return NULL;
}

/* Moves every key into a table of `cap` slots (no tombstones after). */
static int rehash(tsb_hashmap *m, size_t cap)
{
	slot *slots = tsb_calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (m->slots[i].state != FULL)
			continue;
		for (j = (size_t)m->slots[i].hash & (cap - 1); slots[j].state != EMPTY;
		     j = (j + 1) & (cap - 1))
			;
		slots[j] = m->slots[i];
	}
	tsb_free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->deleted = 0;
	return 0;
}

/* The table size that holds `n` keys at most 3/4 full, or 0 when too large. */
static size_t size_for(size_t n)
{
	size_t cap = 16;

	while (cap / 4 * 3 < n) {
		if (cap > SIZE_MAX / 2 / sizeof(slot))
			return 0;
		cap *= 2;
	}
	return cap;
}

TSB_API int tsb_hashmap_reserve(tsb_hashmap *m, size_t n)
{
	size_t cap;

	if (!m)
		return -1;
	cap = size_for(n);
	if (!cap)
		return -1;
	if (cap <= m->cap && n + m->deleted <= m->cap / 4 * 3)
		return 0;
	return rehash(m, cap > m->cap ? cap : m->cap); /* drops the tombstones too */
}

/* Room for one more key: rehashes when FULL and DELETED slots would pass
 * 3/4 of the table, at twice the size unless tombstones are most of the
 * load. */
static int make_room(tsb_hashmap *m)
{
	size_t cap;

	if (m->cap && (m->count + m->deleted + 1) <= m->cap / 4 * 3)
		return 0;
	cap = size_for(m->count + 1);
	if (!cap)
		return -1;
	if (cap < m->cap)
		cap = m->cap;
	if (m->count + 1 > cap / 2 && cap == m->cap) {
		if (cap > SIZE_MAX / 2 / sizeof(slot))
			return -1;
		cap *= 2;
	}
	return rehash(m, cap);
}

/* Adds or replaces. */
static int put(tsb_hashmap *m, uint64_t h, const char *sk, uint64_t uk, uintptr_t value)
{
	slot *s = find(m, h, sk, uk);
	size_t mask, i;
	char *copy = NULL;

	if (s) {
		s->value = value;
		return 0;
	}
	if (sk && (m->flags & TSB_HASHMAP_COPY_KEYS)) {
		copy = tsb_strdup(sk);
		if (!copy)
			return -1;
		sk = copy;
	}
	if (make_room(m)) {
		tsb_free(copy);
		return -1;
	}
	mask = m->cap - 1;
	/* The first tombstone or empty slot of the probe: the key is absent. */
	for (i = (size_t)h & mask; m->slots[i].state == FULL; i = (i + 1) & mask)
		;
	if (m->slots[i].state == DELETED)
		m->deleted--;
	s = &m->slots[i];
	s->hash = h;
	if (sk)
		s->key.s = sk;
	else
		s->key.u = uk;
	s->value = value;
	s->state = FULL;
	m->count++;
	if (copy)
		m->key_bytes += strlen(copy) + 1;
	return 0;
}

/* Takes the key out, leaving a tombstone (or an empty slot when the next
 * slot is empty: no probe runs through it then). */
static bool remove_key(tsb_hashmap *m, uint64_t h, const char *sk, uint64_t uk)
{
	slot *s = find(m, h, sk, uk);
	size_t next;

	if (!s)
		return false;
	if (sk && (m->flags & TSB_HASHMAP_COPY_KEYS)) {
		m->key_bytes -= strlen(s->key.s) + 1;
		tsb_free((char *)s->key.s);
	}
	next = ((size_t)(s - m->slots) + 1) & (m->cap - 1);
	if (m->slots[next].state == EMPTY) {
		s->state = EMPTY;
	} else {
		s->state = DELETED;
		m->deleted++;
	}
	m->count--;
	return true;
}

TSB_API int tsb_hashmap_put_str(tsb_hashmap *m, const char *key, uintptr_t value)
{
	if (!m || !key || !str_keys(m))
		return -1;
	return put(m, tsb_hash_str(key), key, 0, value);
}

TSB_API bool tsb_hashmap_lookup_str(const tsb_hashmap *m, const char *key, uintptr_t *value)
{
	const slot *s;

	if (!m || !key || !str_keys(m))
		return false;
	s = find(m, tsb_hash_str(key), key, 0);
	if (s && value)
		*value = s->value;
	return s != NULL;
}

TSB_API bool tsb_hashmap_remove_str(tsb_hashmap *m, const char *key)
{
	if (!m || !key || !str_keys(m))
		return false;
	return remove_key(m, tsb_hash_str(key), key, 0);
}

TSB_API int tsb_hashmap_put_u64(tsb_hashmap *m, uint64_t key, uintptr_t value)
{
	if (!m || str_keys(m))
		return -1;
	return put(m, hash_u64(key), NULL, key, value);
}

TSB_API bool tsb_hashmap_lookup_u64(const tsb_hashmap *m, uint64_t key, uintptr_t *value)
{
	const slot *s;

	if (!m || str_keys(m))
		return false;
	s = find(m, hash_u64(key), NULL, key);
	if (s && value)
		*value = s->value;
	return s != NULL;
}

TSB_API bool tsb_hashmap_remove_u64(tsb_hashmap *m, uint64_t key)
{
	if (!m || str_keys(m))
		return false;
	return remove_key(m, hash_u64(key), NULL, key);
}

TSB_API bool tsb_hashmap_next(const tsb_hashmap *m, size_t *iter, const char **str_key,
                              uint64_t *u64_key, uintptr_t *value)
{
	if (!m || !iter)
		return false;
	for (; *iter < m->cap; (*iter)++) {
		const slot *s = &m->slots[*iter];

		if (s->state != FULL)
			continue;
		if (str_key)
			*str_key = str_keys(m) ? s->key.s : NULL;
		if (u64_key)
			*u64_key = str_keys(m) ? 0 : s->key.u;
		if (value)
			*value = s->value;
		(*iter)++;
		return true;
	}
	return false;
}
