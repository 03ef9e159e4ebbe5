/*
 * tsd_cancel_clear (tsd-cancel.h): the work in flight sees its
 * cancellable cancelled, the holder's pointer is NULL and its reference
 * dropped, and an empty holder stays empty.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/tsd-cancel.h>

static void test_cancels_and_clears(void **state)
{
	GCancellable *held = g_cancellable_new();
	/* The worker's own reference, as a GTask would keep. */
	GCancellable *worker = g_object_ref(held);
	GCancellable *watch = held;

	(void)state;
	g_object_add_weak_pointer(G_OBJECT(watch), (gpointer *)&watch);
	tsd_cancel_clear(&held);
	assert_null(held);
	assert_true(g_cancellable_is_cancelled(worker));
	/* Only the worker's reference is left: dropping it frees the object. */
	assert_non_null(watch);
	g_object_unref(worker);
	assert_null(watch);
}

static void test_empty(void **state)
{
	GCancellable *none = NULL;

	(void)state;
	tsd_cancel_clear(&none);
	assert_null(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cancels_and_clears),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
