/*
 * The one verdict rule of compare.h (issue 26 item 5): every metric
 * tsr_compare emits has a defined direction, every delta's verdict is
 * tsr_delta_get_verdict of it and its gaps counterpart, a per-IPU total
 * of a one-IPU report is judged as the whole report's total with the
 * same change, and the rule itself on made-up deltas of each kind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilescope/compare.h>

static const char *const samples[] = {"tut4_profiling", "tut5_ml", "tut7_mk1", "tut7_mk1_small"};

static tsr_report *open_sample(const char *name)
{
	char path[4096];
	tsr_report *r = NULL;

	snprintf(path, sizeof(path), "%s/%s/profile.pop", SAMPLE_REPORTS, name);
	if (tsr_report_open(&r, path, NULL) != TSR_OK)
		fail_msg("cannot open %s: %s", path, tsr_last_error());
	return r;
}

/* The counterpart the header documents, spelt out independently of
 * compare.c: NULL when `m` has none. */
static const char *counterpart(char *buf, size_t size, const char *m)
{
	unsigned ipu;
	int end = 0;

	if (strcmp(m, "memory.total") == 0)
		return "memory.total_including_gaps";
	if (strcmp(m, "memory.total_including_gaps") == 0)
		return "memory.total";
	if (strcmp(m, "memory.max_tile") == 0)
		return "memory.max_tile_excluding_gaps";
	if (strcmp(m, "memory.max_tile_excluding_gaps") == 0)
		return "memory.max_tile";
	if (sscanf(m, "memory.ipu%u.total%n", &ipu, &end) == 1 && end && m[end] == '\0') {
		snprintf(buf, size, "memory.ipu%u.total_including_gaps", ipu);
		return buf;
	}
	end = 0;
	if (sscanf(m, "memory.ipu%u.total_including_gaps%n", &ipu, &end) == 1 && end &&
	    m[end] == '\0') {
		snprintf(buf, size, "memory.ipu%u.total", ipu);
		return buf;
	}
	return NULL;
}

/* The direction the kind of `m` must have. */
static tsr_metric_direction want_direction(const char *m)
{
	if (strncmp(m, "memory.", 7) == 0 || strncmp(m, "cycles.", 7) == 0 ||
	    strncmp(m, "steps.", 6) == 0)
		return TSR_DIRECTION_LOWER_IS_BETTER;
	if (strncmp(m, "flops.", 6) == 0 || strncmp(m, "graph.", 6) == 0)
		return TSR_DIRECTION_NEITHER;
	return TSR_DIRECTION_UNKNOWN;
}

/* Every ordered pair of sample reports (and each with itself). */
static void test_samples(void **state)
{
	size_t n_samples = sizeof(samples) / sizeof(samples[0]);
	tsr_report *r[sizeof(samples) / sizeof(samples[0])];
	size_t checked = 0, mixed = 0;

	(void)state;
	for (size_t i = 0; i < n_samples; i++)
		r[i] = open_sample(samples[i]);
	for (size_t a = 0; a < n_samples; a++)
		for (size_t b = 0; b < n_samples; b++) {
			tsr_comparison *cmp = NULL;

			assert_int_equal(tsr_compare_programs(&cmp, r[a], r[b], NULL), TSR_OK);
			for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++) {
				const tsr_delta *d = tsr_comparison_get_delta(cmp, i), *c = NULL;
				char buf[64];
				const char *other = counterpart(buf, sizeof(buf), d->metric);
				tsr_metric_direction dir = tsr_metric_get_direction(d->metric);

				if (dir == TSR_DIRECTION_UNKNOWN || dir != want_direction(d->metric))
					fail_msg("%s: direction %d", d->metric, (int)dir);
				if (other) {
					c = tsr_comparison_lookup_delta(cmp, other);
					if (!c)
						fail_msg("%s without its counterpart %s", d->metric, other);
				}
				if (d->verdict != tsr_delta_get_verdict(d, c))
					fail_msg("%s -> %s: %s is %s, the rule says %s", samples[a], samples[b],
					         d->metric, tsr_verdict_get_name(d->verdict),
					         tsr_verdict_get_name(tsr_delta_get_verdict(d, c)));
				if (a == b && d->verdict != TSR_VERDICT_SAME)
					fail_msg("%s against itself: %s is %s", samples[a], d->metric,
					         tsr_verdict_get_name(d->verdict));
				/* A gaps pair gets one verdict when it moved apart. */
				if (c && d->verdict == TSR_VERDICT_CHANGED && d->change)
					assert_int_equal(c->verdict, TSR_VERDICT_CHANGED);
				checked++;
			}
			/* One IPU: the per-IPU totals are the totals, judged alike. */
			{
				static const char *const pairs[][2] = {
				    {"memory.total_including_gaps", "memory.ipu0.total_including_gaps"},
				    {"memory.total", "memory.ipu0.total"},
				};

				for (size_t k = 0; k < 2; k++) {
					const tsr_delta *w = tsr_comparison_lookup_delta(cmp, pairs[k][0]);
					const tsr_delta *p = tsr_comparison_lookup_delta(cmp, pairs[k][1]);

					assert_non_null(w);
					assert_non_null(p);
					assert_true(w->base == p->base && w->new_value == p->new_value);
					if (w->verdict != p->verdict)
						fail_msg("%s -> %s: %s %s but %s %s", samples[a], samples[b],
						         pairs[k][0], tsr_verdict_get_name(w->verdict), pairs[k][1],
						         tsr_verdict_get_name(p->verdict));
				}
				if (tsr_comparison_lookup_delta(cmp, pairs[0][0])->verdict ==
				        TSR_VERDICT_CHANGED &&
				    tsr_comparison_lookup_delta(cmp, pairs[0][0])->change)
					mixed++;
			}
			tsr_comparison_free(cmp);
		}
	for (size_t i = 0; i < n_samples; i++)
		tsr_report_free(r[i]);
	assert_true(checked > 1000);
	/* tut7_mk1 and tut5_ml move the totals apart, both ways round. */
	assert_int_equal(mixed, 2);
}

/* A made-up delta. */
static tsr_delta mk(const char *metric, bool in_base, bool in_new, uint64_t base, uint64_t nv)
{
	tsr_delta d = {0};

	d.metric = metric;
	d.unit = TSR_UNIT_BYTES;
	d.in_base = in_base;
	d.in_new = in_new;
	d.base = base;
	d.new_value = nv;
	d.change = (int64_t)(in_new ? nv : 0) - (int64_t)(in_base ? base : 0);
	return d;
}

/* The rule on each kind of metric. */
static void test_rule(void **state)
{
	static const char *const costs[] = {
	    "memory.total",  "memory.ipu3.total_including_gaps", "memory.category.stack",
	    "memory.oom_tiles", "cycles.total", "cycles.vertex_type.Foo", "steps.total",
	    "steps.run.main",
	};
	static const char *const neither[] = {"flops.total", "flops.operation.fc", "graph.edges",
	                                      "graph.vertices"};
	static const char *const unknown[] = {"", "memory.", "bananas.total", "memoryx.total",
	                                      "Memory.total"};
	tsr_delta d, c;

	(void)state;
	for (size_t i = 0; i < sizeof(costs) / sizeof(costs[0]); i++) {
		assert_int_equal(tsr_metric_get_direction(costs[i]), TSR_DIRECTION_LOWER_IS_BETTER);
		d = mk(costs[i], true, true, 10, 10);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_SAME);
		d = mk(costs[i], true, true, 10, 9);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_BETTER);
		d = mk(costs[i], true, true, 10, 11);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_WORSE);
		d = mk(costs[i], false, true, 0, 5);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_WORSE);
		d = mk(costs[i], true, false, 5, 0);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_BETTER);
		d = mk(costs[i], false, true, 0, 0);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_CHANGED);
	}
	for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
		assert_int_equal(tsr_metric_get_direction(neither[i]), TSR_DIRECTION_NEITHER);
		d = mk(neither[i], true, true, 10, 9);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_CHANGED);
		d = mk(neither[i], true, true, 10, 11);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_CHANGED);
		d = mk(neither[i], true, true, 7, 7);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_SAME);
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		assert_int_equal(tsr_metric_get_direction(unknown[i]), TSR_DIRECTION_UNKNOWN);
		d = mk(unknown[i], true, true, 10, 9);
		assert_int_equal(tsr_delta_get_verdict(&d, NULL), TSR_VERDICT_CHANGED);
	}
	assert_int_equal(tsr_metric_get_direction(NULL), TSR_DIRECTION_UNKNOWN);
	assert_int_equal(tsr_delta_get_verdict(NULL, NULL), TSR_VERDICT_CHANGED);

	/* A gaps pair: apart, both only change; together, both better or
	 * worse; the counterpart missing from a side changes nothing. */
	d = mk("memory.ipu1.total_including_gaps", true, true, 100, 120);
	c = mk("memory.ipu1.total", true, true, 50, 40);
	assert_int_equal(tsr_delta_get_verdict(&d, &c), TSR_VERDICT_CHANGED);
	assert_int_equal(tsr_delta_get_verdict(&c, &d), TSR_VERDICT_CHANGED);
	c = mk("memory.ipu1.total", true, true, 50, 60);
	assert_int_equal(tsr_delta_get_verdict(&d, &c), TSR_VERDICT_WORSE);
	c = mk("memory.ipu1.total", true, true, 50, 50);
	assert_int_equal(tsr_delta_get_verdict(&d, &c), TSR_VERDICT_WORSE);
	assert_int_equal(tsr_delta_get_verdict(&c, &d), TSR_VERDICT_SAME);
	c = mk("memory.ipu1.total", false, true, 0, 40);
	assert_int_equal(tsr_delta_get_verdict(&d, &c), TSR_VERDICT_WORSE);

	assert_string_equal(tsr_verdict_get_name(TSR_VERDICT_SAME), "same");
	assert_string_equal(tsr_verdict_get_name(TSR_VERDICT_BETTER), "better");
	assert_string_equal(tsr_verdict_get_name(TSR_VERDICT_WORSE), "worse");
	assert_string_equal(tsr_verdict_get_name(TSR_VERDICT_CHANGED), "changed");
	assert_string_equal(tsr_verdict_get_name((tsr_verdict)99), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_samples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
