/*
 * debug.cbor: the debug contexts of a graph profile (autoReport.
 * outputDebugInfo), so that a reader can say which operation or model
 * layer made each lowered program, compute set and variable of
 * profile.pop. One CBOR data item (RFC 8949), every container of definite
 * length, every integer unsigned in its shortest form:
 *
 *   {
 *     "version":  1,                   format version; readers refuse others
 *     "report":   text,                the report identity profile.pop's meta
 *                                      "report_id" holds (absent when the
 *                                      writer had none): a reader pairs the
 *                                      two files by it
 *     "created":  uint,                the engine's creation, Unix ns (with
 *                                      "report"): says which of two
 *                                      mismatched files is the older
 *     "contexts": [                    one per context, in id order
 *       {
 *         "id":          uint,         1-based; contexts[i] has id i + 1
 *         "parent":      uint,         enclosing context's id, 0 at top
 *                                      level (always below "id")
 *         "name":        text,         the debug name ("fc1", "Add" ...)
 *         "layer":       text,         "user", "popops", "poplin", "popnn",
 *                                      "poprand" or "gcl"
 *         "api":         text | null,  the function that opened it
 *                                      ("popops::add"), null for a model's
 *                                      own contexts
 *         "programs":    [uint ...],   lowered programs (index in the
 *                                      graph profile's programs)
 *         "computeSets": [uint ...],   compute sets (profile index)
 *         "variables":   [uint ...]    variables (profile index)
 *       } ...
 *     ]
 *   }
 *
 * The lists hold what the context made itself, ascending, with the same
 * indexes profile.pop uses; what its children made is listed under them
 * (walk "parent" to total a layer). Objects made outside any context, and
 * compiler allocations with no source, are in no list.
 *
 * The file is written under a temporary name in the target directory and
 * renamed, so `path` is either absent, the previous file, or complete.
 */
#include "autoreport-private.h"

#include <cbor.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The format version written in "version". */
#define DEBUG_CBOR_VERSION 1

/* The members of every context of one kind of object: a counting sort of
 * the objects by context, so each list is made in one pass. */
typedef struct ctx_lists {
	size_t *start;   /* n_contexts + 1 offsets into `items`: context id's
	                    members are items[start[id - 1] .. start[id]) (malloc) */
	uint32_t *items; /* object indexes grouped by context, ascending (malloc) */
} ctx_lists;

/*
 * Groups objects 0..n by their debug context (ctx_of(i)); objects with no
 * context or an id the profile does not list are left out. Returns false
 * when out of memory.
 */
static bool group_by_context(ctx_lists *out, size_t n_contexts, size_t n,
                             uint32_t (*ctx_of)(const tsi_graph_profile *, size_t),
                             const tsi_graph_profile *gp)
{
	size_t *fill = NULL;
	bool ok = false;

	out->start = calloc(n_contexts + 1, sizeof(*out->start));
	out->items = malloc((n ? n : 1) * sizeof(*out->items));
	fill = calloc(n_contexts + 1, sizeof(*fill));
	if (!out->start || !out->items || !fill)
		goto done;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ctx_of(gp, i);
		if (id && id <= n_contexts)
			out->start[id]++; /* the count of context id, for now */
	}
	/* Prefix sums: start[id] becomes the end of context id's members. */
	for (size_t id = 1; id <= n_contexts; id++)
		out->start[id] += out->start[id - 1];
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ctx_of(gp, i);
		if (id && id <= n_contexts)
			out->items[out->start[id - 1] + fill[id - 1]++] = (uint32_t)i;
	}
	ok = true;
done:
	free(fill);
	return ok;
}

/* Frees the lists (not `l`); safe on lists that were never filled. */
static void ctx_lists_free(ctx_lists *l)
{
	free(l->start);
	free(l->items);
	l->start = NULL;
	l->items = NULL;
}

/* The context of each kind of object, for group_by_context. */
static uint32_t program_ctx(const tsi_graph_profile *gp, size_t i)
{
	return gp->programs[i].debug_context;
}

static uint32_t compute_set_ctx(const tsi_graph_profile *gp, size_t i)
{
	return gp->compute_sets[i].debug_context;
}

static uint32_t variable_ctx(const tsi_graph_profile *gp, size_t i)
{
	return gp->variables[i].debug_context;
}

/*
 * Adds key -> value to a definite map and drops this function's reference
 * to `value` (freed if the add failed), so callers pass a fresh item as
 * they would through cbor_move() without leaking it on failure. `value`
 * may be NULL (a failed build): then nothing is added.
 */
static bool map_put(cbor_item_t *map, const char *key, cbor_item_t *value)
{
	cbor_item_t *k = value ? cbor_build_string(key) : NULL;
	bool ok = k && cbor_map_add(map, (struct cbor_pair){.key = k, .value = value});

	if (k)
		cbor_decref(&k);
	if (value)
		cbor_decref(&value);
	return ok;
}

/* The same for an array element. */
static bool array_put(cbor_item_t *array, cbor_item_t *value)
{
	bool ok = value && cbor_array_push(array, value);

	if (value)
		cbor_decref(&value);
	return ok;
}

/* An unsigned integer in the fewest bytes (CBOR's preferred encoding:
 * most indexes fit one or two bytes, not four). NULL when out of memory. */
static cbor_item_t *build_uint(uint32_t v)
{
	if (v <= UINT8_MAX)
		return cbor_build_uint8((uint8_t)v);
	if (v <= UINT16_MAX)
		return cbor_build_uint16((uint16_t)v);
	return cbor_build_uint32(v);
}

/* A definite array of the `n` indexes at `items`; NULL when out of memory. */
static cbor_item_t *index_array(const uint32_t *items, size_t n)
{
	cbor_item_t *array = cbor_new_definite_array(n);

	for (size_t i = 0; array && i < n; i++) {
		if (!array_put(array, build_uint(items[i]))) {
			cbor_decref(&array);
			return NULL;
		}
	}
	return array;
}

/* The map of context `i` (id i + 1) with its three lists (lists[0..3) are
 * programs, compute sets, variables); NULL when out of memory. */
static cbor_item_t *context_map(const tsi_debug_context_profile *d, size_t i,
                                const ctx_lists lists[3])
{
	static const char *const list_keys[3] = {"programs", "computeSets", "variables"};
	cbor_item_t *map = cbor_new_definite_map(8);
	bool ok;

	if (!map)
		return NULL;
	ok = map_put(map, "id", build_uint((uint32_t)(i + 1))) &&
	     map_put(map, "parent", build_uint(d->parent)) &&
	     map_put(map, "name", cbor_build_string(d->name ? d->name : "")) &&
	     map_put(map, "layer", cbor_build_string(d->layer ? d->layer : "user")) &&
	     map_put(map, "api", d->api ? cbor_build_string(d->api) : cbor_new_null());
	for (int k = 0; ok && k < 3; k++)
		ok = map_put(map, list_keys[k],
		             index_array(lists[k].items + lists[k].start[i],
		                         lists[k].start[i + 1] - lists[k].start[i]));
	if (!ok)
		cbor_decref(&map);
	return map;
}

/* The whole document; NULL when out of memory. */
static cbor_item_t *build_document(const tsi_graph_profile *gp, const tsi_report_meta *meta)
{
	size_t n_ctx = gp->n_debug_contexts;
	ctx_lists lists[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
	cbor_item_t *root = NULL, *contexts = NULL, *result = NULL;

	if (!group_by_context(&lists[0], n_ctx, gp->n_programs, program_ctx, gp) ||
	    !group_by_context(&lists[1], n_ctx, gp->n_compute_sets, compute_set_ctx, gp) ||
	    !group_by_context(&lists[2], n_ctx, gp->n_variables, variable_ctx, gp))
		goto out;
	contexts = cbor_new_definite_array(n_ctx);
	if (!contexts)
		goto out;
	for (size_t i = 0; i < n_ctx; i++)
		if (!array_put(contexts, context_map(&gp->debug_contexts[i], i, lists)))
			goto out;
	root = cbor_new_definite_map(meta && meta->report_id ? 4 : 2);
	if (!root || !map_put(root, "version", build_uint(DEBUG_CBOR_VERSION)))
		goto out;
	if (meta && meta->report_id &&
	    (!map_put(root, "report", cbor_build_string(meta->report_id)) ||
	     !map_put(root, "created", cbor_build_uint64((uint64_t)meta->created_unix_ns))))
		goto out;
	/* map_put drops our reference to `contexts`, added or not. */
	if (!map_put(root, "contexts", contexts)) {
		contexts = NULL;
		goto out;
	}
	contexts = NULL;
	result = root;
	root = NULL;
out:
	if (contexts)
		cbor_decref(&contexts);
	if (root)
		cbor_decref(&root);
	for (int k = 0; k < 3; k++)
		ctx_lists_free(&lists[k]);
	return result;
}

/*
 * Creates a new file beside `path` for writing ("<path>.tmp.<pid>.<n>",
 * O_EXCL so nothing is clobbered; mode 0666 less the umask, as the final
 * file should have). Fills *fd_out and *tmp_out (malloc) and returns
 * TSI_OK, or returns the error (recorded) with *fd_out = -1.
 */
static int create_temp(int *fd_out, char **tmp_out, const char *path)
{
	static unsigned counter;
	size_t size = strlen(path) + 48;
	char *tmp = malloc(size);
	int fd = -1, rc;

	*fd_out = -1;
	*tmp_out = NULL;
	if (!tmp)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", path);
	for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
		unsigned n = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);

		snprintf(tmp, size, "%s.tmp.%ld.%u", path, (long)getpid(), n);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return rc;
	}
	*fd_out = fd;
	*tmp_out = tmp;
	return TSI_OK;
}

/* Writes all of buf[0..len) to `fd`, then syncs it. Returns TSI_OK, or
 * TSI_ERR_IO recorded with `name` in the message. */
static int write_all(int fd, const unsigned char *buf, size_t len, const char *name)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return tsi_set_error(TSI_ERR_IO, "cannot write '%s': %s", name,
			                     n < 0 ? strerror(errno) : "nothing written");
		off += (size_t)n;
	}
	if (fsync(fd) != 0)
		return tsi_set_error(TSI_ERR_IO, "cannot write '%s': %s", name, strerror(errno));
	return TSI_OK;
}

/*
 * Serialises the contexts of `gp` and writes them to `path`: first to a
 * new file beside it (same directory, so the rename is atomic), synced,
 * then renamed over `path`. On any failure the temporary file is removed
 * and `path` is left as it was.
 */
int tsi_debug_cbor_write(const char *path, const tsi_graph_profile *gp,
                         const tsi_report_meta *meta)
{
	cbor_item_t *doc = NULL;
	unsigned char *buf = NULL;
	size_t buf_size = 0, len;
	char *tmp = NULL;
	int fd = -1, rc;

	if (!path || !gp)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_debug_cbor_write: %s is NULL",
		                     !path ? "path" : "profile");
	doc = build_document(gp, meta);
	len = doc ? cbor_serialize_alloc(doc, &buf, &buf_size) : 0;
	if (!len) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory encoding '%s'", path);
		goto out;
	}
	rc = create_temp(&fd, &tmp, path);
	if (rc || (rc = write_all(fd, buf, len, tmp)))
		goto out;
	rc = close(fd);
	fd = -1;
	if (rc != 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (rename(tmp, path) != 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path,
		                   strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL; /* renamed: nothing to remove */
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(buf);
	if (doc)
		cbor_decref(&doc);
	return rc;
}
