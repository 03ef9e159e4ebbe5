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
#include <tilescope/alloc.h>
#include "autoreport-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
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

	out->start = tsb_calloc(n_contexts + 1, sizeof(*out->start));
	out->items = tsb_malloc((n ? n : 1) * sizeof(*out->items));
	fill = tsb_calloc(n_contexts + 1, sizeof(*fill));
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
 * The document is encoded straight into one growing buffer, head by head
 * (RFC 8949 section 3): issue 19 measured libcbor's item tree, one
 * allocation per integer of the 230,000 in the large model's lists and
 * then a serialisation pass, at a fifth of a second of the background
 * writer's CPU; this makes the same bytes in a few milliseconds.
 */
typedef struct cbor_buf {
	uint8_t *data; /* malloc'd */
	size_t len, cap;
	bool failed;   /* out of memory: everything after is dropped */
} cbor_buf;

/* CBOR major types. */
enum { MT_UINT = 0, MT_TEXT = 3, MT_ARRAY = 4, MT_MAP = 5, MT_SIMPLE = 7 };

/* Makes room for `n` more bytes; false (and failed) when out of memory. */
static bool buf_reserve(cbor_buf *b, size_t n)
{
	size_t cap;
	uint8_t *grown;

	if (b->failed)
		return false;
	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 1 << 16;
	while (cap < b->len + n)
		cap *= 2;
	grown = tsb_realloc(b->data, cap);
	if (!grown) {
		b->failed = true;
		return false;
	}
	b->data = grown;
	b->cap = cap;
	return true;
}

/* A head: the major type and its argument in the fewest bytes (the
 * preferred encoding: most indexes take one or two bytes, not four). */
static void put_head(cbor_buf *b, unsigned major, uint64_t v)
{
	uint8_t *p;
	int n;

	if (!buf_reserve(b, 9))
		return;
	p = b->data + b->len;
	if (v < 24) {
		p[0] = (uint8_t)(major << 5 | v);
		b->len += 1;
		return;
	}
	n = v <= UINT8_MAX ? 1 : v <= UINT16_MAX ? 2 : v <= UINT32_MAX ? 4 : 8;
	p[0] = (uint8_t)(major << 5 | (n == 1 ? 24 : n == 2 ? 25 : n == 4 ? 26 : 27));
	for (int i = 0; i < n; i++)
		p[1 + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	b->len += 1 + (size_t)n;
}

/* A text string (UTF-8 as the model gave it). */
static void put_text(cbor_buf *b, const char *s)
{
	size_t n = strlen(s);

	put_head(b, MT_TEXT, n);
	if (buf_reserve(b, n)) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
	}
}

/* null (simple value 22). */
static void put_null(cbor_buf *b)
{
	put_head(b, MT_SIMPLE, 22);
}

/* A definite array of the `n` indexes at `items`. */
static void put_index_array(cbor_buf *b, const uint32_t *items, size_t n)
{
	put_head(b, MT_ARRAY, n);
	for (size_t i = 0; i < n; i++)
		put_head(b, MT_UINT, items[i]);
}

/* The map of context `i` (id i + 1) with its three lists (lists[0..3) are
 * programs, compute sets, variables). */
static void put_context(cbor_buf *b, const tsi_debug_context_profile *d, size_t i,
                        const ctx_lists lists[3])
{
	static const char *const list_keys[3] = {"programs", "computeSets", "variables"};

	put_head(b, MT_MAP, 8);
	put_text(b, "id");
	put_head(b, MT_UINT, i + 1);
	put_text(b, "parent");
	put_head(b, MT_UINT, d->parent);
	put_text(b, "name");
	put_text(b, d->name ? d->name : "");
	put_text(b, "layer");
	put_text(b, d->layer ? d->layer : "user");
	put_text(b, "api");
	if (d->api)
		put_text(b, d->api);
	else
		put_null(b);
	for (int k = 0; k < 3; k++) {
		put_text(b, list_keys[k]);
		put_index_array(b, lists[k].items + lists[k].start[i],
		                lists[k].start[i + 1] - lists[k].start[i]);
	}
}

/* Encodes the whole document into `b`; false when out of memory. */
static bool encode_document(cbor_buf *b, const tsi_graph_profile *gp,
                            const tsi_report_meta *meta)
{
	size_t n_ctx = gp->n_debug_contexts;
	ctx_lists lists[3] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
	bool ok = group_by_context(&lists[0], n_ctx, gp->n_programs, program_ctx, gp) &&
	          group_by_context(&lists[1], n_ctx, gp->n_compute_sets, compute_set_ctx, gp) &&
	          group_by_context(&lists[2], n_ctx, gp->n_variables, variable_ctx, gp);

	if (ok) {
		put_head(b, MT_MAP, meta && meta->report_id ? 4 : 2);
		put_text(b, "version");
		put_head(b, MT_UINT, DEBUG_CBOR_VERSION);
		if (meta && meta->report_id) {
			put_text(b, "report");
			put_text(b, meta->report_id);
			put_text(b, "created");
			put_head(b, MT_UINT, (uint64_t)meta->created_unix_ns);
		}
		put_text(b, "contexts");
		put_head(b, MT_ARRAY, n_ctx);
		for (size_t i = 0; i < n_ctx && !b->failed; i++)
			put_context(b, &gp->debug_contexts[i], i, lists);
		ok = !b->failed;
	}
	for (int k = 0; k < 3; k++)
		ctx_lists_free(&lists[k]);
	return ok;
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
	char *tmp = tsb_malloc(size);
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

/* Writes all of buf[0..len) to `fd`. Returns TSI_OK, or TSI_ERR_IO
 * recorded with `name` in the message. */
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
	return TSI_OK;
}

/*
 * Serialises the contexts of `gp` and writes them to `path`: first to a
 * new file beside it (same directory, so the rename is atomic), then
 * published over `path` as profile.pop is (tsi_report_publish: synced,
 * renamed, the directory synced). On any failure the temporary file is
 * removed and `path` is left as it was.
 */
int tsi_debug_cbor_write(const char *path, const tsi_graph_profile *gp,
                         const tsi_report_meta *meta)
{
	cbor_buf doc = {NULL, 0, 0, false};
	char *tmp = NULL;
	int fd = -1, rc;

	if (!path || !gp)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_debug_cbor_write: %s is NULL",
		                     !path ? "path" : "profile");
	if (!encode_document(&doc, gp, meta)) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory encoding '%s'", path);
		goto out;
	}
	rc = create_temp(&fd, &tmp, path);
	if (rc || (rc = write_all(fd, doc.data, doc.len, tmp)))
		goto out;
	rc = close(fd);
	fd = -1;
	if (rc != 0) {
		rc = tsi_set_error(TSI_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	rc = tsi_report_publish(tmp, path);
	if (rc)
		goto out;
	free(tmp);
	tmp = NULL; /* renamed: nothing to remove */
out:
	if (fd >= 0)
		close(fd);
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(doc.data);
	return rc;
}
