/* Shared unit-test helpers (see test-util.h). */
#include "test-util.h"

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *tsi_test_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (!base || !*base)
		base = "/tmp";
	size_t len = strlen(base) + 32;
	path = malloc(len);
	if (!path)
		abort();
	snprintf(path, len, "%s/tilescope-test-XXXXXX", base);
	assert_non_null(mkdtemp(path));
	return path;
}

static int rm_entry_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

char *tsi_test_only_file(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *found = NULL;
	size_t slen = strlen(suffix);
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > slen && strcmp(de->d_name + len - slen, suffix) == 0) {
			n++;
			free(found);
			found = malloc(strlen(dir) + len + 2);
			assert_non_null(found);
			sprintf(found, "%s/%s", dir, de->d_name);
		}
	}
	closedir(d);
	assert_int_equal(n, 1);
	return found;
}

void tsi_test_rmtree(char *path)
{
	if (!path)
		return;
	nftw(path, rm_entry_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(path);
}

void tsi_test_assert_close(double a, double b, double tol, const char *expr,
                           const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %s = %.9g, expected %.9g (tolerance %.3g)\n", file, line, expr,
		            a, b, tol);
		fail();
	}
}

void tsi_test_capture_open(tsi_test_capture *cap)
{
	cap->buf = NULL;
	cap->len = 0;
	cap->file = open_memstream(&cap->buf, &cap->len);
	assert_non_null(cap->file);
}

const char *tsi_test_capture_text(tsi_test_capture *cap)
{
	fflush(cap->file);
	return cap->buf ? cap->buf : "";
}

void tsi_test_capture_close(tsi_test_capture *cap)
{
	if (cap->file)
		fclose(cap->file);
	free(cap->buf);
	cap->file = NULL;
	cap->buf = NULL;
}

#if __has_include(<tilescope/ipu.h>)
/* Device first, then a graph on the device's own target, so that the
 * graph and the engine's device can never disagree about the target. */
tsi_graph *tsi_test_graph_mk2(void)
{
	tsi_target target;
	tsi_graph *g = NULL;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 0), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_non_null(g);
	return g;
}

void tsi_test_model_init_ipu(tsi_test_model *m, tsi_ipu_version version, unsigned ipus,
                             unsigned tiles_per_ipu, unsigned replicas)
{
	tsi_ipu_model_options opts = TSI_IPU_MODEL_OPTIONS_INIT;

	memset(m, 0, sizeof(*m));
	opts.ipu_version = version;
	opts.num_ipus = ipus;
	opts.tiles_per_ipu = tiles_per_ipu;
	assert_int_equal(tsi_device_new_ipu_model(&m->device, &opts), TSI_OK);
	assert_int_equal(tsi_graph_new(&m->graph, tsi_device_get_target(m->device), replicas),
	                 TSI_OK);
}

/* The Mk2 case, which is nearly every test's. */
void tsi_test_model_init(tsi_test_model *m, unsigned ipus, unsigned tiles_per_ipu,
                         unsigned replicas)
{
	tsi_test_model_init_ipu(m, TSI_IPU_MK2, ipus, tiles_per_ipu, replicas);
}

/* Heap form for cmocka's setup/teardown state, with the sequence the
 * library tests append their operations to. */
tsi_test_model *tsi_test_model_new(unsigned tiles_per_ipu)
{
	tsi_test_model *m = malloc(sizeof(*m));

	assert_non_null(m);
	tsi_test_model_init(m, 1, tiles_per_ipu, 1);
	m->seq = tsi_prog_sequence(m->graph, "seq");
	assert_non_null(m->seq);
	return m;
}

/* Fails with the graph's or the engine's message rather than a bare code,
 * so a broken test says what went wrong. */
void tsi_test_model_load(tsi_test_model *m, tsi_program *const *progs, size_t n,
                         const tsi_options *opts)
{
	if (!progs) {
		progs = &m->seq;
		n = 1;
	}
	if (*tsi_graph_get_error(m->graph))
		fail_msg("graph error: %s", tsi_graph_get_error(m->graph));
	if (tsi_engine_new(&m->engine, m->graph, progs, n, opts) != TSI_OK)
		fail_msg("tsi_engine_new: %s", tsi_error_last());
	if (tsi_engine_load(m->engine, m->device) != TSI_OK)
		fail_msg("tsi_engine_load: %s", tsi_engine_error(m->engine));
}

/* Runs one program and fails with the engine's message if it fails. */
void tsi_test_run(tsi_engine *engine, size_t index)
{
	if (tsi_engine_run(engine, index) != TSI_OK)
		fail_msg("tsi_engine_run: %s", tsi_engine_error(engine));
}

/* The engine goes first: it refers to the graph and the device. */
void tsi_test_model_free(tsi_test_model *m)
{
	tsi_engine_free(m->engine);
	tsi_graph_free(m->graph);
	tsi_device_free(m->device);
	memset(m, 0, sizeof(*m));
}

/* A cmocka teardown for a model made by tsi_test_model_new. */
int tsi_test_model_delete(void **state)
{
	tsi_test_model *m = *state;

	tsi_test_model_free(m);
	free(m);
	return 0;
}

/* The usual small variable of the runtime tests: one tile, both handles. */
tsi_tensor *tsi_test_var(tsi_test_model *m, tsi_type type, size_t n, unsigned tile,
                         const char *name)
{
	size_t shape[1] = {n};
	tsi_tensor *t = tsi_graph_add_variable(m->graph, type, n ? 1 : 0, n ? shape : NULL, name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(m->graph, t, tile), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(m->graph, name, t), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(m->graph, name, t), TSI_OK);
	return t;
}

/* Float data by host handle; the size passed is the whole tensor's. */
void tsi_test_write_floats(tsi_engine *engine, const char *handle, const float *v, size_t n)
{
	assert_int_equal(tsi_engine_write_tensor(engine, handle, v, n * sizeof(*v)), TSI_OK);
}

/* The reading counterpart of tsi_test_write_floats. */
void tsi_test_read_floats(tsi_engine *engine, const char *handle, float *out, size_t n)
{
	assert_int_equal(tsi_engine_read_tensor(engine, handle, out, n * sizeof(*out)), TSI_OK);
}

/* Rounds each float to half on the host and writes the halves. */
void tsi_test_write_halves(tsi_engine *engine, const char *handle, const float *v, size_t n)
{
	uint16_t *h = malloc(n * sizeof(*h));

	assert_non_null(h);
	for (size_t i = 0; i < n; i++)
		h[i] = tsi_half_from_float(v[i]);
	assert_int_equal(tsi_engine_write_tensor(engine, handle, h, n * sizeof(*h)), TSI_OK);
	free(h);
}

/* Reads halves and widens them to floats on the host. */
void tsi_test_read_halves(tsi_engine *engine, const char *handle, float *out, size_t n)
{
	uint16_t *h = malloc(n * sizeof(*h));

	assert_non_null(h);
	assert_int_equal(tsi_engine_read_tensor(engine, handle, h, n * sizeof(*h)), TSI_OK);
	for (size_t i = 0; i < n; i++)
		out[i] = tsi_half_to_float(h[i]);
	free(h);
}

#endif

char *tsi_test_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f) {
		buf = calloc(1, 1);
		assert_non_null(buf);
		return buf;
	}
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

double tsi_test_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tsi_test_copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	if (!in || !out)
		fail_msg("copying %s to %s: cannot open", from, to);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

#if __has_include(<tilescope/trace.h>)
tsr_trace *tsi_test_open_trace(const char *path)
{
	tsr_trace *tr = NULL;

	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK)
		fail_msg("%s: %s", path, tsr_last_error());
	return tr;
}
#endif
