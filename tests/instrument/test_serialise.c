/*
 * Unit tests of tilescope/serialise.h: tutorial 3's model (SumVertex, one
 * compute set of four vertices on tiles 0..3 of an 8-tile IPU) is built,
 * compiled and run twice through the public API; its graph and execution
 * profiles are serialised as JSON and CBOR and read back. JSON must hold
 * every key the user guide's profiling chapter lists, with the values of
 * the in-memory profile; CBOR, decoded and converted to cJSON, must equal
 * the JSON. A hand-made profile checks integers above 2^53, non-UTF-8
 * names and inconsistent input; NULL arguments are refused.
 */
#include "test-util.h"

#include <cJSON.h>
#include <cbor.h>
#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>
#include <tilescope/serialise.h>

#define NUM_TILES 8

/* --- Tutorial 3's model ------------------------------------------------------- */

/* SumVertex: *out = sum of in. */
static bool sum_vertex_compute(const tsi_field *fields, size_t n_fields)
{
	const float *in = fields[0].data;
	float *out = fields[1].data;

	if (n_fields != 2)
		return false;
	*out = 0;
	for (size_t i = 0; i < fields[0].count; i++)
		*out += in[i];
	return true;
}

static const tsi_field_def sum_vertex_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

static const tsi_codelet sum_vertex = {
	.name = "SumVertex",
	.fields = sum_vertex_fields,
	.n_fields = 2,
	.compute = sum_vertex_compute,
	.state_bytes = 12,
	.code_bytes = 64,
};

/* Tutorial 3 on one IPU of NUM_TILES tiles: v1 <- c1, then vertex i sums
 * v1[i..4) into v2[i] on tile i (cycle estimate 20), then v2 is printed
 * (a host exchange). Compiled with `opts` (may be NULL) and run twice. */
static void tut3_run(tsi_test_model *m, const tsi_options *opts, tsi_test_capture *cap)
{
	const float c1_values[4] = {1.0f, 1.5f, 2.0f, 2.5f};
	tsi_tensor *v1, *v2, *c1;
	tsi_compute_set *cs;
	tsi_program *prog;
	float v2_out[4];

	tsi_test_model_init(m, 1, NUM_TILES, 1);
	assert_int_equal(tsi_graph_add_codelet(m->graph, &sum_vertex), TSI_OK);
	v1 = tsi_graph_add_variable(m->graph, TSI_FLOAT, TSI_SHAPE(4), "v1");
	v2 = tsi_graph_add_variable(m->graph, TSI_FLOAT, TSI_SHAPE(4), "v2");
	assert_non_null(v1);
	assert_non_null(v2);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(tsi_graph_set_tile_mapping(m->graph, tsi_tensor_index(v1, i), (unsigned)i),
		                 TSI_OK);
		assert_int_equal(tsi_graph_set_tile_mapping(m->graph, tsi_tensor_index(v2, i), (unsigned)i),
		                 TSI_OK);
	}
	assert_int_equal(tsi_graph_create_host_read(m->graph, "v2", v2), TSI_OK);
	prog = tsi_prog_sequence(m->graph, "prog");
	c1 = tsi_graph_add_constant_float(m->graph, TSI_FLOAT, TSI_SHAPE(4), c1_values, "c1");
	assert_non_null(prog);
	assert_non_null(c1);
	assert_int_equal(tsi_graph_set_tile_mapping(m->graph, c1, 0), TSI_OK);
	assert_int_equal(tsi_sequence_add(prog, tsi_prog_copy(m->graph, c1, v1)), TSI_OK);
	cs = tsi_graph_add_compute_set(m->graph, "computeSet");
	assert_non_null(cs);
	for (size_t i = 0; i < 4; i++) {
		tsi_vertex *vtx = tsi_graph_add_vertex(m->graph, cs, "SumVertex");

		assert_non_null(vtx);
		assert_int_equal(tsi_graph_connect(m->graph, vtx, "in", tsi_tensor_slice(v1, i, 4)),
		                 TSI_OK);
		assert_int_equal(tsi_graph_connect(m->graph, vtx, "out", tsi_tensor_index(v2, i)),
		                 TSI_OK);
		assert_int_equal(tsi_graph_set_vertex_tile(m->graph, vtx, (unsigned)i), TSI_OK);
		assert_int_equal(tsi_graph_set_cycle_estimate(m->graph, vtx, 20), TSI_OK);
	}
	assert_int_equal(tsi_sequence_add(prog, tsi_prog_execute(m->graph, cs)), TSI_OK);
	assert_int_equal(tsi_sequence_add(prog, tsi_prog_print_tensor(m->graph, "v2", v2)), TSI_OK);

	tsi_test_model_load(m, &prog, 1, opts);
	tsi_engine_set_print_stream(m->engine, cap->file);
	tsi_test_run(m->engine, 0);
	tsi_test_run(m->engine, 0);
	/* The model really ran: the tutorial's result. */
	assert_int_equal(tsi_engine_read_tensor(m->engine, "v2", v2_out, sizeof(v2_out)), TSI_OK);
	assert_close(v2_out[0], 7.0, 1e-6);
	assert_close(v2_out[3], 2.5, 1e-6);
}

/* --- Reading the output ----------------------------------------------------------- */

/* The JSON of `gp` (runs == NULL and n_runs == 0 with graph = true: the
 * graph profile), parsed; checks the length and the terminating NUL. */
static cJSON *to_json(const tsi_graph_profile *gp, bool graph, const tsi_run_profile *const *runs,
                      size_t n_runs, char **text_out)
{
	void *buf = NULL;
	size_t len = 0;
	cJSON *root;

	if (graph)
		assert_int_equal(tsi_graph_profile_serialise(&buf, &len, gp, TSI_SERIAL_JSON), TSI_OK);
	else
		assert_int_equal(tsi_execution_profile_serialise(&buf, &len, gp, runs, n_runs,
		                                                 TSI_SERIAL_JSON),
		                 TSI_OK);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	root = cJSON_ParseWithLength(buf, len);
	assert_non_null(root);
	if (text_out)
		*text_out = buf;
	else
		free(buf);
	return root;
}

/* A decoded CBOR item as cJSON: integers and floats become numbers. */
static cJSON *cbor_to_cjson(const cbor_item_t *item)
{
	cJSON *out = NULL;

	switch (cbor_typeof(item)) {
	case CBOR_TYPE_UINT:
		return cJSON_CreateNumber((double)cbor_get_int(item));
	case CBOR_TYPE_NEGINT:
		return cJSON_CreateNumber(-1.0 - (double)cbor_get_int(item));
	case CBOR_TYPE_STRING: {
		size_t n = cbor_string_length(item);
		char *s;

		assert_true(cbor_string_is_definite(item));
		s = malloc(n + 1);
		assert_non_null(s);
		memcpy(s, cbor_string_handle(item), n);
		s[n] = '\0';
		out = cJSON_CreateString(s);
		free(s);
		return out;
	}
	case CBOR_TYPE_ARRAY:
		out = cJSON_CreateArray();
		for (size_t i = 0; i < cbor_array_size(item); i++) {
			cbor_item_t *el = cbor_array_get(item, i);

			cJSON_AddItemToArray(out, cbor_to_cjson(el));
			cbor_decref(&el);
		}
		return out;
	case CBOR_TYPE_MAP: {
		struct cbor_pair *pairs = cbor_map_handle(item);

		out = cJSON_CreateObject();
		for (size_t i = 0; i < cbor_map_size(item); i++) {
			size_t n = cbor_string_length(pairs[i].key);
			char *key = malloc(n + 1);

			assert_true(cbor_isa_string(pairs[i].key));
			assert_non_null(key);
			memcpy(key, cbor_string_handle(pairs[i].key), n);
			key[n] = '\0';
			cJSON_AddItemToObject(out, key, cbor_to_cjson(pairs[i].value));
			free(key);
		}
		return out;
	}
	case CBOR_TYPE_FLOAT_CTRL:
		if (cbor_float_ctrl_is_ctrl(item)) {
			if (cbor_is_null(item))
				return cJSON_CreateNull();
			assert_true(cbor_is_bool(item));
			return cJSON_CreateBool(cbor_get_bool(item));
		}
		assert_true(cbor_float_get_width(item) == CBOR_FLOAT_64);
		return cJSON_CreateNumber(cbor_float_get_float(item));
	default:
		fail_msg("unexpected CBOR item type %d", (int)cbor_typeof(item));
	}
	return NULL;
}

/* The CBOR of the same profile, decoded with cbor_load (whole buffer
 * used); the caller cbor_decref()s it. */
static cbor_item_t *to_cbor(const tsi_graph_profile *gp, bool graph,
                            const tsi_run_profile *const *runs, size_t n_runs)
{
	struct cbor_load_result res;
	cbor_item_t *item;
	void *buf = NULL;
	size_t len = 0;

	if (graph)
		assert_int_equal(tsi_graph_profile_serialise(&buf, &len, gp, TSI_SERIAL_CBOR), TSI_OK);
	else
		assert_int_equal(tsi_execution_profile_serialise(&buf, &len, gp, runs, n_runs,
		                                                 TSI_SERIAL_CBOR),
		                 TSI_OK);
	assert_non_null(buf);
	item = cbor_load(buf, len, &res);
	assert_int_equal(res.error.code, CBOR_ERR_NONE);
	assert_non_null(item);
	assert_int_equal(res.read, len);
	free(buf);
	return item;
}

/* CBOR and JSON of the same profile hold the same tree. */
static void assert_cbor_equals_json(const tsi_graph_profile *gp, bool graph,
                                    const tsi_run_profile *const *runs, size_t n_runs,
                                    const cJSON *json)
{
	cbor_item_t *item = to_cbor(gp, graph, runs, n_runs);
	cJSON *converted = cbor_to_cjson(item);

	assert_non_null(converted);
	assert_true(cJSON_Compare(json, converted, true));
	cJSON_Delete(converted);
	cbor_decref(&item);
}

/* The item at a dotted path ("memory.byTile.total"); fails when absent. */
static const cJSON *at(const cJSON *root, const char *path)
{
	char buf[256], *save = NULL;
	const cJSON *node = root;

	assert_true(strlen(path) < sizeof(buf));
	strcpy(buf, path);
	for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		node = cJSON_GetObjectItemCaseSensitive(node, part);
		if (!node)
			fail_msg("missing key \"%s\" of %s", part, path);
	}
	return node;
}

/* An integer of the JSON (exact below 2^53, which tut3's values are). */
static uint64_t num(const cJSON *item)
{
	assert_true(cJSON_IsNumber(item));
	return (uint64_t)item->valuedouble;
}

static uint64_t num_at(const cJSON *root, const char *path)
{
	return num(at(root, path));
}

/* A dense per-tile array: n entries equal to `tv` by tile. */
static void assert_tiles_n(const cJSON *arr, const tsi_tile_values *tv, int n)
{
	assert_true(cJSON_IsArray(arr));
	assert_int_equal(cJSON_GetArraySize(arr), n);
	for (int t = 0; t < n; t++)
		assert_int_equal(num(cJSON_GetArrayItem(arr, t)), tsi_tile_values_get(tv, (uint32_t)t));
}

static void assert_tiles(const cJSON *arr, const tsi_tile_values *tv)
{
	assert_tiles_n(arr, tv, NUM_TILES);
}

/* Index of the compute set or vertex type called `name` in a "names" array. */
static int name_index(const cJSON *names, const char *name)
{
	for (int i = 0; i < cJSON_GetArraySize(names); i++)
		if (strcmp(cJSON_GetArrayItem(names, i)->valuestring, name) == 0)
			return i;
	fail_msg("no \"%s\"", name);
	return -1;
}

/* --- The guide's keys ---------------------------------------------------------------- */

/* Every key the user guide lists for the graph profile. */
static const char *const graph_keys[] = {
	"target.type", "target.bytesPerIPU", "target.bytesPerTile", "target.clockFrequency",
	"target.numIPUs", "target.tilesPerIPU", "target.numTiles", "target.totalMemory",
	"target.relativeSyncDelayByTile", "target.minSyncDelay",
	"optimizationInfo",
	"graph.numComputeSets", "graph.numEdges", "graph.numVars", "graph.numVertices",
	"vertexTypes.names", "vertexTypes.sizes",
	"computeSets.names", "computeSets.vertexCounts", "computeSets.vertexTypes",
	"computeSets.cycleEstimates.activeCyclesByTile",
	"computeSets.cycleEstimates.activeCyclesByVertexType",
	"computeSets.cycleEstimates.cyclesByTile",
	"exchanges.bytesReceivedByTile", "exchanges.bytesSentByTile", "exchanges.cyclesByTile",
	"externalExchanges.bytesReceivedByTile", "externalExchanges.bytesSentByTile",
	"externalExchanges.estimatedCyclesByTile",
	"hostExchanges.bytesReceivedByTile", "hostExchanges.bytesSentByTile",
	"hostExchanges.estimatedCyclesByTile",
	"programs", "controlPrograms", "functionPrograms",
	"memory.byTile.interleaved", "memory.byTile.interleavedIncludingGaps",
	"memory.byTile.nonInterleaved", "memory.byTile.nonInterleavedIncludingGaps",
	"memory.byTile.overflowed", "memory.byTile.overflowedIncludingGaps",
	"memory.byTile.total", "memory.byTile.totalIncludingGaps",
	"memory.byComputeSet.codeBytes", "memory.byComputeSet.copyPtrBytes",
	"memory.byComputeSet.descriptorBytes", "memory.byComputeSet.edgePtrBytes",
	"memory.byComputeSet.paddingBytes", "memory.byComputeSet.vertexDataBytes",
	"memory.byComputeSet.totalBytes",
	"memory.byVertexType.codeBytes", "memory.byVertexType.copyPtrBytes",
	"memory.byVertexType.descriptorBytes", "memory.byVertexType.edgePtrBytes",
	"memory.byVertexType.paddingBytes", "memory.byVertexType.vertexDataBytes",
	"memory.byVertexType.totalBytes",
	/* liveness, as Poplar's own profiles name it */
	"memory.liveness.alwaysLive.bytesByTile", "memory.liveness.notAlwaysLive.maxBytesByTile",
};

/* The guide's list of memory categories, in its order. */
static const char *const categories[] = {
	"constant", "controlCode", "controlId", "controlTable", "copyDescriptor",
	"globalExchangeCode", "globalExchangePacketHeader", "globalMessage", "hostExchangeCode",
	"hostExchangePacketHeader", "hostMessage", "instrumentationResults",
	"internalExchangeCode", "message", "multiple", "outputEdge", "rearrangement",
	"sharedCodeStorage", "sharedDataStorage", "stack", "variable", "vectorListDescriptor",
	"vertexCode", "vertexFieldData", "vertexInstanceState",
};

/* Every key the guide lists for the execution profile (all modes). */
static const char *const execution_keys[] = {
	"profilerMode", "programTrace", "simulation.cycles", "simulation.steps",
	"simulation.tileCycles.activeCompute", "simulation.tileCycles.compute",
	"simulation.tileCycles.copySharedStructure", "simulation.tileCycles.doExchange",
	"simulation.tileCycles.globalExchange", "simulation.tileCycles.streamCopy",
	"simulation.tileCycles.sync",
};

static const char *const instruction_keys[] = {
	"delay", "exchange", "other", "receiveAddress", "receiveFormat", "receiveMux", "send",
	"sendWithPutAddress", "sendWithPutFormat", "sendWithPutMux", "total",
};

/* --- Tests ---------------------------------------------------------------------------------- */

/* The graph profile as JSON: the guide's keys, the profile's values. */
static void test_graph_json(void **state)
{
	static const char *const regions[] = {"interleaved", "nonInterleaved", "overflowed"};
	tsi_test_capture cap;
	tsi_test_model m;
	const tsi_graph_profile *gp;
	const cJSON *names, *cycles, *by_cat, *programs;
	cJSON *root;
	int cs, vt;

	(void)state;
	tsi_test_capture_open(&cap);
	tut3_run(&m, NULL, &cap);
	gp = tsi_engine_get_graph_profile(m.engine);
	root = to_json(gp, true, NULL, 0, NULL);

	for (size_t i = 0; i < sizeof(graph_keys) / sizeof(graph_keys[0]); i++)
		(void)at(root, graph_keys[i]);
	for (size_t c = 0; c < sizeof(categories) / sizeof(categories[0]); c++) {
		char path[160];

		for (size_t r = 0; r < 3; r++) {
			snprintf(path, sizeof(path), "memory.byCategory.%s.%s.nonOverlapped", categories[c],
			         regions[r]);
			assert_int_equal(cJSON_GetArraySize(at(root, path)), NUM_TILES);
			snprintf(path, sizeof(path), "memory.byCategory.%s.%s.overlapped", categories[c],
			         regions[r]);
			assert_int_equal(cJSON_GetArraySize(at(root, path)), NUM_TILES);
		}
		snprintf(path, sizeof(path), "memory.byCategory.%s.total", categories[c]);
		assert_int_equal(cJSON_GetArraySize(at(root, path)), NUM_TILES);
	}

	/* target and graph */
	assert_string_equal(at(root, "target.type")->valuestring, "IPU_MODEL");
	assert_int_equal(num_at(root, "target.numTiles"), NUM_TILES);
	assert_int_equal(num_at(root, "target.tilesPerIPU"), NUM_TILES);
	assert_int_equal(num_at(root, "target.bytesPerTile"), gp->target.bytes_per_tile);
	assert_int_equal(num_at(root, "target.totalMemory"), gp->target.bytes_per_tile * NUM_TILES);
	assert_int_equal(num_at(root, "target.clockFrequency"), gp->target.clock_hz);
	assert_int_equal(num_at(root, "target.minSyncDelay"), gp->min_sync_delay);
	assert_int_equal(cJSON_GetArraySize(at(root, "target.relativeSyncDelayByTile")), NUM_TILES);
	assert_int_equal(num_at(root, "graph.numVertices"), gp->num_vertices);
	assert_int_equal(num_at(root, "graph.numVars"), gp->num_vars);
	assert_int_equal(num_at(root, "graph.numEdges"), gp->num_edges);
	assert_int_equal(num_at(root, "graph.numComputeSets"), gp->num_compute_sets);

	/* vertex types and the compute set */
	names = at(root, "vertexTypes.names");
	assert_int_equal(cJSON_GetArraySize(names), gp->n_vertex_types);
	vt = name_index(names, "SumVertex");
	assert_int_equal(num(cJSON_GetArrayItem(at(root, "vertexTypes.sizes"), vt)), 12);
	names = at(root, "computeSets.names");
	assert_int_equal(cJSON_GetArraySize(names), gp->n_compute_sets);
	cs = name_index(names, "computeSet");
	assert_int_equal(num(cJSON_GetArrayItem(cJSON_GetArrayItem(at(root, "computeSets.vertexCounts"),
	                                                           cs), 0)), 4);
	assert_int_equal(num(cJSON_GetArrayItem(cJSON_GetArrayItem(at(root, "computeSets.vertexTypes"),
	                                                           cs), 0)), vt);
	cycles = cJSON_GetArrayItem(at(root, "computeSets.cycleEstimates.cyclesByTile"), cs);
	assert_tiles(cycles, &gp->compute_sets[cs].cycles_by_tile);
	assert_true(num(cJSON_GetArrayItem(cycles, 3)) > 0);  /* vertex 3 ran there */
	assert_int_equal(num(cJSON_GetArrayItem(cycles, 4)), 0); /* dense: tiles 4..7 zero */
	assert_tiles(cJSON_GetArrayItem(at(root, "computeSets.cycleEstimates.activeCyclesByTile"), cs),
	             &gp->compute_sets[cs].active_cycles_by_tile);
	{
		const cJSON *by_type = cJSON_GetArrayItem(
		    at(root, "computeSets.cycleEstimates.activeCyclesByVertexType"), cs);

		assert_int_equal(cJSON_GetArraySize(by_type), gp->n_vertex_types);
		assert_int_equal(num(cJSON_GetArrayItem(by_type, vt)),
		                 gp->compute_sets[cs].active_cycles_by_type[0]);
		assert_true(gp->compute_sets[cs].active_cycles_by_type[0] >= 4 * 20);
	}
	for (size_t k = 0; k < gp->n_exchanges[TSI_EXCHANGE_INTERNAL]; k++)
		assert_tiles(cJSON_GetArrayItem(at(root, "exchanges.bytesReceivedByTile"), (int)k),
		             &gp->exchanges[TSI_EXCHANGE_INTERNAL][k].bytes_received);
	assert_true(gp->n_exchanges[TSI_EXCHANGE_HOST] > 0); /* the PrintTensor */
	for (size_t k = 0; k < gp->n_exchanges[TSI_EXCHANGE_HOST]; k++)
		assert_tiles(cJSON_GetArrayItem(at(root, "hostExchanges.estimatedCyclesByTile"), (int)k),
		             &gp->exchanges[TSI_EXCHANGE_HOST][k].cycles);

	/* programs */
	programs = at(root, "programs");
	assert_int_equal(cJSON_GetArraySize(programs), gp->n_programs);
	for (size_t p = 0; p < gp->n_programs; p++) {
		const tsi_lowered_program *lp = &gp->programs[p];
		const cJSON *entry = cJSON_GetArrayItem(programs, (int)p);

		assert_string_equal(at(entry, "type")->valuestring, tsi_lowered_type_name(lp->type));
		if (lp->type == TSI_LP_SEQUENCE)
			assert_int_equal(cJSON_GetArraySize(at(entry, "children")), lp->n_children);
		if (lp->type == TSI_LP_ON_TILE_EXECUTE)
			assert_int_equal(num_at(entry, "computeSet"), lp->compute_set);
		if (lp->type == TSI_LP_DO_EXCHANGE || lp->type == TSI_LP_STREAM_COPY) {
			assert_int_equal(num_at(entry, "exchange"), lp->exchange);
			for (size_t k = 0; k < sizeof(instruction_keys) / sizeof(instruction_keys[0]); k++)
				(void)at(at(entry, "memoryByInstruction"), instruction_keys[k]);
			assert_int_equal(num_at(entry, "memoryByInstruction.total"),
			                 lp->memory_by_instruction.total);
		}
	}
	assert_int_equal(cJSON_GetArraySize(at(root, "controlPrograms")), gp->n_control_programs);
	assert_int_equal(num(cJSON_GetArrayItem(at(root, "controlPrograms"), 0)),
	                 gp->control_programs[0]);

	/* memory: byTile, every byCategory cell and its total, byComputeSet */
	for (int t = 0; t < NUM_TILES; t++) {
		assert_int_equal(num(cJSON_GetArrayItem(at(root, "memory.byTile.total"), t)),
		                 gp->by_tile[t].total);
		assert_int_equal(num(cJSON_GetArrayItem(at(root, "memory.byTile.totalIncludingGaps"), t)),
		                 gp->by_tile[t].total_including_gaps);
		assert_int_equal(num(cJSON_GetArrayItem(at(root, "memory.byTile.nonInterleaved"), t)),
		                 gp->by_tile[t].region[TSI_REGION_NON_INTERLEAVED]);
	}
	assert_true(gp->by_tile[0].total > 0);
	by_cat = at(root, "memory.byCategory");
	for (int c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
		const cJSON *cat = at(by_cat, categories[c]);

		for (int t = 0; t < NUM_TILES; t++) {
			uint64_t total = 0;

			for (int r = 0; r < TSI_REGION_COUNT; r++) {
				for (int ov = 0; ov < 2; ov++) {
					uint64_t want = tsi_graph_profile_category(gp, (tsi_mem_category)c,
					                                           (tsi_mem_region)r, ov, (uint32_t)t);
					const cJSON *cells = at(at(cat, regions[r]), ov ? "overlapped" : "nonOverlapped");

					assert_int_equal(num(cJSON_GetArrayItem(cells, t)), want);
					total += want;
				}
			}
			assert_int_equal(num(cJSON_GetArrayItem(at(cat, "total"), t)), total);
		}
	}
	assert_true(num(cJSON_GetArrayItem(at(by_cat, "stack.nonInterleaved.nonOverlapped"), 5)) > 0);
	assert_tiles(cJSON_GetArrayItem(at(root, "memory.byComputeSet.totalBytes"), cs),
	             &gp->by_compute_set[cs].total_bytes);
	assert_tiles(cJSON_GetArrayItem(at(root, "memory.byVertexType.vertexDataBytes"), vt),
	             &gp->by_vertex_type[vt].vertex_data_bytes);

	/* liveness: always-live bytes add up; the per-tile peak of the
	 * not-always-live bytes equals a brute-force count over the steps */
	{
		const cJSON *al = at(root, "memory.liveness.alwaysLive.bytesByTile");
		const cJSON *peak = at(root, "memory.liveness.notAlwaysLive.maxBytesByTile");
		const cJSON *by_step = at(root, "memory.liveness.notAlwaysLive.bytesByStep");
		uint64_t sum = 0;

		for (int t = 0; t < NUM_TILES; t++)
			sum += num(cJSON_GetArrayItem(al, t));
		assert_int_equal(sum, gp->always_live_bytes);
		assert_int_equal(num_at(root, "memory.liveness.alwaysLive.bytes"), gp->always_live_bytes);
		assert_int_equal(cJSON_GetArraySize(by_step), gp->n_liveness);
		for (size_t s = 0; s < gp->n_liveness; s++)
			assert_int_equal(num(cJSON_GetArrayItem(by_step, (int)s)),
			                 gp->liveness[s].not_always_live_bytes);
		for (uint32_t t = 0; t < NUM_TILES; t++) {
			uint64_t best = 0;

			for (uint32_t s = 0; s < gp->n_liveness; s++) {
				uint64_t live = 0;

				for (size_t v = 0; v < gp->n_variables; v++) {
					const tsi_variable_profile *var = &gp->variables[v];

					if (!var->always_live && var->live_from != UINT32_MAX &&
					    var->live_from <= s && s <= var->live_to)
						live += tsi_tile_values_get(&var->bytes_by_tile, t);
				}
				if (live > best)
					best = live;
			}
			assert_int_equal(num(cJSON_GetArrayItem(peak, (int)t)), best);
		}
		assert_int_equal(cJSON_GetArraySize(at(root, "memory.liveness.steps.parent")),
		                 gp->n_liveness);
	}

	/* Tilescope's additions */
	assert_int_equal(cJSON_GetArraySize(at(root, "variables")), gp->n_variables);
	for (size_t v = 0; v < gp->n_variables; v++)
		assert_string_equal(at(cJSON_GetArrayItem(at(root, "variables"), (int)v), "name")->valuestring,
		                    gp->variables[v].name);
	assert_int_equal(num(cJSON_GetArrayItem(at(root, "vertexTypes.flops"), vt)),
	                 gp->vertex_types[vt].flops);
	assert_int_equal(cJSON_GetArraySize(at(root, "debugContexts")), gp->n_debug_contexts);

	cJSON_Delete(root);
	tsi_test_model_free(&m);
	tsi_test_capture_close(&cap);
}

/* The guide's keys of one execution step, by type. */
static void assert_step_keys(const cJSON *step, const tsi_step *st)
{
	static const char *const common[] = {"type", "program", "tileBalance", "activeTiles",
	                                     "activeTileBalance", "cycles", "cyclesFrom", "cyclesTo"};

	if (st->type == TSI_STEP_SYNC) {
		assert_string_equal(at(step, "syncType")->valuestring,
		                    st->sync_type == TSI_SYNC_INTERNAL ? "Internal" : "External");
		return;
	}
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		(void)at(step, common[i]);
	switch (st->type) {
	case TSI_STEP_ON_TILE_EXECUTE:
		(void)at(step, "threadBalance");
		(void)at(step, "cyclesOverlapped");
		assert_int_equal(num_at(step, "computeSet"), st->compute_set);
		break;
	case TSI_STEP_DO_EXCHANGE:
		(void)at(step, "cyclesOverlapped");
		assert_int_equal(num_at(step, "exchange"), st->exchange);
		(void)at(step, "dataBalance");
		assert_int_equal(num_at(step, "totalData"), st->total_data);
		break;
	case TSI_STEP_STREAM_COPY:
		assert_int_equal(num_at(step, "hostExchange"), st->exchange);
		(void)at(step, "dataBalance");
		assert_int_equal(num_at(step, "totalData"), st->total_data);
		break;
	default:
		break;
	}
}

/* The execution profile of both runs as JSON: trace joined, steps on one
 * cycle axis, totals summed. */
static void test_execution_json(void **state)
{
	tsi_test_capture cap;
	tsi_test_model m;
	const tsi_graph_profile *gp;
	const tsi_run_profile *runs[2];
	const cJSON *trace, *steps;
	cJSON *root;
	size_t k = 0, n_steps = 0;

	(void)state;
	tsi_test_capture_open(&cap);
	tut3_run(&m, NULL, &cap);
	gp = tsi_engine_get_graph_profile(m.engine);
	assert_int_equal(tsi_engine_num_run_profiles(m.engine), 2);
	runs[0] = tsi_engine_get_run_profile(m.engine, 0);
	runs[1] = tsi_engine_get_run_profile(m.engine, 1);
	root = to_json(gp, false, runs, 2, NULL);

	for (size_t i = 0; i < sizeof(execution_keys) / sizeof(execution_keys[0]); i++)
		(void)at(root, execution_keys[i]);
	assert_string_equal(at(root, "profilerMode")->valuestring, "IPU_MODEL");
	trace = at(root, "programTrace");
	assert_int_equal(cJSON_GetArraySize(trace), runs[0]->n_trace + runs[1]->n_trace);
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < runs[r]->n_trace; i++)
			assert_int_equal(num(cJSON_GetArrayItem(trace, (int)k++)), runs[r]->program_trace[i]);
	assert_int_equal(num_at(root, "simulation.cycles"), runs[0]->cycles + runs[1]->cycles);
	assert_true(runs[0]->cycles > 0);
	assert_int_equal(num_at(root, "simulation.tileCycles.compute"),
	                 runs[0]->tile_cycles.compute + runs[1]->tile_cycles.compute);
	assert_int_equal(num_at(root, "simulation.tileCycles.sync"),
	                 runs[0]->tile_cycles.sync + runs[1]->tile_cycles.sync);
	assert_int_equal(num_at(root, "simulation.tileCycles.streamCopy"),
	                 runs[0]->tile_cycles.stream_copy + runs[1]->tile_cycles.stream_copy);

	steps = at(root, "simulation.steps");
	assert_int_equal(cJSON_GetArraySize(steps), runs[0]->n_steps + runs[1]->n_steps);
	k = 0;
	for (int r = 0; r < 2; r++) {
		uint64_t offset = r ? runs[0]->cycles : 0;

		for (size_t s = 0; s < runs[r]->n_steps; s++) {
			const tsi_step *st = &runs[r]->steps[s];
			const cJSON *step = cJSON_GetArrayItem(steps, (int)k++);

			assert_string_equal(at(step, "type")->valuestring, tsi_step_type_name(st->type));
			assert_step_keys(step, st);
			assert_int_equal(num_at(step, "cycles"), st->cycles);
			assert_int_equal(num_at(step, "cyclesFrom"), st->cycles_from + offset);
			assert_int_equal(num_at(step, "cyclesTo"), st->cycles_to + offset);
			if (st->type == TSI_STEP_ON_TILE_EXECUTE)
				assert_close(at(step, "tileBalance")->valuedouble, st->tile_balance, 1e-12);
		}
		n_steps += runs[r]->n_steps;
	}
	assert_true(n_steps >= 4); /* exchange, compute, sync, stream copy ... per run */
	assert_int_equal(num_at(cJSON_GetArrayItem(at(root, "runs"), 1), "cyclesFrom"),
	                 runs[0]->cycles);
	assert_int_equal(num_at(cJSON_GetArrayItem(at(root, "runs"), 1), "stepsStart"),
	                 runs[0]->n_steps);

	cJSON_Delete(root);
	/* No runs: an empty trace, zero cycles. */
	root = to_json(gp, false, NULL, 0, NULL);
	assert_int_equal(cJSON_GetArraySize(at(root, "programTrace")), 0);
	assert_int_equal(num_at(root, "simulation.cycles"), 0);
	cJSON_Delete(root);
	tsi_test_model_free(&m);
	tsi_test_capture_close(&cap);
}

/* CBOR decodes to the same tree as the JSON, for both profiles. */
static void test_cbor_round_trip(void **state)
{
	tsi_test_capture cap;
	tsi_test_model m;
	const tsi_graph_profile *gp;
	const tsi_run_profile *runs[2];
	cJSON *root;

	(void)state;
	tsi_test_capture_open(&cap);
	tut3_run(&m, NULL, &cap);
	gp = tsi_engine_get_graph_profile(m.engine);
	runs[0] = tsi_engine_get_run_profile(m.engine, 0);
	runs[1] = tsi_engine_get_run_profile(m.engine, 1);

	root = to_json(gp, true, NULL, 0, NULL);
	assert_cbor_equals_json(gp, true, NULL, 0, root);
	cJSON_Delete(root);
	root = to_json(gp, false, runs, 2, NULL);
	assert_cbor_equals_json(gp, false, runs, 2, root);
	/* and the comparison can fail */
	cJSON_ReplaceItemInObject(root, "profilerMode", cJSON_CreateString("VERTICES"));
	{
		cbor_item_t *item = to_cbor(gp, false, runs, 2);
		cJSON *converted = cbor_to_cjson(item);

		assert_false(cJSON_Compare(root, converted, true));
		cJSON_Delete(converted);
		cbor_decref(&item);
	}
	cJSON_Delete(root);
	tsi_test_model_free(&m);
	tsi_test_capture_close(&cap);
}

/* Instrumentation modes add their arrays: cycles of the compute set by
 * tile (tile), on its longest tile (device), none per vertex (vertex). */
static void test_profiler_modes(void **state)
{
	static const char *const levels[] = {"tile", "device", "vertex"};
	static const char *const modes[] = {"COMPUTE_SETS", "SINGLE_TILE_COMPUTE_SETS", "VERTICES"};

	(void)state;
	for (size_t l = 0; l < 3; l++) {
		tsi_options *o = tsi_options_new();
		tsi_test_capture cap;
		tsi_test_model m;
		const tsi_graph_profile *gp;
		const tsi_run_profile *run;
		cJSON *root;
		int cs;

		assert_non_null(o);
		assert_int_equal(tsi_options_set(o, "debug.instrument", "true"), TSI_OK);
		assert_int_equal(tsi_options_set(o, "debug.computeInstrumentationLevel", levels[l]),
		                 TSI_OK);
		tsi_test_capture_open(&cap);
		tut3_run(&m, o, &cap);
		gp = tsi_engine_get_graph_profile(m.engine);
		run = tsi_engine_get_run_profile(m.engine, 0);
		root = to_json(gp, false, &run, 1, NULL);
		assert_string_equal(at(root, "profilerMode")->valuestring, modes[l]);
		for (cs = 0; (size_t)cs < gp->n_compute_sets; cs++)
			if (strcmp(gp->compute_sets[cs].name, "computeSet") == 0)
				break;
		assert_true((size_t)cs < gp->n_compute_sets);
		if (l == 0) {
			const cJSON *rows = at(root, "computeSetCyclesByTile");

			assert_int_equal(cJSON_GetArraySize(rows), gp->n_compute_sets);
			assert_tiles(cJSON_GetArrayItem(rows, cs), &gp->compute_sets[cs].cycles_by_tile);
			assert_true(num(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, cs), 0)) > 0);
		} else if (l == 1) {
			const cJSON *cycles = at(root, "computeSetCycles");

			assert_int_equal(cJSON_GetArraySize(cycles), gp->n_compute_sets);
			assert_int_equal(num(cJSON_GetArrayItem(cycles, cs)),
			                 tsi_tile_values_max(&gp->compute_sets[cs].cycles_by_tile));
		} else {
			assert_int_equal(cJSON_GetArraySize(at(root, "vertexCycles")), 0);
			assert_int_equal(cJSON_GetArraySize(at(root, "vertexComputeSet")), 0);
			assert_int_equal(cJSON_GetArraySize(at(root, "vertexType")), 0);
		}
		assert_cbor_equals_json(gp, false, &run, 1, root);
		cJSON_Delete(root);
		tsi_test_model_free(&m);
		tsi_test_capture_close(&cap);
		tsi_options_free(o);
	}
}

/* A profile made by hand: one vertex type whose FLOPs exceed 2^53 and
 * whose name is not UTF-8, a graph count of UINT64_MAX, two tiles. */
static void craft(tsi_graph_profile *gp, tsi_vertex_type_profile *vt)
{
	memset(gp, 0, sizeof(*gp));
	memset(vt, 0, sizeof(*vt));
	gp->target.kind = TSI_TARGET_IPU_MODEL;
	gp->target.num_ipus = 1;
	gp->target.tiles_per_ipu = 2;
	gp->target.num_tiles = 2;
	gp->target.bytes_per_tile = 624 * 1024;
	gp->target.clock_hz = 1330000000;
	gp->num_edges = UINT64_MAX;
	vt->name = "Big\xff" "Vertex";
	vt->state_bytes = 4;
	vt->flops = (UINT64_C(1) << 60) + 1;
	gp->vertex_types = vt;
	gp->n_vertex_types = 1;
}

/* Integers above 2^53 (and up to 2^64 - 1) keep every digit in JSON and
 * every bit in CBOR; a byte that is not UTF-8 becomes U+FFFD in both. */
static void test_large_integers_exact(void **state)
{
	tsi_graph_profile gp;
	tsi_vertex_type_profile vt;
	struct cbor_load_result res;
	cbor_item_t *item, *flops = NULL, *f0;
	char *text;
	cJSON *root;
	void *buf;
	size_t len;

	(void)state;
	craft(&gp, &vt);
	root = to_json(&gp, true, NULL, 0, &text);
	assert_non_null(strstr(text, "\"flops\":[1152921504606846977]"));
	assert_null(strstr(text, "1152921504606846976"));
	assert_non_null(strstr(text, "\"numEdges\":18446744073709551615"));
	assert_string_equal(cJSON_GetArrayItem(at(root, "vertexTypes.names"), 0)->valuestring,
	                    "Big\xef\xbf\xbdVertex");
	assert_int_equal(cJSON_GetArraySize(at(root, "memory.byTile.total")), 2);
	assert_cbor_equals_json(&gp, true, NULL, 0, root);
	free(text);
	cJSON_Delete(root);

	assert_int_equal(tsi_graph_profile_serialise(&buf, &len, &gp, TSI_SERIAL_CBOR), TSI_OK);
	item = cbor_load(buf, len, &res);
	assert_non_null(item);
	for (size_t i = 0; i < cbor_map_size(item); i++) {
		struct cbor_pair p = cbor_map_handle(item)[i];

		if (cbor_string_length(p.key) == 11 && !memcmp(cbor_string_handle(p.key), "vertexTypes", 11))
			for (size_t j = 0; j < cbor_map_size(p.value); j++) {
				struct cbor_pair q = cbor_map_handle(p.value)[j];

				if (cbor_string_length(q.key) == 5 && !memcmp(cbor_string_handle(q.key), "flops", 5))
					flops = q.value;
			}
	}
	assert_non_null(flops);
	f0 = cbor_array_get(flops, 0);
	assert_true(cbor_isa_uint(f0));
	assert_int_equal(cbor_int_get_width(f0), CBOR_INT_64);
	assert_true(cbor_get_uint64(f0) == (UINT64_C(1) << 60) + 1);
	cbor_decref(&f0);
	cbor_decref(&item);
	free(buf);
}

/* A name's spelling in JSON, byte for byte as the documents have always
 * had it (libtilescope-base's writer with the profiles' flags): '"' and
 * '\' escaped, \n and \t as such, every other control as \u00XX in
 * lower case (\r and \b included), DEL and U+2028 raw, a bad byte as a
 * raw U+FFFD. */
static void test_string_spelling(void **state)
{
	tsi_graph_profile gp;
	tsi_vertex_type_profile vt;
	char *text;
	cJSON *root;

	(void)state;
	craft(&gp, &vt);
	vt.name = "a\"b\\c\nd\te\rf\bg\x01h\x1f\x7fi\xe2\x80\xa8j\xc0k";
	root = to_json(&gp, true, NULL, 0, &text);
	assert_non_null(strstr(text, "\"names\":[\"a\\\"b\\\\c\\nd\\te\\u000df\\u0008g\\u0001h\\u001f"
	                             "\x7fi\xe2\x80\xa8j\xef\xbf\xbdk\"]"));
	free(text);
	cJSON_Delete(root);
}

/* EXTERNAL_EXCHANGES mode, on a hand-made profile of two IPU-to-IPU
 * exchanges of which the run executed the first: its cycles by tile,
 * zeros for the other; the step names it as "externalExchange". */
static void test_external_exchange_mode(void **state)
{
	static const uint32_t tiles[] = {0, 1};
	static const uint64_t cycles[] = {650, 700}, bytes[] = {64, 64};
	tsi_graph_profile gp;
	tsi_vertex_type_profile vt;
	tsi_exchange_profile ex[2];
	tsi_lowered_program prog[2];
	tsi_step steps[2];
	tsi_run_profile run;
	const tsi_run_profile *runs[1] = {&run};
	const uint32_t trace[] = {1};
	const cJSON *rows, *step;
	cJSON *root;

	(void)state;
	craft(&gp, &vt);
	memset(ex, 0, sizeof(ex));
	memset(prog, 0, sizeof(prog));
	memset(steps, 0, sizeof(steps));
	memset(&run, 0, sizeof(run));
	gp.profiler_mode = TSI_PROFILER_EXTERNAL_EXCHANGES;
	ex[0] = (tsi_exchange_profile){"x0", {2, tiles, bytes}, {2, tiles, bytes}, {2, tiles, cycles}};
	ex[1] = (tsi_exchange_profile){"x1", {2, tiles, bytes}, {2, tiles, bytes}, {2, tiles, cycles}};
	gp.exchanges[TSI_EXCHANGE_EXTERNAL] = ex;
	gp.n_exchanges[TSI_EXCHANGE_EXTERNAL] = 2;
	prog[0] = (tsi_lowered_program){.type = TSI_LP_SEQUENCE, .children = trace, .n_children = 1,
	                                .compute_set = -1, .exchange = -1, .function = -1};
	prog[1] = (tsi_lowered_program){.type = TSI_LP_GLOBAL_EXCHANGE, .name = "global",
	                                .compute_set = -1, .exchange = 0, .function = -1};
	gp.programs = prog;
	gp.n_programs = 2;
	steps[0] = (tsi_step){.type = TSI_STEP_SYNC, .program = 1, .compute_set = -1, .exchange = -1,
	                      .sync_type = TSI_SYNC_EXTERNAL, .cycles = 180, .cycles_to = 180};
	steps[1] = (tsi_step){.type = TSI_STEP_GLOBAL_EXCHANGE, .program = 1, .compute_set = -1,
	                      .exchange = 0, .cycles_from = 180, .cycles = 700, .cycles_to = 880,
	                      .active_tiles = 2, .tile_balance = 0.9642857142857143, .total_data = 128};
	run = (tsi_run_profile){0, trace, 1, steps, 2, 880, {.global_exchange = 1350, .sync = 360}};

	root = to_json(&gp, false, runs, 1, NULL);
	assert_string_equal(at(root, "profilerMode")->valuestring, "EXTERNAL_EXCHANGES");
	rows = at(root, "externalExchangeCycles");
	assert_int_equal(cJSON_GetArraySize(rows), 2);
	assert_tiles_n(cJSON_GetArrayItem(rows, 0), &ex[0].cycles, 2);
	assert_int_equal(num(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 0), 1)), 700);
	assert_int_equal(num(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 1), 1)), 0);
	step = cJSON_GetArrayItem(at(root, "simulation.steps"), 1);
	assert_int_equal(num_at(step, "externalExchange"), 0);
	assert_string_equal(at(step, "name")->valuestring, "global");
	assert_close(at(step, "tileBalance")->valuedouble, 0.9642857142857143, 1e-15);
	assert_null(cJSON_GetObjectItemCaseSensitive(step, "cyclesOverlapped"));
	assert_int_equal(num_at(root, "simulation.tileCycles.globalExchange"), 1350);
	assert_cbor_equals_json(&gp, false, runs, 1, root);
	cJSON_Delete(root);
	/* a step naming a program the profile does not have */
	steps[1].program = 9;
	{
		void *buf;
		size_t len;

		assert_int_equal(tsi_execution_profile_serialise(&buf, &len, &gp, runs, 1,
		                                                 TSI_SERIAL_CBOR),
		                 TSI_ERR_INVALID_ARGUMENT);
	}
}

/* A profile whose lists contradict it is refused, not half written. */
static void test_inconsistent_profile(void **state)
{
	static const uint32_t tiles[] = {5};
	static const uint64_t values[] = {7};
	static const uint32_t vtypes[] = {0};
	static const uint64_t counts[] = {1}, by_type[] = {3};
	tsi_graph_profile gp;
	tsi_vertex_type_profile vt;
	tsi_compute_set_profile cs;
	void *buf = (void *)&gp;
	size_t len = 1;

	(void)state;
	craft(&gp, &vt);
	memset(&cs, 0, sizeof(cs));
	cs.name = "cs";
	cs.n_types = 1;
	cs.vertex_types = vtypes;
	cs.vertex_counts = counts;
	cs.active_cycles_by_type = by_type;
	cs.cycles_by_tile = (tsi_tile_values){1, tiles, values}; /* tile 5 of 2 */
	gp.compute_sets = &cs;
	gp.n_compute_sets = 1;
	for (int f = 0; f < 2; f++) {
		assert_int_equal(tsi_graph_profile_serialise(&buf, &len, &gp, (tsi_serial_format)f),
		                 TSI_ERR_INVALID_ARGUMENT);
		assert_null(buf);
		assert_int_equal(len, 0);
		assert_non_null(strstr(tsi_error_last(), "tile"));
	}
	/* the same set on tile 1 is fine */
	cs.cycles_by_tile.tiles = (const uint32_t[]){1};
	assert_int_equal(tsi_graph_profile_serialise(&buf, &len, &gp, TSI_SERIAL_CBOR), TSI_OK);
	free(buf);
	/* a count without its list */
	gp.n_programs = 3;
	assert_int_equal(tsi_graph_profile_serialise(&buf, &len, &gp, TSI_SERIAL_JSON),
	                 TSI_ERR_INVALID_ARGUMENT);
}

/* NULL outputs, profile or run list, and unknown formats are refused. */
static void test_null_arguments(void **state)
{
	tsi_graph_profile gp;
	tsi_vertex_type_profile vt;
	const tsi_run_profile *none[1] = {NULL};
	void *buf = (void *)&gp;
	size_t len = 5;

	(void)state;
	craft(&gp, &vt);
	assert_int_equal(tsi_graph_profile_serialise(NULL, &len, &gp, TSI_SERIAL_JSON),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(len, 0);
	assert_int_equal(tsi_graph_profile_serialise(&buf, NULL, &gp, TSI_SERIAL_JSON),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_null(buf);
	assert_int_equal(tsi_graph_profile_serialise(&buf, &len, NULL, TSI_SERIAL_CBOR),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_graph_profile_serialise(&buf, &len, &gp, (tsi_serial_format)7),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_execution_profile_serialise(NULL, &len, &gp, NULL, 0, TSI_SERIAL_JSON),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_execution_profile_serialise(&buf, NULL, &gp, NULL, 0, TSI_SERIAL_JSON),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_execution_profile_serialise(&buf, &len, NULL, NULL, 0, TSI_SERIAL_CBOR),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_execution_profile_serialise(&buf, &len, &gp, NULL, 1, TSI_SERIAL_CBOR),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_execution_profile_serialise(&buf, &len, &gp, none, 1, TSI_SERIAL_JSON),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_null(buf);
	assert_int_equal(len, 0);
	/* the same profile with no runs is fine */
	assert_int_equal(tsi_execution_profile_serialise(&buf, &len, &gp, NULL, 0, TSI_SERIAL_JSON),
	                 TSI_OK);
	assert_non_null(buf);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_json),
		cmocka_unit_test(test_execution_json),
		cmocka_unit_test(test_cbor_round_trip),
		cmocka_unit_test(test_profiler_modes),
		cmocka_unit_test(test_large_integers_exact),
		cmocka_unit_test(test_string_spelling),
		cmocka_unit_test(test_external_exchange_mode),
		cmocka_unit_test(test_inconsistent_profile),
		cmocka_unit_test(test_null_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
