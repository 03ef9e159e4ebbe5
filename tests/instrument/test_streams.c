/*
 * Unit tests of host data movement: host-to-device and device-to-host
 * streams over circular buffers (tutorial 1) and callbacks, connection
 * errors, remote buffers with run-time row offsets, and host read/write
 * handle errors.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

#define TILES 4

typedef tsi_test_model fx;

static void fx_init(fx *f)
{
	tsi_test_model_init(f, 1, TILES, 1);
}

/* Tutorial 1: a 30-int circular buffer feeding 10 ints per copy. */
static void test_tutorial1_circular_buffer(void **state)
{
	fx f;
	tsi_test_capture cap;
	int32_t in_data[30];
	(void)state;

	fx_init(&f);
	tsi_tensor *v4 = tsi_test_var(&f, TSI_INT, 10, 1, "v4");
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(f.graph, "v4-input-stream", TSI_INT, 10,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);
	assert_non_null(s);
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_from_stream(f.graph, s, v4)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "v4-0", v4)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_from_stream(f.graph, s, v4)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "v4-1", v4)), TSI_OK);
	tsi_test_model_load(&f, &seq, 1, NULL);
	for (int i = 0; i < 30; i++)
		in_data[i] = i;
	assert_int_equal(tsi_engine_connect_stream(f.engine, "v4-input-stream", &in_data[0],
	                                           &in_data[30]),
	                 TSI_OK);
	tsi_test_capture_open(&cap);
	tsi_engine_set_print_stream(f.engine, cap.file);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_string_equal(tsi_test_capture_text(&cap),
	                    "v4-0: {0,1,2,3,4,5,6,7,8,9}\n"
	                    "v4-1: {10,11,12,13,14,15,16,17,18,19}\n");
	tsi_test_capture_close(&cap);

	tsi_test_capture_open(&cap);
	tsi_engine_set_print_stream(f.engine, cap.file);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_string_equal(tsi_test_capture_text(&cap),
	                    "v4-0: {20,21,22,23,24,25,26,27,28,29}\n"
	                    "v4-1: {0,1,2,3,4,5,6,7,8,9}\n");
	tsi_engine_set_print_stream(f.engine, NULL);
	tsi_test_capture_close(&cap);
	tsi_test_model_free(&f);
}

/* A 15-int buffer: the second transfer wraps in the middle. Connecting
 * again starts from the beginning. */
static void test_wrap_splits_transfer(void **state)
{
	fx f;
	int32_t in_data[15], got[10];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_INT, 10, 1, "v");
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(f.graph, "in", TSI_INT, 10,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);
	tsi_program *copy = tsi_prog_copy_from_stream(f.graph, s, v);
	tsi_test_model_load(&f, &copy, 1, NULL);
	for (int i = 0; i < 15; i++)
		in_data[i] = 100 + i;
	assert_int_equal(tsi_engine_connect_stream(f.engine, "in", in_data, in_data + 15), TSI_OK);
	const int32_t want[3][10] = {
		{100, 101, 102, 103, 104, 105, 106, 107, 108, 109},
		{110, 111, 112, 113, 114, 100, 101, 102, 103, 104},
		{105, 106, 107, 108, 109, 110, 111, 112, 113, 114},
	};
	for (int run = 0; run < 3; run++) {
		assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
		assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
		assert_memory_equal(got, want[run], sizeof(got));
	}
	assert_int_equal(tsi_engine_connect_stream(f.engine, "in", in_data, in_data + 15), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	assert_memory_equal(got, want[0], sizeof(got));
	tsi_test_model_free(&f);
}

/* A device-to-host stream fills a circular buffer transfer by transfer. */
static void test_d2h_circular(void **state)
{
	fx f;
	int32_t out_data[6];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_INT, 4, 1, "v");
	tsi_stream *s = tsi_graph_add_device_to_host_fifo(f.graph, "out", TSI_INT, 4);
	tsi_program *copy = tsi_prog_copy_to_stream(f.graph, v, s);
	tsi_test_model_load(&f, &copy, 1, NULL);
	memset(out_data, 0xff, sizeof(out_data));
	assert_int_equal(tsi_engine_connect_stream(f.engine, "out", out_data, out_data + 6), TSI_OK);
	for (int32_t run = 1; run <= 2; run++) {
		int32_t vals[4] = {run * 10, run * 10 + 1, run * 10 + 2, run * 10 + 3};
		assert_int_equal(tsi_engine_write_tensor(f.engine, "v", vals, sizeof(vals)), TSI_OK);
		assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	}
	/* Second transfer: 20,21 at the end, 22,23 wrapped over 10,11. */
	const int32_t want[6] = {22, 23, 12, 13, 20, 21};
	assert_memory_equal(out_data, want, sizeof(want));
	tsi_test_model_free(&f);
}

typedef struct cb_log {
	int calls;
	size_t bytes;
	float seen[3];
	float next; /* value the h2d callback writes first */
} cb_log;

/* Host-to-device callback: fills the buffer with next, next+1, ... */
static void h2d_cb(void *buf, size_t bytes, void *user)
{
	cb_log *log = user;
	float *p = buf;

	log->calls++;
	log->bytes = bytes;
	for (size_t i = 0; i < bytes / sizeof(float); i++)
		p[i] = log->next + (float)i;
	log->next += 100;
}

/* Device-to-host callback: remembers what it was given. */
static void d2h_cb(void *buf, size_t bytes, void *user)
{
	cb_log *log = user;

	log->calls++;
	log->bytes = bytes;
	memcpy(log->seen, buf, bytes < sizeof(log->seen) ? bytes : sizeof(log->seen));
}

/* Callbacks are called once per copy with the stream's size; the
 * device-to-host one sees the tensor's values. */
static void test_callbacks(void **state)
{
	fx f;
	cb_log in = {0, 0, {0}, 1.0f}, out = {0, 0, {0}, 0};
	float got[3];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 3, 1, "v");
	tsi_stream *si = tsi_graph_add_host_to_device_fifo(f.graph, "in", TSI_FLOAT, 3,
	                                                   TSI_REPLICATED_STREAM_BROADCAST);
	tsi_stream *so = tsi_graph_add_device_to_host_fifo(f.graph, "out", TSI_FLOAT, 3);
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_from_stream(f.graph, si, v)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_to_stream(f.graph, v, so)), TSI_OK);
	tsi_test_model_load(&f, &seq, 1, NULL);
	assert_int_equal(tsi_engine_connect_stream_cb(f.engine, "in", h2d_cb, &in), TSI_OK);
	assert_int_equal(tsi_engine_connect_stream_cb(f.engine, "out", d2h_cb, &out), TSI_OK);

	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(in.calls, 1);
	assert_int_equal(out.calls, 1);
	assert_int_equal(in.bytes, 3 * sizeof(float));
	assert_int_equal(out.bytes, 3 * sizeof(float));
	assert_close(out.seen[0], 1, 0);
	assert_close(out.seen[2], 3, 0);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	assert_close(got[1], 2, 0);

	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(in.calls, 2);
	assert_int_equal(out.calls, 2);
	assert_close(out.seen[0], 101, 0);
	assert_close(out.seen[2], 103, 0);
	tsi_test_model_free(&f);
}

/* A stream copy with nothing connected fails naming the stream. */
static void test_unconnected_stream(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 2, 1, "v");
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(f.graph, "features", TSI_FLOAT, 2,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);
	tsi_stream *o = tsi_graph_add_device_to_host_fifo(f.graph, "results", TSI_FLOAT, 2);
	tsi_program *progs[2] = {tsi_prog_copy_from_stream(f.graph, s, v),
	                         tsi_prog_copy_to_stream(f.graph, v, o)};
	tsi_test_model_load(&f, progs, 2, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_STREAM_NOT_CONNECTED);
	assert_non_null(strstr(tsi_engine_error(f.engine), "'features'"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "tsi_engine_connect_stream"));
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_ERR_STREAM_NOT_CONNECTED);
	assert_non_null(strstr(tsi_engine_error(f.engine), "'results'"));
	assert_non_null(strstr(tsi_error_last(), "'results'"));
	tsi_test_model_free(&f);
}

static void noop_cb(void *buf, size_t bytes, void *user)
{
	(void)buf;
	(void)bytes;
	(void)user;
}

/* Connecting an unknown name, a buffer smaller than one transfer, a bad
 * range, a NULL callback and a replica that does not exist all fail. */
static void test_connect_errors(void **state)
{
	fx f;
	float buf[8];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 4, 1, "v");
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(f.graph, "in", TSI_FLOAT, 4,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);
	tsi_program *copy = tsi_prog_copy_from_stream(f.graph, s, v);
	tsi_test_model_load(&f, &copy, 1, NULL);

	assert_int_equal(tsi_engine_connect_stream(f.engine, "nope", buf, buf + 8),
	                 TSI_ERR_UNKNOWN_HANDLE);
	assert_non_null(strstr(tsi_engine_error(f.engine), "'nope'"));
	assert_int_equal(tsi_engine_connect_stream_cb(f.engine, "nope2", noop_cb, NULL),
	                 TSI_ERR_UNKNOWN_HANDLE);
	assert_non_null(strstr(tsi_error_last(), "'nope2'"));

	assert_int_equal(tsi_engine_connect_stream(f.engine, "in", buf, buf + 3),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "12 bytes"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "16 bytes"));
	assert_int_equal(tsi_engine_connect_stream(f.engine, "in", buf + 4, buf),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_engine_connect_stream_cb(f.engine, "in", NULL, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_engine_connect_stream_replica(f.engine, "in", 1, buf, buf + 8),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "replica 1"));
	assert_int_equal(tsi_engine_connect_stream_cb_replica(f.engine, "in", 3, noop_cb, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	/* Still unconnected after all those failures. */
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_STREAM_NOT_CONNECTED);
	/* Exactly one transfer is enough; replica 0 by index works too. */
	assert_int_equal(tsi_engine_connect_stream_replica(f.engine, "in", 0, buf, buf + 4), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	tsi_test_model_free(&f);
}

/* Remote buffers: rows chosen by an offset tensor read at run time, whole
 * buffer access from the host, an out-of-range row, host-side errors. */
static void test_remote_buffer(void **state)
{
	fx f;
	float rows[3][4], v_in[4] = {1, 2, 3, 4}, got[4];
	uint32_t row;
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 4, 1, "v");
	tsi_tensor *off = tsi_test_var(&f, TSI_UNSIGNED_INT, 0, 1, "row");
	tsi_remote_buffer *rb = tsi_graph_add_remote_buffer(f.graph, "store", TSI_FLOAT, 4, 3);
	assert_non_null(rb);
	tsi_program *progs[3] = {
		tsi_prog_copy_to_remote(f.graph, v, rb, off),
		tsi_prog_copy_from_remote(f.graph, rb, v, off),
		tsi_prog_copy_from_remote(f.graph, rb, v, NULL),
	};
	tsi_test_model_load(&f, progs, 3, NULL);

	/* Remote memory starts zeroed. */
	assert_int_equal(tsi_engine_read_remote(f.engine, "store", 0, rows, sizeof(rows)), TSI_OK);
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 4; i++)
			assert_close(rows[r][i], 0, 0);

	row = 2;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "row", &row, sizeof(row)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "v", v_in, sizeof(v_in)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_remote(f.engine, "store", 0, rows, sizeof(rows)), TSI_OK);
	assert_close(rows[0][0], 0, 0);
	assert_close(rows[1][3], 0, 0);
	assert_close(rows[2][0], 1, 0);
	assert_close(rows[2][3], 4, 0);

	/* Host writes the whole buffer; the device reads row 1, then row 0. */
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 4; i++)
			rows[r][i] = (float)(r * 10 + i);
	assert_int_equal(tsi_engine_write_remote(f.engine, "store", 0, rows, sizeof(rows)), TSI_OK);
	row = 1;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "row", &row, sizeof(row)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	assert_close(got[0], 10, 0);
	assert_close(got[3], 13, 0);
	assert_int_equal(tsi_engine_run(f.engine, 2), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	assert_close(got[0], 0, 0);
	assert_close(got[3], 3, 0);

	/* Row 3 of a 3-row buffer. */
	row = 3;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "row", &row, sizeof(row)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_OUT_OF_RANGE);
	assert_non_null(strstr(tsi_engine_error(f.engine), "'store'"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "row 3"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "3 rows"));
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_ERR_OUT_OF_RANGE);

	/* Host-side errors. */
	assert_int_equal(tsi_engine_read_remote(f.engine, "store", 0, rows, sizeof(rows) - 4),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "44 bytes"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "48 bytes"));
	assert_int_equal(tsi_engine_write_remote(f.engine, "stash", 0, rows, sizeof(rows)),
	                 TSI_ERR_UNKNOWN_HANDLE);
	assert_non_null(strstr(tsi_engine_error(f.engine), "'stash'"));
	assert_int_equal(tsi_engine_write_remote(f.engine, "store", 1, rows, sizeof(rows)),
	                 TSI_ERR_INVALID_ARGUMENT);
	tsi_test_model_free(&f);
}

/* Host handles: wrong sizes, unknown names, read vs write handles. */
static void test_host_handle_errors(void **state)
{
	fx f;
	float buf[4] = {0};
	(void)state;

	fx_init(&f);
	tsi_tensor *w = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(4), "w");
	assert_int_equal(tsi_graph_set_tile_mapping(f.graph, w, 0), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "w-write", w), TSI_OK);
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	tsi_test_model_load(&f, &seq, 1, NULL);

	assert_int_equal(tsi_engine_write_tensor(f.engine, "w-write", buf, 12),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "12 bytes"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "16 bytes"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "'w-write'"));
	assert_int_equal(tsi_engine_write_tensor(f.engine, "w-writ", buf, 16), TSI_ERR_UNKNOWN_HANDLE);
	assert_non_null(strstr(tsi_engine_error(f.engine), "'w-writ'"));
	/* A write handle is not a read handle. */
	assert_int_equal(tsi_engine_read_tensor(f.engine, "w-write", buf, 16), TSI_ERR_UNKNOWN_HANDLE);
	assert_non_null(strstr(tsi_error_last(), "read"));
	assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "w-write", 1, buf, 16),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "w-write", buf, 16), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor_replica(f.engine, "w-write", 0, buf, 16), TSI_OK);
	tsi_test_model_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tutorial1_circular_buffer),
		cmocka_unit_test(test_wrap_splits_transfer),
		cmocka_unit_test(test_d2h_circular),
		cmocka_unit_test(test_callbacks),
		cmocka_unit_test(test_unconnected_stream),
		cmocka_unit_test(test_connect_errors),
		cmocka_unit_test(test_remote_buffer),
		cmocka_unit_test(test_host_handle_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
