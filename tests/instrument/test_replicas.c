/*
 * Unit tests of replicated graphs: four replicas of a one-IPU graph on a
 * four-IPU target. Each replica has its own copy of every variable; per
 * replica streams feed different data, broadcast streams the same, and
 * control flow follows each replica's own predicates.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

#define IPUS 4
#define TILES_PER_IPU 2
#define REPLICAS 4
#define N 3

/* v = 2 * v (InOut vector of floats). */
static bool double_compute(const tsi_field *f, size_t n)
{
	float *v = f[0].data;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		v[i] *= 2.0f;
	return true;
}

static const tsi_field_def double_fields[] = {
	{"v", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* v += 1 (one int, InOut). */
static bool inc_compute(const tsi_field *f, size_t n)
{
	(void)n;
	(*(int32_t *)f[0].data)++;
	return true;
}

static const tsi_field_def inc_fields[] = {
	{"v", TSI_FIELD_INOUT, TSI_FIELD_SCALAR, TSI_INT, 0},
};

/* out = a < b. */
static bool less_compute(const tsi_field *f, size_t n)
{
	(void)n;
	*(uint8_t *)f[2].data = *(const int32_t *)f[0].data < *(const int32_t *)f[1].data;
	return true;
}

static const tsi_field_def less_fields[] = {
	{"a", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"b", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_BOOL, 0},
};

static const tsi_codelet codelets[] = {
	{"Double", double_fields, 1, double_compute, NULL, NULL, 8, 16, false},
	{"Inc", inc_fields, 1, inc_compute, NULL, NULL, 4, 16, false},
	{"Less", less_fields, 3, less_compute, NULL, NULL, 12, 16, false},
};

typedef tsi_test_model fx;

/* A graph of four replicas, each one IPU of two tiles. */
static void fx_init(fx *f)
{
	tsi_test_model_init(f, IPUS, TILES_PER_IPU, REPLICAS);
	assert_int_equal(tsi_graph_get_replication_factor(f->graph), REPLICAS);
	assert_int_equal(tsi_graph_get_target(f->graph)->num_tiles, TILES_PER_IPU);
	assert_int_equal(tsi_graph_add_codelets(f->graph, codelets,
	                                        sizeof(codelets) / sizeof(*codelets)),
	                 TSI_OK);
}

/* Execute of a compute set doubling `x` with one vertex on tile 0. */
static tsi_program *double_prog(fx *f, tsi_tensor *x)
{
	tsi_compute_set *cs = tsi_graph_add_compute_set(f->graph, "double");
	tsi_vertex *v = tsi_graph_add_vertex(f->graph, cs, "Double");

	assert_int_equal(tsi_graph_set_vertex_tile(f->graph, v, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(f->graph, v, "v", x), TSI_OK);
	return tsi_prog_execute(f->graph, cs);
}

/* Per-replica input and output streams: each replica gets its own data,
 * doubles it, and sends it to its own host buffer. */
static void test_per_replica_streams(void **state)
{
	fx f;
	float in[REPLICAS][N], out[REPLICAS][N], got[N];
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, N, 1, "x");
	tsi_stream *si = tsi_graph_add_host_to_device_fifo(f.graph, "in", TSI_FLOAT, N,
	                                                   TSI_REPLICATED_STREAM_PER_REPLICA);
	tsi_stream *so = tsi_graph_add_device_to_host_fifo(f.graph, "out", TSI_FLOAT, N);
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_from_stream(f.graph, si, x)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, double_prog(&f, x)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_to_stream(f.graph, x, so)), TSI_OK);
	tsi_test_model_load(&f, &seq, 1, NULL);
	for (unsigned r = 0; r < REPLICAS; r++) {
		for (int i = 0; i < N; i++)
			in[r][i] = (float)(r * 100 + i);
		assert_int_equal(tsi_engine_connect_stream_replica(f.engine, "in", r, in[r], in[r] + N),
		                 TSI_OK);
		assert_int_equal(tsi_engine_connect_stream_replica(f.engine, "out", r, out[r], out[r] + N),
		                 TSI_OK);
	}
	memset(out, 0, sizeof(out));
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++) {
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", r, got, sizeof(got)),
		                 TSI_OK);
		for (int i = 0; i < N; i++) {
			assert_close(got[i], 2.0 * (r * 100 + i), 0);
			assert_close(out[r][i], 2.0 * (r * 100 + i), 0);
		}
	}
	/* read_tensor reads replica 0. */
	assert_int_equal(tsi_engine_read_tensor(f.engine, "x", got, sizeof(got)), TSI_OK);
	assert_close(got[1], 2.0, 0);
	/* An unconnected replica is named. */
	tsi_engine *e = f.engine;
	f.engine = NULL;
	tsi_engine_free(e);
	assert_int_equal(tsi_engine_new(&f.engine, f.graph, &seq, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.engine, f.device), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++)
		if (r != 2)
			assert_int_equal(tsi_engine_connect_stream_replica(f.engine, "in", r, in[r], in[r] + N),
			                 TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_STREAM_NOT_CONNECTED);
	assert_non_null(strstr(tsi_engine_error(f.engine), "replica 2"));
	tsi_test_model_free(&f);
}

/* Writing one replica leaves the others alone; writing without a replica
 * sets all of them. */
static void test_write_one_replica(void **state)
{
	fx f;
	float ones[N] = {1, 1, 1}, fives[N] = {5, 5, 5}, got[N];
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, N, 1, "x");
	tsi_program *dbl = double_prog(&f, x);
	tsi_test_model_load(&f, &dbl, 1, NULL);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "x", ones, sizeof(ones)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "x", 2, fives, sizeof(fives)),
	                 TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++) {
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", r, got, sizeof(got)),
		                 TSI_OK);
		assert_close(got[0], r == 2 ? 10.0 : 2.0, 0);
		assert_close(got[2], r == 2 ? 10.0 : 2.0, 0);
	}
	assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", REPLICAS, got, sizeof(got)),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "replica 4"));
	tsi_test_model_free(&f);
}

static int broadcast_calls;

/* Fills a broadcast stream's buffer with 7, 8, 9 ... and counts calls. */
static void broadcast_cb(void *buf, size_t bytes, void *user)
{
	float *p = buf;

	(void)user;
	broadcast_calls++;
	for (size_t i = 0; i < bytes / sizeof(float); i++)
		p[i] = 7.0f + (float)i;
}

/* A broadcast stream feeds every replica the same data, in one transfer
 * per copy (the cursor moves once, not once per replica). */
static void test_broadcast_stream(void **state)
{
	fx f;
	float data[2 * N] = {1, 2, 3, 4, 5, 6}, got[N];
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, N, 1, "x");
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(f.graph, "in", TSI_FLOAT, N,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);
	tsi_program *copy = tsi_prog_copy_from_stream(f.graph, s, x);
	tsi_test_model_load(&f, &copy, 1, NULL);
	assert_int_equal(tsi_engine_connect_stream(f.engine, "in", data, data + 2 * N), TSI_OK);
	for (int run = 0; run < 3; run++) {
		assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
		for (unsigned r = 0; r < REPLICAS; r++) {
			assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", r, got, sizeof(got)),
			                 TSI_OK);
			assert_close(got[0], run % 2 ? 4.0 : 1.0, 0);
			assert_close(got[2], run % 2 ? 6.0 : 3.0, 0);
		}
	}
	/* A callback feeding a broadcast stream runs once per copy. */
	broadcast_calls = 0;
	assert_int_equal(tsi_engine_connect_stream_cb(f.engine, "in", broadcast_cb, NULL), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(broadcast_calls, 1);
	for (unsigned r = 0; r < REPLICAS; r++) {
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", r, got, sizeof(got)),
		                 TSI_OK);
		assert_close(got[2], 9.0, 0);
	}
	tsi_test_model_free(&f);
}

/* tsi_engine_connect_stream (no replica) on per-replica streams: the
 * buffer is shared. Host-to-device, every replica gets the same transfer
 * (engine.h); device-to-host, replicas write one after the other in
 * replica order. */
static void test_shared_connection(void **state)
{
	fx f;
	float in[N] = {1, 2, 3}, out[REPLICAS * N], got[N];
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, N, 1, "x");
	tsi_tensor *y = tsi_test_var(&f, TSI_FLOAT, N, 1, "y");
	tsi_stream *si = tsi_graph_add_host_to_device_fifo(f.graph, "in", TSI_FLOAT, N,
	                                                   TSI_REPLICATED_STREAM_PER_REPLICA);
	tsi_stream *so = tsi_graph_add_device_to_host_fifo(f.graph, "out", TSI_FLOAT, N);
	tsi_program *progs[2] = {tsi_prog_copy_from_stream(f.graph, si, x),
	                         tsi_prog_copy_to_stream(f.graph, y, so)};
	tsi_test_model_load(&f, progs, 2, NULL);
	assert_int_equal(tsi_engine_connect_stream(f.engine, "in", in, in + N), TSI_OK);
	assert_int_equal(tsi_engine_connect_stream(f.engine, "out", out, out + REPLICAS * N), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++) {
		float yv[N] = {(float)r, (float)r, (float)r};
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", r, got, sizeof(got)),
		                 TSI_OK);
		assert_close(got[0], 1, 0);
		assert_close(got[2], 3, 0);
		assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "y", r, yv, sizeof(yv)), TSI_OK);
	}
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++)
		for (int i = 0; i < N; i++)
			assert_close(out[r * N + i], r, 0);
	tsi_test_model_free(&f);
}

/* Control flow follows each replica's own predicate: an If whose
 * predicate differs per replica, and a loop whose trip count does. */
static void test_per_replica_control_flow(void **state)
{
	fx f;
	int32_t got;
	(void)state;

	fx_init(&f);
	tsi_tensor *counter = tsi_test_var(&f, TSI_INT, 0, 1, "counter");
	tsi_tensor *limit = tsi_test_var(&f, TSI_INT, 0, 1, "limit");
	tsi_tensor *pred = tsi_test_var(&f, TSI_BOOL, 0, 1, "pred");
	tsi_tensor *flag = tsi_test_var(&f, TSI_INT, 0, 1, "flag");
	tsi_compute_set *cond = tsi_graph_add_compute_set(f.graph, "cond");
	tsi_vertex *lv = tsi_graph_add_vertex(f.graph, cond, "Less");
	assert_int_equal(tsi_graph_set_vertex_tile(f.graph, lv, 1), TSI_OK);
	assert_int_equal(tsi_graph_connect(f.graph, lv, "a", counter), TSI_OK);
	assert_int_equal(tsi_graph_connect(f.graph, lv, "b", limit), TSI_OK);
	assert_int_equal(tsi_graph_connect(f.graph, lv, "out", pred), TSI_OK);
	tsi_compute_set *body = tsi_graph_add_compute_set(f.graph, "body");
	tsi_vertex *iv = tsi_graph_add_vertex(f.graph, body, "Inc");
	assert_int_equal(tsi_graph_set_vertex_tile(f.graph, iv, 1), TSI_OK);
	assert_int_equal(tsi_graph_connect(f.graph, iv, "v", counter), TSI_OK);
	tsi_compute_set *mark = tsi_graph_add_compute_set(f.graph, "mark");
	tsi_vertex *mv = tsi_graph_add_vertex(f.graph, mark, "Inc");
	assert_int_equal(tsi_graph_set_vertex_tile(f.graph, mv, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(f.graph, mv, "v", flag), TSI_OK);
	tsi_program *progs[2] = {
		tsi_prog_repeat_while_true(f.graph, tsi_prog_execute(f.graph, cond), pred,
		                           tsi_prog_execute(f.graph, body)),
		tsi_prog_if(f.graph, pred, tsi_prog_execute(f.graph, mark), NULL),
	};
	tsi_test_model_load(&f, progs, 2, NULL);
	for (unsigned r = 0; r < REPLICAS; r++) {
		int32_t lim = (int32_t)(r * 3);
		assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "limit", r, &lim, sizeof(lim)),
		                 TSI_OK);
	}
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++) {
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "counter", r, &got, sizeof(got)),
		                 TSI_OK);
		assert_int_equal(got, (int32_t)(r * 3));
	}
	/* Odd replicas set pred; only they run the If body. */
	for (unsigned r = 0; r < REPLICAS; r++) {
		uint8_t p = r % 2;
		assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "pred", r, &p, 1), TSI_OK);
	}
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++) {
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "flag", r, &got, sizeof(got)),
		                 TSI_OK);
		assert_int_equal(got, (int32_t)(r % 2));
	}
	tsi_test_model_free(&f);
}

/* PrintTensor prints every replica, titled with its index. */
static void test_print_replicas(void **state)
{
	fx f;
	tsi_test_capture cap;
	(void)state;

	fx_init(&f);
	tsi_tensor *c = tsi_test_var(&f, TSI_INT, 2, 1, "c");
	tsi_program *p = tsi_prog_print_tensor(f.graph, "c", c);
	tsi_test_model_load(&f, &p, 1, NULL);
	for (unsigned r = 0; r < REPLICAS; r++) {
		int32_t v[2] = {(int32_t)r, -(int32_t)r};
		assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "c", r, v, sizeof(v)), TSI_OK);
	}
	tsi_test_capture_open(&cap);
	tsi_engine_set_print_stream(f.engine, cap.file);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_string_equal(tsi_test_capture_text(&cap),
	                    "c (replica 0): {0,0}\n"
	                    "c (replica 1): {1,-1}\n"
	                    "c (replica 2): {2,-2}\n"
	                    "c (replica 3): {3,-3}\n");
	tsi_test_capture_close(&cap);
	tsi_test_model_free(&f);
}

/* Each replica has its own remote buffer. */
static void test_remote_per_replica(void **state)
{
	fx f;
	float rows[2][N], got[N];
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, N, 1, "x");
	tsi_remote_buffer *rb = tsi_graph_add_remote_buffer(f.graph, "rb", TSI_FLOAT, N, 2);
	tsi_program *p = tsi_prog_copy_from_remote(f.graph, rb, x, NULL);
	tsi_test_model_load(&f, &p, 1, NULL);
	for (unsigned r = 0; r < REPLICAS; r++) {
		for (int i = 0; i < N; i++) {
			rows[0][i] = (float)(r + 1);
			rows[1][i] = -1;
		}
		assert_int_equal(tsi_engine_write_remote(f.engine, "rb", r, rows, sizeof(rows)), TSI_OK);
	}
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	for (unsigned r = 0; r < REPLICAS; r++) {
		assert_int_equal(tsi_engine_read_tensor_replica(f.engine, "x", r, got, sizeof(got)),
		                 TSI_OK);
		assert_close(got[1], r + 1, 0);
	}
	tsi_test_model_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_replica_streams),
		cmocka_unit_test(test_write_one_replica),
		cmocka_unit_test(test_broadcast_stream),
		cmocka_unit_test(test_shared_connection),
		cmocka_unit_test(test_per_replica_control_flow),
		cmocka_unit_test(test_print_replicas),
		cmocka_unit_test(test_remote_per_replica),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
