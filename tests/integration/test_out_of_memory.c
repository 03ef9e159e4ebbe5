/*
 * Models that do not fit in tile memory: the tutorial 4 model on a Mk2
 * target shrunk to 8 tiles, and a deliberately large tensor on one tile
 * of a full IPU. The graph profile lists exactly the tiles whose memory
 * including gaps exceeds the tile; loading fails with
 * TSI_ERR_OUT_OF_MEMORY naming the fullest tiles; and with
 * debug.allowOutOfMemory=false compiling fails the same way.
 */
#include "profile-checks.h"
#include "test-util.h"
#include "tut4-model.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

/* The tiles an out-of-memory message names ("tile T needs N bytes"), in
 * its order, with the bytes it gives for each. */
typedef struct named_tiles {
	size_t n;
	unsigned tile[8];
	unsigned long long need[8];
} named_tiles;

/* Parses every "tile T needs N bytes" of `msg`. */
static named_tiles parse_named(const char *msg)
{
	named_tiles nt = {0};
	const char *p = msg;

	while ((p = strstr(p, "tile ")) != NULL && nt.n < 8) {
		unsigned tile;
		unsigned long long need;

		if (sscanf(p, "tile %u needs %llu bytes", &tile, &need) == 2) {
			nt.tile[nt.n] = tile;
			nt.need[nt.n] = need;
			nt.n++;
		}
		p += 5;
	}
	return nt;
}

/*
 * Checks a message against the profile: it names min(5, OOM tiles)
 * tiles, fullest first, each an out-of-memory tile with the bytes the
 * profile gives it, the first the fullest of all.
 */
static void check_named(const tsi_graph_profile *gp, const char *msg)
{
	named_tiles nt = parse_named(msg);
	uint64_t fullest = 0;
	size_t want = gp->n_oom_tiles < 5 ? gp->n_oom_tiles : 5;

	if (nt.n != want)
		fail_msg("the message names %zu tiles, expected %zu: %s", nt.n, want, msg);
	for (size_t i = 0; i < gp->n_oom_tiles; i++) {
		uint64_t b = gp->by_tile[gp->oom_tiles[i]].total_including_gaps;
		if (b > fullest)
			fullest = b;
	}
	for (size_t i = 0; i < nt.n; i++) {
		bool listed = false;

		for (size_t k = 0; k < gp->n_oom_tiles; k++)
			listed |= gp->oom_tiles[k] == nt.tile[i];
		if (!listed)
			fail_msg("the message names tile %u, which is not out of memory: %s", nt.tile[i], msg);
		assert_int_equal(nt.need[i], gp->by_tile[nt.tile[i]].total_including_gaps);
		if (i > 0)
			assert_true(nt.need[i] <= nt.need[i - 1]);
	}
	assert_int_equal(nt.need[0], fullest);
}

/* Creates a Mk2 device of `tiles_per_ipu` tiles (0: all) and a graph. */
static void setup(tsi_device **dev, tsi_graph **g, unsigned tiles_per_ipu)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	o.tiles_per_ipu = tiles_per_ipu;
	assert_int_equal(tsi_device_new_ipu_model(dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(g, tsi_device_get_target(*dev), 1), TSI_OK);
}

/*
 * Compiles `prog` twice: with the default (the profile is kept, loading
 * and running are refused, naming the fullest tiles) and with
 * debug.allowOutOfMemory=false (compiling is refused, naming the same
 * tiles). Returns the number of out-of-memory tiles and, through
 * `oom_tile0`, the first of them.
 */
static size_t check_refusals(tsi_device *dev, tsi_graph *g, tsi_program *prog,
                             uint32_t *oom_tile0)
{
	tsi_engine *e = NULL, *e2 = (tsi_engine *)&e;
	tsi_options *strict = tsi_options_new();
	const tsi_graph_profile *gp;
	char *load_msg;
	size_t n_oom;

	assert_non_null(strict);
	if (tsi_engine_new(&e, g, &prog, 1, NULL) != TSI_OK)
		fail_msg("compiling with the default options: %s", tsi_error_last());
	gp = tsi_engine_get_graph_profile(e);
	check_graph_profile(gp, NULL);
	n_oom = gp->n_oom_tiles;
	assert_true(n_oom > 0);
	*oom_tile0 = gp->oom_tiles[0];

	assert_int_equal(tsi_engine_load(e, dev), TSI_ERR_OUT_OF_MEMORY);
	load_msg = strdup(tsi_engine_error(e));
	assert_non_null(load_msg);
	assert_non_null(strstr(load_msg, "out of memory"));
	check_named(gp, load_msg);
	assert_int_equal(tsi_engine_run(e, 0), TSI_ERR_NOT_ATTACHED);
	assert_int_equal(tsi_engine_num_run_profiles(e), 0);

	assert_int_equal(tsi_options_set(strict, "debug.allowOutOfMemory", "false"), TSI_OK);
	assert_int_equal(tsi_engine_new(&e2, g, &prog, 1, strict), TSI_ERR_OUT_OF_MEMORY);
	assert_null(e2);
	assert_non_null(strstr(tsi_error_last(), "debug.allowOutOfMemory"));
	check_named(gp, tsi_error_last());
	/* Both messages name the same tiles in the same order. */
	{
		named_tiles a = parse_named(load_msg), b = parse_named(tsi_error_last());
		assert_int_equal(a.n, b.n);
		assert_memory_equal(a.tile, b.tile, a.n * sizeof(a.tile[0]));
	}

	free(load_msg);
	tsi_options_free(strict);
	tsi_engine_free(e);
	return n_oom;
}

/* The tutorial 4 model needs about 4.6 MB of variables: on 8 tiles of
 * 624 KiB they cannot fit. */
static void test_tut4_on_eight_tiles(void **state)
{
	const tut4_sizes sizes = TUT4_SIZES_DEFAULT;
	tsi_device *dev;
	tsi_graph *g;
	tut4_model m;
	uint32_t first;
	(void)state;

	setup(&dev, &g, 8);
	if (tut4_model_build(&m, g, &sizes) != TSI_OK)
		fail_msg("building tut4: %s", tsi_graph_get_error(g));
	assert_true(check_refusals(dev, g, m.prog, &first) >= 1);
	tsi_graph_free(g);
	tsi_device_free(dev);
}

/* One always-live 800,000-byte tensor on tile 3 of a full Mk2 IPU
 * (638,976 bytes a tile): tile 3, and only tile 3, is out of memory. */
static void test_large_tensor_on_one_tile(void **state)
{
	tsi_device *dev;
	tsi_graph *g;
	tsi_tensor *big;
	tsi_program *prog;
	uint32_t first;
	(void)state;

	setup(&dev, &g, 0);
	big = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(200000), "big");
	assert_int_equal(tsi_graph_set_tile_mapping(g, big, 3), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(g, "big", big), TSI_OK);
	prog = tsi_prog_sequence(g, "main");
	assert_non_null(prog);
	assert_int_equal(check_refusals(dev, g, prog, &first), 1);
	assert_int_equal(first, 3);
	tsi_graph_free(g);
	tsi_device_free(dev);
}

/* Both models that do not fit. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tut4_on_eight_tiles),
		cmocka_unit_test(test_large_tensor_on_one_tile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
