/*
 * The allocator of Tilescope's libraries and its fault-test hook
 * (tilescope/alloc.h). The hook is one atomic flag read relaxed on every
 * call; only when a test has armed it do the calls count themselves and
 * compare, so the libraries pay nothing measurable for being testable.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/alloc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_bool hook_armed;
static atomic_uint_fast64_t alloc_count;
static atomic_uint_fast64_t fail_at;
static atomic_bool injected;
static _Atomic(tsb_alloc_observer_cb) observer;

/* Whether this allocation is the one the armed hook fails; counts it. */
static bool fail_this_one(void)
{
	if (!atomic_load_explicit(&hook_armed, memory_order_relaxed))
		return false;
	uint64_t n = atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed) + 1;
	uint64_t target = atomic_load_explicit(&fail_at, memory_order_relaxed);
	tsb_alloc_observer_cb cb = atomic_load_explicit(&observer, memory_order_relaxed);

	if (cb)
		cb(n);
	if (target != 0 && n == target) {
		atomic_store_explicit(&injected, true, memory_order_relaxed);
		return true;
	}
	return false;
}

TSB_API void *tsb_malloc(size_t n)
{
	if (fail_this_one())
		return NULL;
	return malloc(n ? n : 1);
}

TSB_API void *tsb_calloc(size_t count, size_t size)
{
	if (fail_this_one())
		return NULL;
	if (count == 0 || size == 0)
		count = size = 1;
	return calloc(count, size);
}

TSB_API void *tsb_realloc(void *p, size_t n)
{
	if (fail_this_one())
		return NULL;
	return realloc(p, n ? n : 1);
}

TSB_API void *tsb_reallocarray(void *p, size_t count, size_t size)
{
	if (size != 0 && count > SIZE_MAX / size)
		return NULL;
	return tsb_realloc(p, count * size);
}

TSB_API char *tsb_strdup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *copy = tsb_malloc(n);
	if (copy)
		memcpy(copy, s, n);
	return copy;
}

TSB_API char *tsb_strndup(const char *s, size_t n)
{
	if (!s)
		return NULL;
	size_t len = strnlen(s, n);
	char *copy = tsb_malloc(len + 1);
	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}

TSB_API char *tsb_vasprintf(const char *fmt, va_list ap)
{
	va_list again;

	va_copy(again, ap);
	int len = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (len < 0)
		return NULL;
	char *out = tsb_malloc((size_t)len + 1);
	if (out)
		vsnprintf(out, (size_t)len + 1, fmt, ap);
	return out;
}

TSB_API char *tsb_asprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *out = tsb_vasprintf(fmt, ap);
	va_end(ap);
	return out;
}

TSB_API void tsb_free(void *p)
{
	free(p);
}

TSB_API void tsb_alloc_set_fail_at(uint64_t n)
{
	atomic_store(&hook_armed, false);
	atomic_store(&alloc_count, 0);
	atomic_store(&fail_at, n);
	atomic_store(&injected, false);
	atomic_store(&hook_armed, true);
}

TSB_API void tsb_alloc_hook_clear(void)
{
	atomic_store(&hook_armed, false);
}

TSB_API uint64_t tsb_alloc_count(void)
{
	return atomic_load(&alloc_count);
}

TSB_API bool tsb_alloc_injected(void)
{
	return atomic_load(&injected);
}

TSB_API void tsb_alloc_set_observer(tsb_alloc_observer_cb cb)
{
	atomic_store(&observer, cb);
}
