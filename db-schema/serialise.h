/*
 * The graph and execution profiles as JSON or CBOR documents in exactly
 * the shape of the Poplar user guide's "Profiling" chapter (as
 * poplar::serializeToJSON / serializeToCBOR write them). Both sides write
 * them from the same in-memory profile: the runtime from what it compiled
 * and ran (tsi_graph_profile_serialise), reportlib from what it read back
 * from a profile.pop (tsr_export_*), so the two agree by construction.
 *
 * The in-memory profile is the document model of this library's public
 * headers (include/tilescope/profile-document.h), which the runtime fills
 * and reportlib rebuilds from a file.
 */
#pragma once

#include <stdio.h>

#include <tilescope/profile-document.h>

#include <stddef.h>

typedef enum tsf_doc_format {
	TSF_DOC_JSON = 0, /* UTF-8 text, NUL-terminated (the NUL not counted) */
	TSF_DOC_CBOR      /* RFC 8949 */
} tsf_doc_format;

/* Failures (the same values as TSI_ERR_* and TSR_ERR_* of the same name). */
enum {
	TSF_ERR_INVALID = -1,   /* a profile that contradicts itself, a bad argument */
	TSF_ERR_NO_MEMORY = -2, /* the host ran out of memory */
	TSF_ERR_IO = -16,       /* a write to the stream failed (TSI_ERR_IO) */
};

/* Serialises `gp` into a malloc'd buffer (*out, *out_len) the caller
 * frees. Returns 0 or a TSF_ERR_*; on failure `msg` (msg_size bytes, may
 * be NULL) holds one line saying why. */
int tsf_graph_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                tsf_doc_format format, char *msg, size_t msg_size);
/* The same two documents written to `sink` as they are made: at most a
 * 256 KiB buffer in memory besides the tree (which borrows the profile's
 * arrays), whatever the document's size. A failed write is TSF_ERR_IO
 * ("write failed: No space left on device"); what was written stays. */
int tsf_graph_profile_write(FILE *sink, const tsi_graph_profile *gp, tsf_doc_format format,
                            char *msg, size_t msg_size);
int tsf_execution_profile_write(FILE *sink, const tsi_graph_profile *gp,
                                const tsi_run_profile *const *runs, size_t n_runs,
                                tsf_doc_format format, char *msg, size_t msg_size);
/* The execution profile of runs[0..n_runs) of the engine whose graph
 * profile is `gp` (see tsi_execution_profile_serialise). Same contract. */
int tsf_execution_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                    const tsi_run_profile *const *runs, size_t n_runs,
                                    tsf_doc_format format, char *msg, size_t msg_size);
