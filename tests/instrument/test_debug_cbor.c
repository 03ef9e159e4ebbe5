/*
 * White-box tests of the debug.cbor writer (report/debug-cbor.c): the
 * document written for a small model, read back with cbor_load, has the
 * documented layout and lists exactly the profile's programs, compute
 * sets and variables of each context; the write is atomic (no temporary
 * file is left, an existing file is replaced whole) and a path that cannot
 * be written is an error that leaves nothing behind.
 */
#include "test-util.h"

#include <cbor.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tilescope/ipu.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>
#include <tilescope/profile.h>

#include "autoreport/autoreport-private.h"

/* --- Helpers ---------------------------------------------------------------- */

/* "<dir>/<name>" (malloc). */
static char *join(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);

	assert_non_null(p);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* The names in `dir` other than . and .., joined by spaces, sorted by the
 * directory's order (malloc). */
static char *list_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *out = calloc(1, 1);
	size_t len = 0;

	assert_non_null(d);
	assert_non_null(out);
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		out = realloc(out, len + strlen(e->d_name) + 2);
		assert_non_null(out);
		len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", e->d_name);
	}
	closedir(d);
	return out;
}

/* Loads a whole CBOR file; fails the test unless it is one valid item. */
static cbor_item_t *load_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct cbor_load_result res;
	unsigned char *buf;
	cbor_item_t *item;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	item = cbor_load(buf, (size_t)n, &res);
	free(buf);
	if (!item || res.error.code != CBOR_ERR_NONE)
		fail_msg("cbor_load failed at byte %zu (code %d)", res.error.position,
		         (int)res.error.code);
	assert_int_equal(res.read, (size_t)n); /* one item, nothing after it */
	return item;
}

/* The value of text key `key` in definite map `map` (borrowed), or NULL. */
static cbor_item_t *map_get(const cbor_item_t *map, const char *key)
{
	struct cbor_pair *pairs = cbor_map_handle(map);

	for (size_t i = 0; i < cbor_map_size(map); i++) {
		const cbor_item_t *k = pairs[i].key;
		if (cbor_isa_string(k) && cbor_string_is_definite(k) &&
		    cbor_string_length(k) == strlen(key) &&
		    memcmp(cbor_string_handle(k), key, strlen(key)) == 0)
			return pairs[i].value;
	}
	return NULL;
}

/* An unsigned integer value of any width. */
static uint64_t uint_of(const cbor_item_t *item)
{
	assert_true(cbor_isa_uint(item));
	return cbor_get_int(item);
}

/* Fails unless `item` is the text `want`. */
static void assert_text(const cbor_item_t *item, const char *want)
{
	assert_non_null(item);
	assert_true(cbor_isa_string(item));
	assert_int_equal(cbor_string_length(item), strlen(want));
	assert_memory_equal(cbor_string_handle(item), want, strlen(want));
}

/* Fails unless `list` holds, in ascending order, exactly the indexes
 * 0..n for which ctx_of(i) == id. Returns how many that is. */
static size_t assert_members(const cbor_item_t *list, uint32_t id, size_t n,
                             uint32_t (*ctx_of)(const tsi_graph_profile *, size_t),
                             const tsi_graph_profile *gp)
{
	size_t k = 0;

	assert_non_null(list);
	assert_true(cbor_isa_array(list));
	for (size_t i = 0; i < n; i++) {
		if (ctx_of(gp, i) != id)
			continue;
		assert_true(k < cbor_array_size(list));
		assert_int_equal(uint_of(cbor_array_handle(list)[k]), i);
		k++;
	}
	assert_int_equal(cbor_array_size(list), k);
	return k;
}

static uint32_t program_ctx(const tsi_graph_profile *gp, size_t i)
{
	return gp->programs[i].debug_context;
}

static uint32_t cs_ctx(const tsi_graph_profile *gp, size_t i)
{
	return gp->compute_sets[i].debug_context;
}

static uint32_t var_ctx(const tsi_graph_profile *gp, size_t i)
{
	return gp->variables[i].debug_context;
}

/* A small model: a user layer holding an add and a ReLU, then a reduce
 * outside it; compiled into m->engine. */
static const tsi_graph_profile *small_model(tsi_test_model *m)
{
	tsi_tensor *a, *b, *s, *r;
	tsi_debug_id layer;

	tsi_test_model_init(m, 1, 4, 1);
	assert_int_equal(tsi_popops_add_codelets(m->graph), TSI_OK);
	assert_int_equal(tsi_popnn_add_codelets(m->graph), TSI_OK);
	m->seq = tsi_prog_sequence(m->graph, "seq");
	a = tsi_graph_add_variable(m->graph, TSI_FLOAT, TSI_SHAPE(32), "a");
	b = tsi_graph_add_variable(m->graph, TSI_FLOAT, TSI_SHAPE(32), "b");
	assert_int_equal(tsi_graph_map_linearly(m->graph, a, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(m->graph, b, 0), TSI_OK);
	layer = tsi_debug_push(m->graph, "fc1", NULL);
	s = tsi_popops_add(m->graph, a, b, m->seq, "bias");
	r = s ? tsi_popnn_nonlinearity(m->graph, TSI_POPNN_RELU, s, m->seq, "relu") : NULL;
	assert_non_null(r);
	tsi_debug_pop(m->graph, layer);
	assert_non_null(tsi_popops_reduce(m->graph, r, (const size_t[]){0}, 1,
	                                  TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT, m->seq, "loss"));
	tsi_test_model_load(m, NULL, 0, NULL);
	return tsi_engine_get_graph_profile(m->engine);
}

/* --- Tests ----------------------------------------------------------------- */

/* The document has the documented layout and its lists match the profile. */
static void test_layout_matches_profile(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp = small_model(&m);
	char *dir = tsi_test_mkdtemp();
	char *path = join(dir, "debug.cbor");
	cbor_item_t *root, *contexts;
	size_t listed[3] = {0, 0, 0}, expected[3] = {0, 0, 0};
	char *names;
	(void)state;

	assert_int_equal(tsi_debug_cbor_write(path, gp, NULL), TSI_OK);
	names = list_dir(dir);
	assert_string_equal(names, "debug.cbor"); /* no temporary file left */
	free(names);

	root = load_file(path);
	assert_true(cbor_isa_map(root));
	assert_int_equal(cbor_map_size(root), 2);
	assert_int_equal(uint_of(map_get(root, "version")), 1);
	contexts = map_get(root, "contexts");
	assert_non_null(contexts);
	assert_true(cbor_isa_array(contexts));
	assert_int_equal(gp->n_debug_contexts, 4); /* fc1, bias, relu, loss */
	assert_int_equal(cbor_array_size(contexts), gp->n_debug_contexts);

	for (size_t i = 0; i < gp->n_debug_contexts; i++) {
		const tsi_debug_context_profile *d = &gp->debug_contexts[i];
		const cbor_item_t *c = cbor_array_handle(contexts)[i];
		const cbor_item_t *api;
		uint32_t id = (uint32_t)(i + 1);

		assert_true(cbor_isa_map(c));
		assert_int_equal(cbor_map_size(c), 8);
		assert_int_equal(uint_of(map_get(c, "id")), id);
		/* Shortest form: small numbers take one byte. */
		assert_int_equal(cbor_int_get_width(map_get(c, "id")), CBOR_INT_8);
		assert_int_equal(uint_of(map_get(c, "parent")), d->parent);
		assert_true(d->parent < id);
		assert_text(map_get(c, "name"), d->name);
		assert_text(map_get(c, "layer"), d->layer);
		api = map_get(c, "api");
		assert_non_null(api);
		if (d->api)
			assert_text(api, d->api);
		else
			assert_true(cbor_is_null(api));
		listed[0] += assert_members(map_get(c, "programs"), id, gp->n_programs, program_ctx, gp);
		listed[1] +=
		    assert_members(map_get(c, "computeSets"), id, gp->n_compute_sets, cs_ctx, gp);
		listed[2] += assert_members(map_get(c, "variables"), id, gp->n_variables, var_ctx, gp);
	}
	/* Every object with a context is listed once. */
	for (size_t i = 0; i < gp->n_programs; i++)
		expected[0] += gp->programs[i].debug_context != 0;
	for (size_t i = 0; i < gp->n_compute_sets; i++)
		expected[1] += gp->compute_sets[i].debug_context != 0;
	for (size_t i = 0; i < gp->n_variables; i++)
		expected[2] += gp->variables[i].debug_context != 0;
	for (int k = 0; k < 3; k++) {
		assert_int_equal(listed[k], expected[k]);
		assert_true(listed[k] > 0);
	}

	/* The model's layer: a user context with no api, owning nothing
	 * itself (its operations own what they made). */
	const cbor_item_t *fc1 = cbor_array_handle(contexts)[0];
	assert_text(map_get(fc1, "name"), "fc1");
	assert_text(map_get(fc1, "layer"), "user");
	assert_true(cbor_is_null(map_get(fc1, "api")));
	assert_int_equal(cbor_array_size(map_get(fc1, "variables")), 0);
	const cbor_item_t *bias = cbor_array_handle(contexts)[1];
	assert_text(map_get(bias, "api"), "popops::add");
	assert_int_equal(uint_of(map_get(bias, "parent")), 1);
	assert_int_equal(cbor_array_size(map_get(bias, "computeSets")), 1);

	cbor_decref(&root);
	free(path);
	tsi_test_rmtree(dir);
	tsi_test_model_free(&m);
}

/* Writing over an existing file replaces it whole, by rename. */
static void test_replaces_existing(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp = small_model(&m);
	char *dir = tsi_test_mkdtemp();
	char *path = join(dir, "debug.cbor");
	FILE *f = fopen(path, "wb");
	cbor_item_t *root;
	char *names;
	(void)state;

	assert_non_null(f);
	fputs("an old, much longer file that is not CBOR at all ...........................", f);
	fclose(f);
	assert_int_equal(tsi_debug_cbor_write(path, gp, NULL), TSI_OK);
	root = load_file(path); /* fails unless the file is exactly one item */
	assert_int_equal(cbor_array_size(map_get(root, "contexts")), gp->n_debug_contexts);
	cbor_decref(&root);
	names = list_dir(dir);
	assert_string_equal(names, "debug.cbor");
	free(names);
	free(path);
	tsi_test_rmtree(dir);
	tsi_test_model_free(&m);
}

/* A context named with bytes that are not UTF-8 (a stray 0xFF, a lone
 * lead byte) is written as UTF-8 text with U+FFFD for each: CBOR text
 * must be UTF-8, and libcbor refused the old file (error 5). The profile
 * holds the same name, so reportlib finds the two files equal. */
static void test_names_not_utf8(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	char *dir = tsi_test_mkdtemp();
	char *path = join(dir, "debug.cbor");
	cbor_item_t *root;
	const cbor_item_t *c;
	tsi_debug_id id;
	(void)state;

	tsi_test_model_init(&m, 1, 4, 1);
	m.seq = tsi_prog_sequence(m.graph, "seq");
	id = tsi_debug_push_api(m.graph, "fc\xff" "1\xc3", "la\x80yer", "api\xfe");
	assert_non_null(tsi_graph_add_variable(m.graph, TSI_FLOAT, TSI_SHAPE(4), "v"));
	tsi_debug_pop(m.graph, id);
	tsi_test_model_load(&m, NULL, 0, NULL);
	gp = tsi_engine_get_graph_profile(m.engine);
	assert_int_equal(gp->n_debug_contexts, 1);
	assert_string_equal(gp->debug_contexts[0].name, "fc\xef\xbf\xbd" "1\xef\xbf\xbd");

	assert_int_equal(tsi_debug_cbor_write(path, gp, NULL), TSI_OK);
	root = load_file(path);
	c = cbor_array_handle(map_get(root, "contexts"))[0];
	assert_text(map_get(c, "name"), "fc\xef\xbf\xbd" "1\xef\xbf\xbd");
	assert_text(map_get(c, "layer"), "la\xef\xbf\xbd" "yer");
	assert_text(map_get(c, "api"), "api\xef\xbf\xbd");
	cbor_decref(&root);
	free(path);
	tsi_test_rmtree(dir);
	tsi_test_model_free(&m);
}

/* A profile without contexts gives an empty list. */
static void test_no_contexts(void **state)
{
	tsi_graph_profile gp;
	char *dir = tsi_test_mkdtemp();
	char *path = join(dir, "debug.cbor");
	cbor_item_t *root, *contexts;
	(void)state;

	memset(&gp, 0, sizeof(gp));
	assert_int_equal(tsi_debug_cbor_write(path, &gp, NULL), TSI_OK);
	root = load_file(path);
	assert_int_equal(uint_of(map_get(root, "version")), 1);
	contexts = map_get(root, "contexts");
	assert_non_null(contexts);
	assert_int_equal(cbor_array_size(contexts), 0);
	cbor_decref(&root);
	free(path);
	tsi_test_rmtree(dir);
}

/* A directory that does not exist, or a "directory" that is a file, is an
 * I/O error naming the path; nothing is created. */
static void test_unwritable(void **state)
{
	tsi_graph_profile gp;
	char *dir = tsi_test_mkdtemp();
	char *missing = join(dir, "no/such/dir/debug.cbor");
	char *file = join(dir, "plain");
	char *under_file = join(dir, "plain/debug.cbor");
	FILE *f = fopen(file, "wb");
	char *names;
	(void)state;

	memset(&gp, 0, sizeof(gp));
	assert_non_null(f);
	fclose(f);
	assert_int_equal(tsi_debug_cbor_write(missing, &gp, NULL), TSI_ERR_IO);
	assert_non_null(strstr(tsi_error_last(), "no/such/dir/debug.cbor"));
	assert_int_equal(tsi_debug_cbor_write(under_file, &gp, NULL), TSI_ERR_IO);
	assert_int_equal(tsi_debug_cbor_write(NULL, &gp, NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_debug_cbor_write(missing, NULL, NULL), TSI_ERR_INVALID_ARGUMENT);
	names = list_dir(dir);
	assert_string_equal(names, "plain");
	free(names);
	free(missing);
	free(file);
	free(under_file);
	tsi_test_rmtree(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_layout_matches_profile),
	cmocka_unit_test(test_replaces_existing),
	cmocka_unit_test(test_names_not_utf8),
	cmocka_unit_test(test_no_contexts),
	cmocka_unit_test(test_unwritable),
};

int main(void)
{
	return cmocka_run_group_tests(tests, NULL, NULL);
}
