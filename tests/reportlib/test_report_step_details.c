/*
 * What one step runs (tsr_report_list_compute_set_vertices,
 * tsr_report_fill_program_cycle_estimate): on the matmul fixture against
 * the simulator's own profile (each compute set's vertex types, counts,
 * state and the tiles holding their code; each program's per-tile cycles,
 * their least, greatest, mean, sum and busiest tiles; no estimate for a
 * program that has none), and on tutorial 5's sample report against the
 * totals the writer stored beside the blobs, read with plain SQLite.
 */
#include "report-fixture.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value of sparse `tv` on `tile`. */
static uint64_t at(const tsi_tile_values *tv, uint32_t tile)
{
	for (size_t i = 0; i < tv->n; i++)
		if (tv->tiles[i] == tile)
			return tv->values[i];
	return 0;
}

static void test_vertices(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	size_t seen = 0;

	for (size_t c = 0; c < gp->n_compute_sets; c++) {
		const tsi_compute_set_profile *cs = &gp->compute_sets[c];
		tsr_cs_vertices *v = NULL;
		size_t n = 0;
		uint64_t state_sum = 0, data = 0;

		assert_int_equal(tsr_report_list_compute_set_vertices(&v, &n, f->report, c), TSR_OK);
		assert_int_equal(n, cs->n_types);
		for (size_t i = 0; i < n; i++) {
			size_t k = 0, vt = v[i].vertex_type;
			uint32_t tiles = 0;

			while (k < cs->n_types && cs->vertex_types[k] != vt)
				k++;
			assert_true(k < cs->n_types);
			assert_int_equal(v[i].count, cs->vertex_counts[k]);
			assert_int_equal(v[i].active_cycles, cs->active_cycles_by_type[k]);
			assert_int_equal(v[i].state_bytes,
			                 cs->vertex_counts[k] * gp->vertex_types[vt].state_bytes);
			for (size_t t = 0; t < cs->cycles_by_tile.n; t++)
				tiles += cs->cycles_by_tile.values[t] &&
				         at(&gp->by_vertex_type[vt].code_bytes, cs->cycles_by_tile.tiles[t]);
			assert_int_equal(v[i].tiles, tiles);
			assert_true(tiles > 0 && tiles <= cs->cycles_by_tile.n);
			state_sum += v[i].state_bytes;
			seen++;
		}
		/* The types' state adds up to the compute set's vertex state. */
		for (size_t t = 0; t < gp->by_compute_set[c].vertex_data_bytes.n; t++)
			data += gp->by_compute_set[c].vertex_data_bytes.values[t];
		assert_int_equal(state_sum, data);
		free(v);
	}
	assert_true(seen > 0);
	assert_int_equal(tsr_report_list_compute_set_vertices(NULL, NULL, f->report, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
}

/* Every program: the estimate from the simulator's per-tile cycles of
 * its compute set or exchange, or TSR_ERR_NO_DATA with a reason. */
static void test_cycle_estimates(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_program *progs;
	size_t n_progs, with = 0, without = 0;

	assert_int_equal(tsr_report_get_programs(&progs, &n_progs, f->report), TSR_OK);
	assert_int_equal(n_progs, gp->n_programs);
	for (size_t p = 0; p < n_progs; p++) {
		const tsi_lowered_program *lp = &gp->programs[p];
		const tsi_tile_values *tv =
		    lp->compute_set >= 0 ? &gp->compute_sets[lp->compute_set].cycles_by_tile
		    : lp->exchange >= 0  ? &gp->exchanges[progs[p].exchange_kind][lp->exchange].cycles
		                         : NULL;
		tsr_cycle_estimate e;
		uint64_t max = 0, min = UINT64_MAX, sum = 0, prev = UINT64_MAX;
		uint32_t tiles = 0;
		int rc = tsr_report_fill_program_cycle_estimate(&e, f->report, p);

		if (!tv) {
			assert_int_equal(rc, TSR_ERR_NO_DATA);
			assert_non_null(strstr(tsr_report_error(f->report), "no cycle estimate"));
			without++;
			continue;
		}
		assert_int_equal(rc, TSR_OK);
		for (size_t i = 0; i < tv->n; i++) {
			uint64_t c = tv->values[i];

			if (!c)
				continue;
			tiles++;
			sum += c;
			max = c > max ? c : max;
			min = c < min ? c : min;
		}
		assert_int_equal(e.cycles, max);
		assert_int_equal(e.sum, sum);
		assert_int_equal(e.tiles, tiles);
		assert_int_equal(e.min, tiles ? min : 0);
		assert_close(e.mean, tiles ? (double)sum / tiles : 0, 1e-9);
		assert_int_equal(e.n_busiest, tiles < TSR_BUSIEST_TILES ? tiles : TSR_BUSIEST_TILES);
		/* Most first, each the tile's own figure, none left out that
		 * has more than the last listed. */
		for (size_t i = 0; i < e.n_busiest; i++) {
			assert_int_equal(e.busiest_cycles[i], at(tv, e.busiest[i]));
			assert_true(e.busiest_cycles[i] <= prev);
			/* Among equals the lower tile first. */
			assert_true(i == 0 || e.busiest_cycles[i] < prev || e.busiest[i] > e.busiest[i - 1]);
			prev = e.busiest_cycles[i];
		}
		for (size_t i = 0; e.n_busiest && i < tv->n; i++) {
			bool listed = false;
			size_t last = e.n_busiest - 1;

			for (size_t k = 0; k < e.n_busiest; k++)
				listed |= e.busiest[k] == tv->tiles[i];
			assert_true(listed || tv->values[i] < e.busiest_cycles[last] ||
			            (tv->values[i] == e.busiest_cycles[last] &&
			             tv->tiles[i] > e.busiest[last]));
		}
		if (e.n_busiest)
			assert_int_equal(e.busiest_cycles[0], max);
		with++;
	}
	assert_true(with > 0 && without > 0);
	assert_int_equal(tsr_report_fill_program_cycle_estimate(&(tsr_cycle_estimate){0}, f->report,
	                                                        n_progs),
	                 TSR_ERR_OUT_OF_RANGE);
}

/* Tutorial 5's sample: every compute set's and exchange's estimate
 * against the writer's plain columns (cycles, cycles_sum, tiles), and its
 * vertices' state against vertex_count x state_bytes. */
static void test_sample(void **state)
{
	char path[1024];
	tsr_report *r = NULL;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t rows = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/tut5_ml/profile.pop", SAMPLE_REPORTS);
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(db,
	                       "SELECT p.id, coalesce(c.cycles, x.cycles), "
	                       "coalesce(c.cycles_sum, x.cycles_sum), coalesce(c.tiles, x.tiles) "
	                       "FROM program p LEFT JOIN compute_set c ON c.id = p.compute_set "
	                       "LEFT JOIN exchange x ON x.id = p.exchange AND x.kind = CASE p.type "
	                       "WHEN 'DoExchange' THEN 'internal' WHEN 'GlobalExchange' THEN "
	                       "'external' WHEN 'StreamCopy' THEN 'host' END "
	                       "WHERE p.compute_set IS NOT NULL OR p.exchange IS NOT NULL",
	                       -1, &st, NULL),
	    SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		tsr_cycle_estimate e;

		assert_int_equal(tsr_report_fill_program_cycle_estimate(
		                     &e, r, (size_t)sqlite3_column_int64(st, 0)),
		                 TSR_OK);
		assert_int_equal(e.cycles, sqlite3_column_int64(st, 1));
		assert_int_equal(e.sum, sqlite3_column_int64(st, 2));
		/* An exchange's tiles also count those that only send or
		 * receive: at least its tiles with cycles. */
		assert_true(e.tiles <= (uint64_t)sqlite3_column_int64(st, 3));
		rows++;
	}
	sqlite3_finalize(st);
	assert_true(rows > 40);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT c.compute_set, c.vertex_type, "
	                                    "c.vertex_count * v.state_bytes, k.tiles "
	                                    "FROM compute_set_vertex_type c "
	                                    "JOIN vertex_type v ON v.id = c.vertex_type "
	                                    "JOIN compute_set k ON k.id = c.compute_set",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	for (rows = 0; sqlite3_step(st) == SQLITE_ROW; rows++) {
		tsr_cs_vertices *v = NULL;
		size_t n = 0, i = 0;

		assert_int_equal(tsr_report_list_compute_set_vertices(
		                     &v, &n, r, (size_t)sqlite3_column_int64(st, 0)),
		                 TSR_OK);
		while (i < n && v[i].vertex_type != (size_t)sqlite3_column_int64(st, 1))
			i++;
		assert_true(i < n);
		assert_int_equal(v[i].state_bytes, sqlite3_column_int64(st, 2));
		assert_true(v[i].tiles > 0 && v[i].tiles <= (uint64_t)sqlite3_column_int64(st, 3));
		free(v);
	}
	assert_int_equal(rows, 28);
	sqlite3_finalize(st);
	sqlite3_close(db);
	tsr_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vertices),
	    cmocka_unit_test(test_cycle_estimates),
	};
	const struct CMUnitTest sample[] = {cmocka_unit_test(test_sample)};

	return cmocka_run_group_tests(tests, tsr_fixture_new_matmul, tsr_fixture_delete) |
	       cmocka_run_group_tests(sample, NULL, NULL);
}
