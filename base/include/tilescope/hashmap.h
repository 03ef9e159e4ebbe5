/*
 * One hash map (libtilescope-base, prefix tsb_): string or 64-bit integer
 * keys to pointer-sized values, open addressing with linear probing on a
 * power-of-two table kept at most 3/4 full (deleted slots included), so
 * that the writers' name interning, the tracer's string table, the
 * runtime's codelet lookup and reportlib's name maps stop each carrying
 * their own.
 *
 * Keys of a string map are borrowed unless TSB_HASHMAP_COPY_KEYS: the
 * caller keeps each key alive, unchanged, while it is in the map (an
 * interning caller passes the copy it keeps anyway). A map is not
 * thread-safe; lock around it.
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

typedef struct tsb_hashmap tsb_hashmap;

/* Flags of tsb_hashmap_new, or'ed. */
typedef enum tsb_hashmap_flags {
	TSB_HASHMAP_STRING_KEYS = 0,     /* NUL-terminated keys, compared by strcmp */
	TSB_HASHMAP_U64_KEYS = 1 << 0,   /* uint64_t keys */
	TSB_HASHMAP_COPY_KEYS = 1 << 1,  /* (string keys) the map keeps its own copies */
} tsb_hashmap_flags;

/* An empty map (no table until the first put); NULL when out of memory.
 * Free with tsb_hashmap_free. */
TSB_API tsb_hashmap *tsb_hashmap_new(unsigned flags);
/* Frees the map (and its key copies); NULL is fine. Values are the
 * caller's. */
TSB_API void tsb_hashmap_free(tsb_hashmap *m);
/* Keys in the map. */
TSB_API size_t tsb_hashmap_count(const tsb_hashmap *m);
/* Bytes the map holds (its table and key copies), for a caller that
 * charges its memory to a budget. */
TSB_API size_t tsb_hashmap_get_memory(const tsb_hashmap *m);
/* Makes room for `n` keys in all, so that as many puts do not rehash.
 * 0, or -1 when out of memory (the map is unchanged). */
TSB_API int tsb_hashmap_reserve(tsb_hashmap *m, size_t n);

/* Sets `key`'s value (adding the key, or replacing its value). 0, or -1
 * when out of memory (the map is unchanged) or the key is of the other
 * kind or NULL. */
TSB_API int tsb_hashmap_put_str(tsb_hashmap *m, const char *key, uintptr_t value);
/* Whether `key` is in the map; its value in *value when not NULL. */
TSB_API bool tsb_hashmap_lookup_str(const tsb_hashmap *m, const char *key, uintptr_t *value);
/* Takes `key` out; whether it was there. */
TSB_API bool tsb_hashmap_remove_str(tsb_hashmap *m, const char *key);

TSB_API int tsb_hashmap_put_u64(tsb_hashmap *m, uint64_t key, uintptr_t value);
TSB_API bool tsb_hashmap_lookup_u64(const tsb_hashmap *m, uint64_t key, uintptr_t *value);
TSB_API bool tsb_hashmap_remove_u64(tsb_hashmap *m, uint64_t key);

/*
 * Walks the map in no particular order: start with *iter = 0; each call
 * that returns true gives one entry (the key in *str_key or *u64_key by
 * the map's kind, the value in *value; each out-parameter may be NULL).
 * The map must not change during a walk.
 */
TSB_API bool tsb_hashmap_next(const tsb_hashmap *m, size_t *iter, const char **str_key,
                              uint64_t *u64_key, uintptr_t *value);

/* 64-bit FNV-1a of a NUL-terminated string, and of n bytes: the hash of
 * the map's string keys, for a caller that hashes by the same rule. */
TSB_API uint64_t tsb_hash_str(const char *s);
TSB_API uint64_t tsb_hash_bytes(const void *p, size_t n);

TSB_END_DECLS
