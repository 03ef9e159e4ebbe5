/*
 * tsi_graph_profile_serialise / tsi_execution_profile_serialise: the
 * runtime's entry points to the guide-shaped documents, which the format
 * library writes (db-schema/serialise.c) for the runtime and reportlib
 * alike. Here only the runtime's error convention is added.
 */
#include "../ipu-private.h"
#include "tilescope/serialise.h"

#include "serialise.h" /* db-schema/ */

/* The format's code as the runtime's, with its message kept. */
static int fail(int rc, const char *msg)
{
	return tsi_set_error(rc == TSF_ERR_NO_MEMORY ? TSI_ERR_NO_MEMORY : TSI_ERR_INVALID_ARGUMENT,
	                     "%s", msg);
}

/* The document format of the runtime's enumeration; -1 for none. */
static int doc_format(tsi_serial_format format)
{
	switch (format) {
	case TSI_SERIAL_JSON:
		return TSF_DOC_JSON;
	case TSI_SERIAL_CBOR:
		return TSF_DOC_CBOR;
	}
	return -1;
}

TSI_API int tsi_graph_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                        tsi_serial_format format)
{
	char msg[256];
	int rc = tsf_graph_profile_serialise(out, out_len, gp, (tsf_doc_format)doc_format(format),
	                                     msg, sizeof(msg));

	return rc ? fail(rc, msg) : TSI_OK;
}

TSI_API int tsi_execution_profile_serialise(void **out, size_t *out_len,
                                            const tsi_graph_profile *gp,
                                            const tsi_run_profile *const *runs, size_t n_runs,
                                            tsi_serial_format format)
{
	char msg[256];
	int rc = tsf_execution_profile_serialise(out, out_len, gp, runs, n_runs,
	                                         (tsf_doc_format)doc_format(format), msg,
	                                         sizeof(msg));

	return rc ? fail(rc, msg) : TSI_OK;
}
