/*
 * Shared in-memory trace databases (trace-private.h: trace_image). A
 * Chrome trace-event JSON file is read into a .pvti database in memory
 * (trace-chrome.c); parsing is most of the cost of opening it. A second
 * handle over the same files (tsr_trace_reopen: the System Analyser's
 * statistics and search handle beside its drawing one) must not parse the
 * file again nor hold a second copy, so the database built by the import
 * is serialized once (sqlite3_serialize) into an image that every handle
 * opens read-only in place (sqlite3_deserialize without FREEONCLOSE, and
 * SQLite's memory-mapped reads over it, so pages are not copied into each
 * connection's cache). The image is reference counted, atomically since
 * handles are freed on whichever thread used them last, and freed with
 * its last handle.
 *
 * Cost: serializing copies the database once while the import's own
 * copy still exists, so the peak during the open is twice the database
 * (about a second of memcpy per few GB); from then on one copy is kept
 * however many handles share it.
 */
#include <tilescope/alloc.h>
#include "trace-private.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct trace_image {
	atomic_uint refs;
	unsigned char *data;       /* sqlite3_serialize's buffer (sqlite3_free) */
	sqlite3_int64 size;        /* bytes */
};

int trace_image_new(tsr_trace *tr, trace_image **out, sqlite3 *db, const char *path)
{
	trace_image *img;
	sqlite3_int64 size = 0;
	unsigned char *data;

	*out = NULL;
	data = sqlite3_serialize(db, "main", &size, 0);
	if (!data || size <= 0) {
		sqlite3_free(data);
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "%s: out of memory keeping the trace",
		                  path);
	}
	img = tsb_malloc(sizeof(*img));
	if (!img) {
		sqlite3_free(data);
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "%s: out of memory", path);
	}
	atomic_init(&img->refs, 1);
	img->data = data;
	img->size = size;
	*out = img;
	return TSR_OK;
}

trace_image *trace_image_ref(trace_image *img)
{
	if (img)
		atomic_fetch_add_explicit(&img->refs, 1, memory_order_relaxed);
	return img;
}

void trace_image_unref(trace_image *img)
{
	if (!img || atomic_fetch_sub_explicit(&img->refs, 1, memory_order_acq_rel) != 1)
		return;
	sqlite3_free(img->data);
	free(img);
}

uint64_t trace_image_size(const trace_image *img)
{
	return img ? (uint64_t)img->size : 0;
}

/*
 * A read-only connection over `img`: an empty database in memory whose
 * main schema is replaced by the image, in place (no copy; SQLite must
 * not free or resize it, so the image outlives the connection: close the
 * connection before dropping the reference). The caller applies the
 * usual lockdown afterwards, as for a file, then trace_image_map.
 */
int trace_image_open(tsr_trace *tr, sqlite3 **db, trace_image *img, const char *path)
{
	int rc;

	*db = NULL;
	rc = sqlite3_open_v2(":memory:", db,
	                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE,
	                     NULL);
	if (rc != SQLITE_OK)
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "%s: cannot make a database in memory", path);
	rc = sqlite3_deserialize(*db, "main", img->data, img->size, img->size,
	                         SQLITE_DESERIALIZE_READONLY);
	if (rc != SQLITE_OK)
		return trace_sql_fail(tr, *db, rc, path);
	return TSR_OK;
}

/*
 * Memory-mapped reads over the image: every page is read where it lies
 * instead of being copied into the connection's cache. The lockdown turns
 * mapping off, rightly for a file another process may truncate; an image
 * is ours and never changes, so it is turned back on for it.
 */
int trace_image_map(tsr_trace *tr, sqlite3 *db, const trace_image *img, const char *path)
{
	char pragma[64];
	int rc;

	snprintf(pragma, sizeof(pragma), "PRAGMA mmap_size = %lld", (long long)img->size);
	rc = sqlite3_exec(db, pragma, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return trace_sql_fail(tr, db, rc, path);
	return TSR_OK;
}
