/*
 * The one allocator of Tilescope's libraries (libtilescope-base), and the
 * hook through which a fault test fails the Nth allocation (issue 27): the
 * writers (the runtime's profile.pop/debug.cbor, the tracer's .pvti) and
 * the readers (libtilescope-format, libtilescope-report) allocate through
 * these, so that a test can prove that every allocation failure becomes
 * one "out of memory" error, never a crash, a leak or a half-written file.
 *
 * Each call behaves as the C library's of the same name, except that
 * tsb_malloc(0) and friends return a unique pointer (never NULL on
 * success, so NULL always means failure). Free with tsb_free() or free():
 * they are the same. With no hook set each call costs one relaxed atomic
 * load more than the C library's.
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

/* malloc(n); NULL when out of memory (or when the hook fails this call). */
TSB_API void *tsb_malloc(size_t n) __attribute__((malloc));
/* calloc(count, size): zeroed; NULL when out of memory or count * size
 * overflows. */
TSB_API void *tsb_calloc(size_t count, size_t size) __attribute__((malloc));
/* realloc(p, n): on NULL, `p` is untouched and still the caller's. */
TSB_API void *tsb_realloc(void *p, size_t n);
/* realloc(p, count * size), NULL (and `p` untouched) when the product
 * overflows: for growing arrays. */
TSB_API void *tsb_reallocarray(void *p, size_t count, size_t size);
/* A copy of `s` (NULL gives NULL without counting an allocation); the
 * caller frees it. */
TSB_API char *tsb_strdup(const char *s) __attribute__((malloc));
/* A copy of at most `n` bytes of `s`, always terminated; NULL for NULL. */
TSB_API char *tsb_strndup(const char *s, size_t n) __attribute__((malloc));
/* The printf-formatted string, allocated; NULL when out of memory (or
 * when the format fails). The caller frees it. */
TSB_API char *tsb_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
TSB_API char *tsb_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* free(p); NULL is fine. */
TSB_API void tsb_free(void *p);

/* For tests only. Arms the hook: from this call on, allocations through
 * tsb_ are counted (every thread, atomically) and the `fail_at`-th one
 * (1-based) returns NULL, once; later ones succeed again. `fail_at` 0
 * counts without failing (to measure a clean run). Resets both counters. */
TSB_API void tsb_alloc_set_fail_at(uint64_t fail_at);
/* For tests only: disarms the hook (the counters keep their values). */
TSB_API void tsb_alloc_hook_clear(void);
/* Allocations counted since tsb_alloc_set_fail_at (the failed one
 * included). */
TSB_API uint64_t tsb_alloc_count(void);
/* Whether the hook has failed an allocation since it was armed. */
TSB_API bool tsb_alloc_injected(void);
/* For tests only: while the hook is armed, `cb` (NULL: none) is called
 * with the number of each counted allocation, from the allocating
 * thread and inside the allocation (so it may take a backtrace, but must
 * not allocate through tsb_): how a fault test tells the call sites
 * apart. */
typedef void (*tsb_alloc_observer_cb)(uint64_t n);
TSB_API void tsb_alloc_set_observer(tsb_alloc_observer_cb cb);

TSB_END_DECLS
