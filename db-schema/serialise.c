/*
 * The entry points of the profile documents (serialise.h): check the
 * arguments, build the graph or execution profile as a value tree
 * (serialise-graph.c, serialise-execution.c), write it as JSON or CBOR
 * (serialise-emit.c) into a buffer or a stream, free the tree.
 */
#include "serialise-private.h"

/* The runtime's enumerations are the vocabulary's codes (vocabulary.h). */
_Static_assert((int)TSI_MEM_CATEGORY_COUNT == TSF_MEM_CATEGORY_COUNT &&
                   (int)TSI_MEM_CONSTANT == TSF_MEM_CONSTANT &&
                   (int)TSI_MEM_VERTEX_INSTANCE_STATE == TSF_MEM_VERTEX_INSTANCE_STATE,
               "tsi_mem_category follows the vocabulary");
_Static_assert((int)TSI_REGION_COUNT == TSF_REGION_COUNT, "tsi_mem_region follows the vocabulary");
_Static_assert((int)TSI_LP_TYPE_COUNT == TSF_PROGRAM_TYPE_COUNT && (int)TSI_LP_SYNC == TSF_PROGRAM_SYNC &&
                   (int)TSI_LP_DO_EXCHANGE == TSF_PROGRAM_DO_EXCHANGE &&
                   (int)TSI_LP_WRITE_UNDEF == TSF_PROGRAM_WRITE_UNDEF,
               "tsi_lowered_type follows the vocabulary");
_Static_assert((int)TSI_STEP_TYPE_COUNT == TSF_STEP_TYPE_COUNT && (int)TSI_STEP_SYNC == TSF_STEP_SYNC &&
                   (int)TSI_STEP_COPY_SHARED_STRUCTURE == TSF_STEP_COPY_SHARED_STRUCTURE,
               "tsi_step_type follows the vocabulary");
_Static_assert((int)TSI_SYNC_INTERNAL == TSF_SYNC_INTERNAL && (int)TSI_SYNC_GLOBAL == TSF_SYNC_GLOBAL,
               "tsi_sync_type follows the vocabulary");
_Static_assert((int)TSI_EXCHANGE_KIND_COUNT == TSF_EXCHANGE_KIND_COUNT &&
                   (int)TSI_EXCHANGE_HOST == TSF_EXCHANGE_HOST,
               "tsi_exchange_kind follows the vocabulary");
_Static_assert((int)TSI_PROFILER_MODE_COUNT == TSF_PROFILER_MODE_COUNT,
               "tsi_profiler_mode follows the vocabulary");
_Static_assert((int)TSI_TYPE_COUNT == TSF_DATA_TYPE_COUNT && (int)TSI_BOOL == TSF_DATA_TYPE_COUNT - 1,
               "tsi_type follows the vocabulary");

/* Checks the arguments both entry points share and clears the outputs. */
static int check_args(void **out, size_t *out_len, const tsi_graph_profile *gp,
                      tsf_doc_format format, const sv_msg *msg)
{
	if (msg->text && msg->size)
		msg->text[0] = '\0';
	if (out)
		*out = NULL;
	if (out_len)
		*out_len = 0;
	if (!out || !out_len || !gp)
		return sv_error(msg, TSF_ERR_INVALID, "serialising a profile: NULL output or profile");
	if (format != TSF_DOC_JSON && format != TSF_DOC_CBOR)
		return sv_error(msg, TSF_ERR_INVALID, "serialising a profile: unknown format %d",
		                (int)format);
	return 0;
}

/*
 * Builds the graph profile's document (runs NULL) or the execution
 * profile's, and writes it to a malloc'd buffer (sink NULL) or to `sink`.
 */
static int serialise(void **out, size_t *out_len, FILE *sink, const tsi_graph_profile *gp,
                     const tsi_run_profile *const *runs, size_t n_runs, bool execution,
                     tsf_doc_format format, char *msg, size_t msg_size)
{
	sv_tree t = {NULL, 0, {msg, msg_size}};
	void *unused_out;
	size_t unused_len;
	const sv_node *root;
	int rc = sink ? check_args(&unused_out, &unused_len, gp, format, &t.msg)
	              : check_args(out, out_len, gp, format, &t.msg);

	if (rc)
		goto out;
	root = execution ? sv_build_execution(&t, gp, runs, n_runs) : sv_build_graph(&t, gp);
	rc = t.rc;
	if (rc)
		goto out;
	rc = sink ? sv_emit_to(sink, root, format, t.msg) : sv_emit(out, out_len, root, format, t.msg);
out:
	sv_tree_free(&t);
	return rc;
}

int tsf_graph_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                tsf_doc_format format, char *msg, size_t msg_size)
{
	return serialise(out, out_len, NULL, gp, NULL, 0, false, format, msg, msg_size);
}

int tsf_execution_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                    const tsi_run_profile *const *runs, size_t n_runs,
                                    tsf_doc_format format, char *msg, size_t msg_size)
{
	return serialise(out, out_len, NULL, gp, runs, n_runs, true, format, msg, msg_size);
}

int tsf_graph_profile_write(FILE *sink, const tsi_graph_profile *gp, tsf_doc_format format,
                            char *msg, size_t msg_size)
{
	if (!sink)
		return sv_error(&(sv_msg){msg, msg_size}, TSF_ERR_INVALID, "serialising: NULL stream");
	return serialise(NULL, NULL, sink, gp, NULL, 0, false, format, msg, msg_size);
}

int tsf_execution_profile_write(FILE *sink, const tsi_graph_profile *gp,
                                const tsi_run_profile *const *runs, size_t n_runs,
                                tsf_doc_format format, char *msg, size_t msg_size)
{
	if (!sink)
		return sv_error(&(sv_msg){msg, msg_size}, TSF_ERR_INVALID, "serialising: NULL stream");
	return serialise(NULL, NULL, sink, gp, runs, n_runs, true, format, msg, msg_size);
}
