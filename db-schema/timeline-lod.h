/*
 * The rule of timeline_lod (pvti.sql): how a level-of-detail bucket of a
 * thread's timeline is filled from the outermost spans that cover it. The
 * writer applies it when it closes a trace; the reader applies it when it
 * builds a level of detail the file lacks (a crashed writer, a resolution
 * finer than the file's), so both agree bucket for bucket.
 */
#pragma once

#include <stdint.h>

/* One bucket while it is being built. */
typedef struct tsf_lod_bucket {
	uint64_t events;   /* spans starting here */
	uint64_t busy_ns;  /* covered by outermost spans */
	uint64_t best_ns;  /* coverage of the longest run of one name so far */
	uint64_t run_ns;   /* coverage of the current run of one name */
	uint32_t best_name, run_name;
} tsf_lod_bucket;

/* Adds `ns` of the outermost span `name` to a bucket: the longest run of
 * consecutive spans of one name gives the bucket its name. */
static inline void tsf_lod_cover(tsf_lod_bucket *b, uint32_t name, uint64_t ns)
{
	b->busy_ns += ns;
	if (b->run_ns && b->run_name == name) {
		b->run_ns += ns;
	} else {
		b->run_name = name;
		b->run_ns = ns;
	}
	if (b->run_ns > b->best_ns) {
		b->best_ns = b->run_ns;
		b->best_name = b->run_name;
	}
}
