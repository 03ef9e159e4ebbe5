/*
 * The history store's report hash: a run is known by its commit, label
 * and the SHA-256 of its profile.pop's bytes (or of its trace files'), so
 * that adding or merging one twice keeps one copy. The digest is
 * libtilescope-base's (tilescope/sha256.h); this reads the files into it.
 */
#include "history-private.h"

#include <tilescope/sha256.h>

#include <errno.h>
#include <stdio.h>

int tsr_history_sha256_files(char hex[65], const char *const *paths, size_t n)
{
	unsigned char buf[65536], digest[TSB_SHA256_LEN];
	tsb_sha256_ctx s;

	tsb_sha256_init(&s);
	for (size_t i = 0; i < n; i++) {
		FILE *f = fopen(paths[i], "rb");
		size_t got;
		int err;

		if (!f)
			return -1;
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
			tsb_sha256_update(&s, buf, got);
		err = ferror(f) ? (errno ? errno : EIO) : 0;
		fclose(f);
		if (err) {
			errno = err;
			return -1;
		}
	}
	tsb_sha256_final(&s, digest);
	tsb_sha256_hex(digest, hex);
	return 0;
}

int tsr_history_sha256_file(char hex[65], const char *path)
{
	return tsr_history_sha256_files(hex, &path, 1);
}
