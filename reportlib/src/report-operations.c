/*
 * Operations: what each debug context made (programs, compute sets,
 * variables), the memory of what it made, and in a run the cycles and
 * FLOPs of its steps, each with its descendants' added (a user layer
 * holding a matmul and an add costs what they cost).
 *
 * Who made what comes from the debug_context columns of profile.pop's
 * program, compute_set and variable tables. When the report has a
 * debug.cbor (autoReport.outputDebugInfo, taken along by
 * tsr_report_open), it is read too and must agree with profile.pop: the
 * same contexts (ids, parents, names, APIs) and the same lists of what
 * each made, for every object profile.pop lists. A debug.cbor that
 * disagrees, or is not the document instrument/src/autoreport/debug-cbor.c
 * writes, is TSR_ERR_CORRUPT naming debug.cbor; one that agrees changes
 * no figure, so reports with and without one give the same operations.
 *
 * debug.cbor comes from someone else like profile.pop. Its bytes are
 * walked once with libcbor's streaming decoder (no allocation): definite
 * lengths only, no tags, nesting at most as deep as the format, no
 * container declaring more items than there are bytes left, no trailing
 * bytes. The document is then read where it lies, without building a
 * tree, and every type, length and id is checked before use.
 *
 * The graph-side figures are made once and kept in r->operations_cache
 * (one tsr_alloc block, freed with free() by tsr_report_free); the run
 * costs are added per call.
 */
#include <tilescope/alloc.h>
#include <tilescope/utf8.h>
#include "report-private.h"

#include <cbor.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* debug.cbor's format version (instrument/src/autoreport/debug-cbor.c). */
#define DEBUG_CBOR_VERSION 1
/* Nesting of the format: root map, contexts array, context map, list. */
#define DEBUG_CBOR_MAX_DEPTH 4
/* The largest debug.cbor read at all, whatever the memory cap. */
#define DEBUG_CBOR_MAX_BYTES ((uint64_t)1 << 30)

/* The graph-side operations, made once (r->operations_cache). */
typedef struct ops_cache {
	size_t n;
	tsr_operation ops[]; /* id order; graph figures with descendants, no run costs */
} ops_cache;

/* a + b, saturating: sums of values read from a file must not wrap. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The code tsr_alloc recorded when it returned NULL for n * size bytes:
 * past the cap (or overflow) is TSR_ERR_TOO_LARGE, else the host is out. */
static int alloc_code(const tsr_report *r, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return TSR_ERR_TOO_LARGE;
	return r->memory_used > r->memory_cap || n * size > r->memory_cap - r->memory_used
	           ? TSR_ERR_TOO_LARGE
	           : TSR_ERR_NO_MEMORY;
}

/* --- debug.cbor: reading the bytes ------------------------------------------- */

/*
 * Reads the whole of `path` into a tsr_alloc'd buffer (*buf, *size; the
 * caller frees with tsr_free(r, *buf, *size ? *size : 1)). Only a regular
 * file no larger than DEBUG_CBOR_MAX_BYTES and the memory cap is read.
 * The report's own debug.cbor is read through the descriptor opened
 * with profile.pop (r->debug_fd), so a debug.cbor renamed into place
 * since is not mixed with the profile.pop of before.
 */
static int read_file(tsr_report *r, unsigned char **buf, size_t *size, const char *path)
{
	struct stat sb;
	unsigned char *data = NULL;
	size_t len = 0, got = 0;
	bool own_fd = !(r->debug_fd >= 0 && path == r->debug_path);
	int fd, rc = TSR_OK;

	*buf = NULL;
	*size = 0;
	fd = own_fd ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) : r->debug_fd;
	if (fd < 0)
		return tsr_fail(r, errno == ENOENT ? TSR_ERR_NOT_FOUND : TSR_ERR_IO,
		                "'%s': cannot open: %s", path, strerror(errno));
	if (fstat(fd, &sb) != 0) {
		rc = tsr_fail(r, TSR_ERR_IO, "'%s': cannot read: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': not a regular file", path);
		goto out;
	}
	if (sb.st_size < 0 || (uint64_t)sb.st_size > DEBUG_CBOR_MAX_BYTES) {
		rc = tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': %lld bytes is more than reportlib reads",
		              path, (long long)sb.st_size);
		goto out;
	}
	len = (size_t)sb.st_size;
	data = tsr_alloc(r, len ? len : 1, 1);
	if (!data) {
		rc = alloc_code(r, len ? len : 1, 1);
		goto out;
	}
	while (got < len) {
		ssize_t k = pread(fd, data + got, len - got, (off_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = tsr_fail(r, TSR_ERR_IO, "'%s': cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (k == 0)
			break; /* shrank while we read: what we have is checked as it is */
		got += (size_t)k;
	}
	*buf = data;
	*size = got;
	data = NULL;
out:
	if (data)
		tsr_free(r, data, len ? len : 1);
	if (own_fd)
		close(fd);
	return rc;
}

/* --- debug.cbor: the walk before cbor_load --------------------------------------- */

/* State of the streaming walk. */
typedef struct cbor_scan {
	size_t remaining[DEBUG_CBOR_MAX_DEPTH]; /* items left in each open container */
	int depth;                              /* open containers */
	size_t left;                            /* bytes from the current head to the end */
	bool done;                              /* the root item is complete */
	const char *bad;                        /* why the walk stopped, or NULL */
} cbor_scan;

/* One complete item (or the head of a container) at the current depth:
 * counts it in its container and closes the containers it completes. */
static void scan_count(cbor_scan *sc)
{
	if (sc->done) {
		sc->bad = "bytes after the document";
		return;
	}
	if (sc->depth > 0)
		sc->remaining[sc->depth - 1]--;
}

/* Closes every open container whose items are all seen; the root item
 * is complete when none is left open. */
static void scan_close(cbor_scan *sc)
{
	while (sc->depth > 0 && sc->remaining[sc->depth - 1] == 0)
		sc->depth--;
	if (sc->depth == 0)
		sc->done = true;
}

/* A complete item that holds no others. */
static void scan_scalar(cbor_scan *sc)
{
	scan_count(sc);
	if (!sc->bad)
		scan_close(sc);
}

/* A definite array or map head of `items` items (a map's pairs count 2). */
static void scan_open(cbor_scan *sc, size_t items)
{
	scan_count(sc);
	if (sc->bad)
		return;
	if (items == 0) {
		scan_close(sc);
		return;
	}
	if (items > sc->left) {
		sc->bad = "a container declares more items than there are bytes";
		return;
	}
	if (sc->depth >= DEBUG_CBOR_MAX_DEPTH) {
		sc->bad = "containers nested deeper than the format";
		return;
	}
	sc->remaining[sc->depth++] = items;
}

/* The streaming decoder's callbacks: every scalar is one item, whatever
 * its kind (the types are checked on the loaded tree). */
static void scan_u8_cb(void *c, uint8_t v)
{
	(void)v;
	scan_scalar(c);
}

static void scan_u16_cb(void *c, uint16_t v)
{
	(void)v;
	scan_scalar(c);
}

static void scan_u32_cb(void *c, uint32_t v)
{
	(void)v;
	scan_scalar(c);
}

static void scan_u64_cb(void *c, uint64_t v)
{
	(void)v;
	scan_scalar(c);
}

static void scan_simple_cb(void *c)
{
	scan_scalar(c);
}

static void scan_string_cb(void *c, cbor_data data, size_t len)
{
	(void)data;
	(void)len;
	scan_scalar(c);
}

/* A text string: UTF-8, as CBOR requires of text (and libcbor's loader
 * and every reader of names do). */
static void scan_text_cb(void *c, cbor_data data, size_t len)
{
	cbor_scan *sc = c;

	if (!tsb_utf8_valid((const char *)data, len)) {
		sc->bad = "text that is not UTF-8";
		return;
	}
	scan_scalar(sc);
}

static void scan_float_cb(void *c, float v)
{
	(void)v;
	scan_scalar(c);
}

static void scan_double_cb(void *c, double v)
{
	(void)v;
	scan_scalar(c);
}

static void scan_bool_cb(void *c, bool v)
{
	(void)v;
	scan_scalar(c);
}

/* A definite array head of `n` items. */
static void scan_array_cb(void *c, size_t n)
{
	scan_open(c, n);
}

/* A definite map head of `n` pairs (2n items). */
static void scan_map_cb(void *c, size_t n)
{
	cbor_scan *sc = c;

	if (n > SIZE_MAX / 2) {
		sc->bad = "a map declares more items than there are bytes";
		return;
	}
	scan_open(sc, 2 * n);
}

/* Indefinite lengths, breaks and tags: never written, so never read. */
static void scan_refuse_cb(void *c)
{
	cbor_scan *sc = c;

	sc->bad = "an indefinite-length item";
}

/* A tag: debug.cbor has none. */
static void scan_tag_cb(void *c, uint64_t tag)
{
	cbor_scan *sc = c;

	(void)tag;
	sc->bad = "a tagged item";
}

/*
 * Walks buf[0..size) as one CBOR data item without building it: fails
 * (TSR_ERR_CORRUPT naming `path`) on anything debug.cbor never holds
 * that could make the reading below costly or deep, on a
 * truncated item and on trailing bytes.
 */
static int scan_cbor(tsr_report *r, const unsigned char *buf, size_t size,
                     const char *path)
{
	struct cbor_callbacks cb = cbor_empty_callbacks;
	cbor_scan sc;
	size_t pos = 0;

	memset(&sc, 0, sizeof(sc));
	cb.uint8 = scan_u8_cb;
	cb.uint16 = scan_u16_cb;
	cb.uint32 = scan_u32_cb;
	cb.uint64 = scan_u64_cb;
	cb.negint8 = scan_u8_cb;
	cb.negint16 = scan_u16_cb;
	cb.negint32 = scan_u32_cb;
	cb.negint64 = scan_u64_cb;
	cb.byte_string = scan_string_cb;
	cb.string = scan_text_cb;
	cb.byte_string_start = scan_refuse_cb;
	cb.string_start = scan_refuse_cb;
	cb.indef_array_start = scan_refuse_cb;
	cb.indef_map_start = scan_refuse_cb;
	cb.indef_break = scan_refuse_cb;
	cb.array_start = scan_array_cb;
	cb.map_start = scan_map_cb;
	cb.tag = scan_tag_cb;
	cb.float2 = scan_float_cb;
	cb.float4 = scan_float_cb;
	cb.float8 = scan_double_cb;
	cb.undefined = scan_simple_cb;
	cb.null = scan_simple_cb;
	cb.boolean = scan_bool_cb;
	/* Each round consumes at least one byte: at most `size` rounds. */
	while (!sc.done && !sc.bad) {
		struct cbor_decoder_result res;

		if (pos >= size) {
			sc.bad = "it ends inside the document";
			break;
		}
		sc.left = size - pos;
		res = cbor_stream_decode(buf + pos, size - pos, &cb, &sc);
		if (res.status != CBOR_DECODER_FINISHED || res.read == 0 || res.read > size - pos) {
			sc.bad = res.status == CBOR_DECODER_NEDATA ? "it ends inside the document"
			                                           : "malformed CBOR";
			break;
		}
		pos += res.read;
	}
	if (!sc.bad && pos != size)
		sc.bad = "bytes after the document";
	if (sc.bad)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': not a debug.cbor document: %s (byte %zu)",
		                path, sc.bad, pos);
	return TSR_OK;
}

/* --- debug.cbor: the checked document -------------------------------------------- */

/*
 * The document is read where it lies, after scan_cbor has walked it:
 * every item is complete, of definite length, untagged, at most
 * DEBUG_CBOR_MAX_DEPTH deep, with nothing after it. An item is its
 * offset in the bytes (NO_ITEM: absent). Nothing is built (libcbor's
 * tree of a large model's debug.cbor cost a tenth of `tilescope diff`).
 */
#define NO_ITEM SIZE_MAX

/* The bytes of the walked document. */
typedef struct cbor_doc {
	const unsigned char *buf;
	size_t size;
} cbor_doc;

/* An item's head at `at`: its major type (0-7), its argument (a length,
 * a count of items or pairs, a value, or a simple value's number) and
 * where its content starts. False past the end or on a reserved head. */
static bool doc_head(const cbor_doc *d, size_t at, unsigned *major, uint64_t *arg, size_t *next)
{
	unsigned ai, width;

	if (at >= d->size)
		return false;
	*major = d->buf[at] >> 5;
	ai = d->buf[at] & 31;
	if (ai < 24) {
		*arg = ai;
		*next = at + 1;
		return true;
	}
	if (ai > 27)
		return false;
	width = 1u << (ai - 24);
	if (d->size - at - 1 < width)
		return false;
	*arg = 0;
	for (unsigned i = 0; i < width; i++)
		*arg = *arg << 8 | d->buf[at + 1 + i];
	*next = at + 1 + width;
	return true;
}

/* Where the item at `at` ends (NO_ITEM when it does not): a string's
 * bytes, a container's items, counted without recursion. */
static size_t doc_skip(const cbor_doc *d, size_t at)
{
	uint64_t todo = 1;

	while (todo) {
		unsigned major;
		uint64_t arg;

		if (!doc_head(d, at, &major, &arg, &at))
			return NO_ITEM;
		todo--;
		if (major == 2 || major == 3) {
			if (arg > d->size - at)
				return NO_ITEM;
			at += (size_t)arg;
		} else if (major == 4 || major == 5) {
			uint64_t items = major == 5 ? 2 * arg : arg;

			if (items > d->size - at)
				return NO_ITEM;
			todo += items;
		}
	}
	return at;
}

/* Whether the item at `at` is of `major` type; its argument in *arg and
 * where its content starts in *next (both may be NULL). */
static bool doc_isa(const cbor_doc *d, size_t at, unsigned major, uint64_t *arg, size_t *next)
{
	unsigned m;
	uint64_t a;
	size_t n;

	if (at == NO_ITEM || !doc_head(d, at, &m, &a, &n) || m != major)
		return false;
	if ((m == 2 || m == 3) && a > d->size - n)
		return false;
	if (arg)
		*arg = a;
	if (next)
		*next = n;
	return true;
}

/* The value of `key` in a map of text keys, or NO_ITEM (also when `map`
 * is absent or not a map: a file may hold anything there). */
static size_t map_get(const cbor_doc *d, size_t map, const char *key)
{
	size_t len = strlen(key), at;
	uint64_t pairs;

	if (!doc_isa(d, map, 5, &pairs, &at))
		return NO_ITEM;
	for (uint64_t i = 0; i < pairs && at != NO_ITEM; i++) {
		uint64_t klen;
		size_t kat;

		if (doc_isa(d, at, 3, &klen, &kat) && klen == len && memcmp(d->buf + kat, key, len) == 0)
			return doc_skip(d, at);
		at = doc_skip(d, at);
		if (at != NO_ITEM)
			at = doc_skip(d, at);
	}
	return NO_ITEM;
}

/* An unsigned integer (any width) into *v; false for any other item. */
static bool get_uint(const cbor_doc *d, size_t item, uint64_t *v)
{
	return doc_isa(d, item, 0, v, NULL);
}

/* Whether the item is text equal to `s` (NULL: the item is null). */
static bool text_equals(const cbor_doc *d, size_t item, const char *s)
{
	uint64_t len, simple;
	size_t at;

	if (!s)
		return doc_isa(d, item, 7, &simple, NULL) && simple == 22;
	if (!doc_isa(d, item, 3, &len, &at))
		return false;
	return len == strlen(s) && (len == 0 || memcmp(d->buf + at, s, (size_t)len) == 0);
}

/* What one context's lists must match, and their running totals. */
typedef struct list_check {
	const tsr_program *programs;
	size_t n_programs;
	const tsr_compute_set *compute_sets;
	size_t n_compute_sets;
	const tsr_variable *variables; /* ascending ids (checked) */
	size_t n_variables;
	bool all_variables_listed;     /* lowered_vars: profile.pop lists every variable */
	size_t programs_seen, compute_sets_seen, variables_seen; /* found in profile.pop */
} list_check;

/* Index of variable `id` in the ascending list, or n. */
static size_t find_variable(const tsr_variable *v, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? lo : n;
}

/*
 * Checks list `key` (0 programs, 1 computeSets, 2 variables) of the
 * context `ctx` with id `id`: an array of unsigned ids, ascending
 * without repeats, each an object profile.pop has whose debug_context is
 * `id` (variables profile.pop does not list are accepted only when it
 * leaves the compiler's allocations out). Returns a reason or NULL.
 */
static const char *check_list(const cbor_doc *d, list_check *lc, size_t ctx, int key, uint32_t id)
{
	static const char *const keys[3] = {"programs", "computeSets", "variables"};
	static const char *const bad[3] = {
	    "a programs list that is not ascending unsigned ids",
	    "a computeSets list that is not ascending unsigned ids",
	    "a variables list that is not ascending unsigned ids"};
	uint64_t prev = 0, n;
	size_t at;

	if (!doc_isa(d, map_get(d, ctx, keys[key]), 4, &n, &at))
		return bad[key];
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v;
		int64_t owner;

		if (!get_uint(d, at, &v) || (i && v <= prev))
			return bad[key];
		at = doc_skip(d, at);
		prev = v;
		switch (key) {
		case 0:
			if (v >= lc->n_programs)
				return "a program past the end";
			owner = lc->programs[v].debug_context;
			lc->programs_seen++;
			break;
		case 1:
			if (v >= lc->n_compute_sets)
				return "a compute set past the end";
			owner = lc->compute_sets[v].debug_context;
			lc->compute_sets_seen++;
			break;
		default: {
			size_t k = find_variable(lc->variables, lc->n_variables, v);

			if (k == lc->n_variables) {
				if (lc->all_variables_listed || v > UINT32_MAX)
					return "a variable profile.pop does not have";
				continue;
			}
			owner = lc->variables[k].debug_context;
			lc->variables_seen++;
			break;
		}
		}
		if (owner != (int64_t)id)
			return key == 0 ? "a program profile.pop gives another context"
			       : key == 1 ? "a compute set profile.pop gives another context"
			                  : "a variable profile.pop gives another context";
	}
	return NULL;
}

/*
 * debug.cbor and profile.pop of one report carry one identity (profile.pop's
 * meta report_id, debug.cbor's "report"): a pair that differs was mixed by
 * a writer killed between the two renames, or by a copy, and the one
 * written by the older engine ("created") is the stale one. Files of
 * writers that had no identity are not compared.
 */
static int check_pair(tsr_report *r, const cbor_doc *d, const char *path)
{
	size_t id = map_get(d, 0, "report"), at;
	uint64_t created = 0, len;
	const char *stale;

	if (id == NO_ITEM || !r->report_id)
		return TSR_OK;
	if (!doc_isa(d, id, 3, &len, &at))
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': its report identity is not text", path);
	if (len == strlen(r->report_id) && memcmp(d->buf + at, r->report_id, (size_t)len) == 0)
		return TSR_OK;
	get_uint(d, map_get(d, 0, "created"), &created);
	stale = created < (uint64_t)r->created_unix_ns ? path : r->path;
	return tsr_fail(r, TSR_ERR_CORRUPT,
	                "'%s' and '%s' are not one report (another run replaced one of them); "
	                "'%s' is the older, stale one: %s",
	                r->path, path, stale,
	                stale == path ? "remove it to read profile.pop alone, or run the model again"
	                              : "run the model again");
}

/*
 * Checks the document against profile.pop's contexts ops[0..n) and the
 * objects in `lc`. Returns a reason (for the message) or NULL. *bad_ctx
 * gets the context at fault (0: none in particular).
 */
static const char *check_document(const cbor_doc *d, const tsr_operation *ops, size_t n,
                                  list_check *lc, size_t *bad_ctx)
{
	uint64_t v, count;
	size_t at;

	*bad_ctx = 0;
	if (!doc_isa(d, 0, 5, NULL, NULL))
		return "the document is not a map";
	if (!get_uint(d, map_get(d, 0, "version"), &v))
		return "no version";
	if (v != DEBUG_CBOR_VERSION)
		return "a version this reader does not know";
	if (!doc_isa(d, map_get(d, 0, "contexts"), 4, &count, &at))
		return "no contexts array";
	if (count != n)
		return "a different number of contexts than profile.pop";
	for (size_t i = 0; i < n; i++) {
		size_t c = at;
		const char *why;

		*bad_ctx = i + 1;
		at = doc_skip(d, at);
		if (!doc_isa(d, c, 5, NULL, NULL))
			return "a context that is not a map";
		if (!get_uint(d, map_get(d, c, "id"), &v) || v != i + 1)
			return "a context id out of order";
		if (!get_uint(d, map_get(d, c, "parent"), &v) || v >= i + 1)
			return "a parent not below its context";
		if (v != ops[i].parent)
			return "a parent other than profile.pop's";
		if (!text_equals(d, map_get(d, c, "name"), ops[i].name))
			return "a name other than profile.pop's";
		if (!doc_isa(d, map_get(d, c, "layer"), 3, NULL, NULL))
			return "a layer that is not text";
		if (!text_equals(d, map_get(d, c, "api"), ops[i].api))
			return "an API other than profile.pop's";
		for (int k = 0; k < 3; k++)
			if ((why = check_list(d, lc, c, k, (uint32_t)(i + 1))) != NULL)
				return why;
	}
	*bad_ctx = 0;
	return NULL;
}

/*
 * Reads debug.cbor at `path` and checks it against profile.pop: the
 * contexts ops[0..n) as profile.pop has them and what profile.pop says
 * each made (in `lc`). Every object profile.pop gives a context must be
 * in that context's list, so the totals of objects found are compared
 * with profile.pop's (`with_context`: programs, compute sets, variables).
 */
static int check_debug_cbor(tsr_report *r, const char *path, const tsr_operation *ops, size_t n,
                            list_check *lc, const size_t with_context[3])
{
	unsigned char *buf = NULL;
	size_t size = 0, bad_ctx = 0;
	cbor_doc d;
	const char *why;
	int rc;

	rc = read_file(r, &buf, &size, path);
	if (rc)
		return rc;
	rc = scan_cbor(r, buf, size, path);
	if (rc)
		goto out;
	d.buf = buf;
	d.size = size;
	rc = check_pair(r, &d, path);
	if (rc)
		goto out;
	why = check_document(&d, ops, n, lc, &bad_ctx);
	if (!why && (lc->programs_seen != with_context[0] ||
	             lc->compute_sets_seen != with_context[1] ||
	             lc->variables_seen != with_context[2]))
		why = "lists that leave out objects profile.pop gives a context";
	if (why) {
		if (bad_ctx)
			rc = tsr_fail(r, TSR_ERR_CORRUPT,
			              "'%s' disagrees with '%s': context %zu has %s", path, r->path,
			              bad_ctx, why);
		else
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s' disagrees with '%s': %s", path, r->path,
			              why);
	}
out:
	if (buf)
		tsr_free(r, buf, size ? size : 1);
	return rc;
}

/* --- The graph-side figures ------------------------------------------------------- */

/*
 * Reads profile.pop's debug_context table into ops[0..n) (a tsr_alloc'd
 * array of the table's row count): ids dense from 1, each parent NULL or
 * an id below its child (so descendants always come after, and one
 * reverse pass totals them; a parent at or after its child could close
 * a cycle), names, layers and APIs from the string table.
 */
static int load_contexts(tsr_report *r, tsr_operation **out, size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	tsr_operation *ops = NULL;
	size_t n = 0, i = 0;
	int64_t v;
	int rc;

	*out = NULL;
	*n_out = 0;
	rc = tsr_prepare(r, &st, "SELECT count(*) FROM debug_context");
	if (rc)
		goto out;
	rc = tsr_step_row(r, st);
	if (rc == SQLITE_DONE)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': counting debug contexts gave no answer",
		              r->path);
	if (rc != SQLITE_ROW)
		goto out;
	if ((rc = tsr_column_int(r, &v, st, 0, 0, UINT32_MAX, "debug_context count")))
		goto out;
	n = (size_t)v;
	sqlite3_finalize(st);
	st = NULL;
	ops = tsr_alloc(r, n ? n : 1, sizeof(*ops));
	if (!ops) {
		rc = alloc_code(r, n ? n : 1, sizeof(*ops));
		goto out;
	}
	rc = tsr_prepare(r, &st, "SELECT id, parent, name, layer, api FROM debug_context ORDER BY id");
	if (rc)
		goto out;
	while ((rc = tsr_step_row(r, st)) == SQLITE_ROW) {
		tsr_operation *op = &ops[i];

		if (i >= n) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': debug_context has more than %zu rows",
			              r->path, n);
			goto out;
		}
		if ((rc = tsr_column_int(r, &v, st, 0, 1, UINT32_MAX, "debug_context.id")))
			goto out;
		if ((uint64_t)v != i + 1) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': debug context %zu has id %lld", r->path,
			              i + 1, (long long)v);
			goto out;
		}
		op->id = (uint32_t)v;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
			op->parent = 0;
		} else {
			if ((rc = tsr_column_int(r, &v, st, 1, 0, INT64_MAX, "debug_context.parent")))
				goto out;
			if (v < 1 || (uint64_t)v >= op->id) {
				rc = tsr_fail(r, TSR_ERR_CORRUPT,
				              "'%s': debug context %u has parent %lld, which is not below it",
				              r->path, op->id, (long long)v);
				goto out;
			}
			op->parent = (uint32_t)v;
		}
		if ((rc = tsr_column_string(r, &op->name, st, 2, "debug_context.name")) ||
		    (rc = tsr_column_string(r, &op->layer, st, 3, "debug_context.layer")))
			goto out;
		if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
		    (rc = tsr_column_string(r, &op->api, st, 4, "debug_context.api")))
			goto out;
		i++;
	}
	if (rc < 0)
		goto out;
	if (i != n) {
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': debug_context has %zu of its %zu rows", r->path,
		              i, n);
		goto out;
	}
	*out = ops;
	*n_out = n;
	ops = NULL;
	rc = TSR_OK;
out:
	sqlite3_finalize(st);
	if (ops)
		tsr_free(r, ops, (n ? n : 1) * sizeof(*ops));
	return rc;
}

/* Checks a debug_context field of an object against the contexts: -1
 * (none) or 1..n. */
static int check_context(tsr_report *r, int64_t ctx, size_t n, const char *what, size_t index)
{
	if (ctx == -1 || (ctx >= 1 && (uint64_t)ctx <= n))
		return TSR_OK;
	return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s %zu names debug context %lld of %zu", r->path,
	                what, index, (long long)ctx, n);
}

/*
 * Adds the vertex memory of each compute set (memory_by_compute_set.
 * total_bytes) to the context that made it.
 */
static int add_vertex_bytes(tsr_report *r, tsr_operation *ops, const tsr_compute_set *cs,
                            size_t n_cs)
{
	sqlite3_stmt *st = NULL;
	int64_t id, bytes;
	int rc = tsr_prepare(r, &st, "SELECT compute_set, total_bytes FROM memory_by_compute_set");

	if (rc)
		return rc;
	while ((rc = tsr_step_row(r, st)) == SQLITE_ROW) {
		if (n_cs == 0) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT,
			              "'%s': memory_by_compute_set has rows but there are no compute sets",
			              r->path);
			goto out;
		}
		if ((rc = tsr_column_int(r, &id, st, 0, 0, (int64_t)n_cs - 1,
		                         "memory_by_compute_set.compute_set")) ||
		    (rc = tsr_column_int(r, &bytes, st, 1, 0, INT64_MAX,
		                         "memory_by_compute_set.total_bytes")))
			goto out;
		if (cs[id].debug_context >= 1) {
			tsr_operation *op = &ops[cs[id].debug_context - 1];

			op->vertex_bytes = sat_add(op->vertex_bytes, (uint64_t)bytes);
		}
	}
	if (rc > 0)
		rc = TSR_OK;
out:
	sqlite3_finalize(st);
	return rc;
}

/* Adds each operation's totals to its parent's, children first: parents
 * have lower ids (checked at load), so one pass from the end suffices.
 * `run` says whether the run figures are totalled too. */
static void total_descendants(tsr_operation *ops, size_t n, bool graph, bool run)
{
	for (size_t i = n; i-- > 0;) {
		const tsr_operation *op = &ops[i];
		tsr_operation *p;

		if (!op->parent || op->parent > i) /* top level (parent < id checked) */
			continue;
		p = &ops[op->parent - 1];
		if (graph) {
			p->variable_bytes = sat_add(p->variable_bytes, op->variable_bytes);
			p->vertex_bytes = sat_add(p->vertex_bytes, op->vertex_bytes);
			p->compute_sets += op->compute_sets;
			p->variables += op->variables;
			p->programs += op->programs;
		}
		if (run) {
			p->cycles = sat_add(p->cycles, op->cycles);
			p->flops = sat_add(p->flops, op->flops);
		}
	}
}

/*
 * Makes the graph-side operations (r->operations_cache): the contexts,
 * what each made with its descendants' added, their memory; checked
 * against debug.cbor when the report has one.
 */
static int build_cache(tsr_report *r, ops_cache **out)
{
	const tsr_program *programs;
	const tsr_compute_set *cs;
	const tsr_variable *vars;
	tsr_operation *ops = NULL;
	ops_cache *cache = NULL;
	size_t n = 0, n_programs, n_cs, n_vars, with_context[3] = {0, 0, 0};
	const char *debug_path = tsr_report_get_debug_info_path(r);
	int rc;

	*out = NULL;
	if ((rc = tsr_report_get_programs(&programs, &n_programs, r)) ||
	    (rc = tsr_report_get_compute_sets(&cs, &n_cs, r)) ||
	    (rc = tsr_report_get_variables(&vars, &n_vars, r)) ||
	    (rc = load_contexts(r, &ops, &n)))
		goto out;
	for (size_t i = 0; i < n_programs; i++) {
		if ((rc = check_context(r, programs[i].debug_context, n, "program", i)))
			goto out;
		if (programs[i].debug_context >= 1) {
			ops[programs[i].debug_context - 1].programs++;
			with_context[0]++;
		}
	}
	for (size_t i = 0; i < n_cs; i++) {
		if ((rc = check_context(r, cs[i].debug_context, n, "compute set", i)))
			goto out;
		if (cs[i].debug_context >= 1) {
			ops[cs[i].debug_context - 1].compute_sets++;
			with_context[1]++;
		}
	}
	for (size_t i = 0; i < n_vars; i++) {
		if ((rc = check_context(r, vars[i].debug_context, n, "variable", i)))
			goto out;
		if (i && vars[i].id <= vars[i - 1].id) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': variable ids are not ascending at %u",
			              r->path, vars[i].id);
			goto out;
		}
		if (vars[i].debug_context >= 1) {
			tsr_operation *op = &ops[vars[i].debug_context - 1];

			op->variables++;
			op->self_variable_bytes = sat_add(op->self_variable_bytes, vars[i].bytes);
			with_context[2]++;
		}
	}
	if ((rc = add_vertex_bytes(r, ops, cs, n_cs)))
		goto out;
	if (debug_path) {
		list_check lc = {programs, n_programs, cs, n_cs, vars, n_vars,
		                 tsr_report_get_info(r)->lowered_vars, 0, 0, 0};

		if ((rc = check_debug_cbor(r, debug_path, ops, n, &lc, with_context)))
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		ops[i].variable_bytes = ops[i].self_variable_bytes;
	total_descendants(ops, n, true, false);
	/* One block, as tsr_report_free releases it with free(). */
	cache = tsr_alloc(r, 1, sizeof(*cache) + n * sizeof(*ops));
	if (!cache) {
		rc = alloc_code(r, 1, sizeof(*cache) + n * sizeof(*ops));
		goto out;
	}
	cache->n = n;
	if (n)
		memcpy(cache->ops, ops, n * sizeof(*ops));
	*out = cache;
out:
	if (ops)
		tsr_free(r, ops, (n ? n : 1) * sizeof(*ops));
	return rc;
}

/*
 * Adds the costs of run `run` to ops (self figures, then totals): each
 * OnTileExecute step's cycles and its compute set's FLOPs go to the
 * compute set's context (the program's when the compute set has none),
 * each exchange step's cycles to its program's context. Sync steps
 * belong to no operation.
 */
static int add_run_costs(tsr_report *r, tsr_operation *ops, size_t n, size_t run)
{
	const tsr_compute_set *cs;
	const tsr_step *steps;
	uint32_t *owner = NULL;
	size_t n_cs, n_steps;
	int rc;

	if ((rc = tsr_report_get_steps(&steps, &n_steps, r, run)) ||
	    (rc = tsr_report_get_compute_sets(&cs, &n_cs, r)))
		return rc;
	owner = tsr_alloc(r, n_steps ? n_steps : 1, sizeof(*owner));
	if (!owner)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_report_fill_step_operations(owner, n_steps, r, run);
	for (size_t i = 0; !rc && i < n_steps; i++) {
		const tsr_step *s = &steps[i];
		uint64_t flops = s->type == TSR_STEP_ON_TILE_EXECUTE && s->compute_set >= 0 &&
		                         (size_t)s->compute_set < n_cs
		                     ? cs[s->compute_set].flops
		                     : 0;

		if (owner[i] < 1 || owner[i] > n)
			continue;
		ops[owner[i] - 1].self_cycles = sat_add(ops[owner[i] - 1].self_cycles, s->cycles);
		ops[owner[i] - 1].self_flops = sat_add(ops[owner[i] - 1].self_flops, flops);
	}
	tsr_free(r, owner, (n_steps ? n_steps : 1) * sizeof(*owner));
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		ops[i].cycles = ops[i].self_cycles;
		ops[i].flops = ops[i].self_flops;
	}
	total_descendants(ops, n, false, true);
	return TSR_OK;
}

/* The rule of tsr_report_fill_step_operations (report.h). */
int tsr_report_fill_step_operations(uint32_t *out, size_t n, tsr_report *report, size_t run)
{
	const tsr_program *programs;
	const tsr_compute_set *cs;
	const tsr_step *steps;
	size_t n_programs, n_cs, n_steps;
	int rc;

	if (!report || !out)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_fill_step_operations: NULL argument")
		              : tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                                   "tsr_report_fill_step_operations: NULL report");
	if ((rc = tsr_report_get_steps(&steps, &n_steps, report, run)) ||
	    (rc = tsr_report_get_programs(&programs, &n_programs, report)) ||
	    (rc = tsr_report_get_compute_sets(&cs, &n_cs, report)))
		return rc;
	if (n < n_steps)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "step operations: %zu entries for %zu steps", n, n_steps);
	for (size_t i = 0; i < n_steps; i++) {
		const tsr_step *s = &steps[i];
		int64_t ctx = -1;

		if (s->program < n_programs) { /* checked on load; kept safe regardless */
			switch (s->type) {
			case TSR_STEP_ON_TILE_EXECUTE:
				if (s->compute_set >= 0 && (size_t)s->compute_set < n_cs)
					ctx = cs[s->compute_set].debug_context;
				if (ctx < 1)
					ctx = programs[s->program].debug_context;
				break;
			case TSR_STEP_DO_EXCHANGE:
			case TSR_STEP_GLOBAL_EXCHANGE:
			case TSR_STEP_STREAM_COPY:
				ctx = programs[s->program].debug_context;
				break;
			default:
				break;
			}
		}
		out[i] = ctx >= 1 && ctx <= UINT32_MAX ? (uint32_t)ctx : 0;
	}
	return TSR_OK;
}

/*
 * Every debug context in id order with what it made and, for run `run`
 * (-1: none), what it cost; totals include descendants. The caller frees
 * *out with free().
 */
int tsr_report_list_operations(tsr_operation **out, size_t *n, tsr_report *report, int64_t run)
{
	ops_cache *cache;
	tsr_operation *ops;
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!report || !out || !n)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_list_operations: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	if (run < -1)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "operations: run %lld", (long long)run);
	if (run >= 0 && (uint64_t)run >= report->counts.runs)
		return tsr_fail(report, report->counts.runs ? TSR_ERR_OUT_OF_RANGE : TSR_ERR_NO_DATA,
		                "operations: run %lld of %zu", (long long)run, report->counts.runs);
	if (!report->operations_cache) {
		rc = build_cache(report, &cache);
		if (rc)
			return rc;
		report->operations_cache = cache;
	}
	cache = report->operations_cache;
	/* Plain malloc (the caller frees with free()); no larger than the
	 * cache, which the cap has admitted. */
	ops = tsb_malloc((cache->n ? cache->n : 1) * sizeof(*ops));
	if (!ops)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "operations: out of host memory");
	if (cache->n)
		memcpy(ops, cache->ops, cache->n * sizeof(*ops));
	if (run >= 0 && (rc = add_run_costs(report, ops, cache->n, (size_t)run))) {
		free(ops);
		return rc;
	}
	*out = ops;
	*n = cache->n;
	return TSR_OK;
}

/* The rule of tsr_operation_get_software_layer (report.h): only the
 * operations library names its layer with an API. */
const char *tsr_operation_get_software_layer(const tsr_operation *op)
{
	if (!op)
		return NULL;
	return op->api && op->layer ? op->layer : "user";
}
