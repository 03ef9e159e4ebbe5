/*
 * What the four parts of the profile documents share (serialise.h is
 * their public face): the value tree that the graph and execution
 * profiles are first built as (serialise-tree.c), the two emitters that
 * write a tree as JSON or CBOR (serialise-emit.c), and the two builders
 * (serialise-graph.c, serialise-execution.c) that serialise.c calls.
 *
 * The tree borrows the profile's arrays instead of copying them: a run
 * of numbers in memory is one SV_NUMS node and a sparse tsi_tile_values
 * one SV_DENSE node, so the tree grows with compute sets, programs,
 * steps and variables, never with tiles x compute sets. Its nodes live
 * in one arena freed at the end of the call. Errors are sticky in the
 * tree (the first one is kept, later constructors return NULL), so the
 * build code reads as the shape it produces; the result is checked once.
 *
 * Private to libtilescope-format (hidden symbols, not installed).
 */
#pragma once

#include "serialise.h"
#include "vocabulary.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* Where a failure's message goes: the caller's buffer (may be NULL). */
typedef struct sv_msg {
	char *text;
	size_t size;
} sv_msg;

/* The tree being built: its arena and the first error. */
typedef struct sv_tree {
	struct sv_block *blocks; /* the arena (serialise-tree.c) */
	int rc;
	sv_msg msg;
} sv_tree;

/* A field of every element of a struct array: `n` numbers from
 * &arr[0].field with the array's element size as stride. */
#define SV_FIELD(t, arr, n, field, type) \
	((n) ? sv_nums((t), (arr) ? (const void *)&(arr)[0].field : NULL, (n), sizeof((arr)[0]), (type)) \
	     : sv_array(t))

/* Writes a failure's message into `m` (when it has a buffer); returns `code`. */
int sv_error(const sv_msg *m, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Records the first failure of a build (later ones are consequences). */
void sv_fail(sv_tree *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An array of `n` zeroed elements of `size` bytes from the tree's arena;
 * NULL (the tree failed) when the host is out of memory. */
void *sv_alloc_array(sv_tree *t, size_t n, size_t size);
/* Frees the arena, and with it every node and computed array. */
void sv_tree_free(sv_tree *t);

/* The node constructors (serialise-tree.c): each returns NULL when the
 * tree has failed, and sv_put / sv_push then ignore it. */
sv_node *sv_null(sv_tree *t);
sv_node *sv_bool(sv_tree *t, bool v);
sv_node *sv_uint(sv_tree *t, uint64_t v);
sv_node *sv_int(sv_tree *t, int64_t v);
sv_node *sv_double(sv_tree *t, double v);
sv_node *sv_string_n(sv_tree *t, const char *s, size_t len);
sv_node *sv_string(sv_tree *t, const char *s);
sv_node *sv_array(sv_tree *t);
sv_node *sv_map(sv_tree *t);
sv_node *sv_nums(sv_tree *t, const void *base, size_t n, size_t stride, sv_num_type type);
sv_node *sv_dense(sv_tree *t, const uint32_t *index, const uint64_t *value, size_t n,
                  size_t len);
sv_node *sv_zeros(sv_tree *t, size_t len);
sv_node *sv_tiles(sv_tree *t, const tsi_tile_values *tv, size_t num_tiles);
void sv_push(sv_node *list, sv_node *item);
void sv_put(sv_node *map, const char *key, sv_node *item);

/* The emitters (serialise-emit.c): the tree rooted at `root` in `format`
 * to `sink` as it goes, or into a malloc'd buffer (*out, *out_len; JSON
 * also NUL-terminated, the NUL not counted). */
int sv_emit_to(FILE *sink, const sv_node *root, tsf_doc_format format, sv_msg msg);
int sv_emit(void **out, size_t *out_len, const sv_node *root, tsf_doc_format format,
            sv_msg msg);

/* The documents (serialise-graph.c, serialise-execution.c). */
const char *sv_vocab_name(tsf_vocab vocab, int code);
const char *sv_sync_type_name(tsi_sync_type type);
void sv_check_lists(sv_tree *t, const tsi_graph_profile *gp);
sv_node *sv_build_graph(sv_tree *t, const tsi_graph_profile *gp);
sv_node *sv_build_execution(sv_tree *t, const tsi_graph_profile *gp,
                            const tsi_run_profile *const *runs, size_t n_runs);
