/*
 * tsb_utf8_*: RFC 3629's well-formed sequences, and cuts that never split
 * one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/utf8.h>

#include <stdint.h>
#include <string.h>

/* Decodes s (its length) whole and returns the length and code point. */
static size_t decode(const char *s, uint32_t *cp)
{
	*cp = 0xffffffffu;
	return tsb_utf8_decode((const unsigned char *)s, strlen(s), cp);
}

static void test_decode_accepts_each_length(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(decode("A", &cp), 1);
	assert_int_equal(cp, 0x41);
	assert_int_equal(decode("\xc2\xb5", &cp), 2); /* µ */
	assert_int_equal(cp, 0xb5);
	assert_int_equal(decode("\xe2\x80\xa8", &cp), 3); /* U+2028 */
	assert_int_equal(cp, 0x2028);
	assert_int_equal(decode("\xef\xbf\xbd", &cp), 3);
	assert_int_equal(cp, 0xfffd);
	assert_int_equal(decode("\xf0\x9f\x98\x80", &cp), 4); /* U+1F600 */
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(decode("\xf4\x8f\xbf\xbf", &cp), 4); /* U+10FFFF */
	assert_int_equal(cp, 0x10ffff);
	/* NUL in a counted run is a character of its own. */
	assert_int_equal(tsb_utf8_decode((const unsigned char *)"\0x", 2, &cp), 1);
	assert_int_equal(cp, 0);
}

static void test_decode_refuses_malformed(void **state)
{
	static const char *const bad[] = {
		"\x80",             /* stray continuation */
		"\xbf",
		"\xc0\x80",         /* overlong NUL */
		"\xc1\xbf",         /* overlong */
		"\xe0\x80\x80",     /* overlong 3-byte */
		"\xe0\x9f\xbf",
		"\xed\xa0\x80",     /* surrogate U+D800 */
		"\xed\xbf\xbf",     /* surrogate U+DFFF */
		"\xf0\x80\x80\x80", /* overlong 4-byte */
		"\xf0\x8f\xbf\xbf",
		"\xf4\x90\x80\x80", /* U+110000 */
		"\xf5\x80\x80\x80",
		"\xff",
		"\xc2",             /* cut short */
		"\xe2\x80",
		"\xf0\x9f\x98",
		"\xc2\x41",         /* continuation missing */
	};
	uint32_t cp;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (decode(bad[i], &cp) != 0)
			fail_msg("case %zu decoded", i);
	}
	/* A sequence cut by n, though the bytes after it would complete it. */
	assert_int_equal(tsb_utf8_decode((const unsigned char *)"\xe2\x80\xa8", 2, &cp), 0);
	assert_int_equal(tsb_utf8_decode((const unsigned char *)"A", 0, &cp), 0);
	/* A NUL stops a sequence given SIZE_MAX. */
	assert_int_equal(tsb_utf8_decode((const unsigned char *)"\xc2", SIZE_MAX, &cp), 0);
}

static void test_valid(void **state)
{
	(void)state;
	assert_true(tsb_utf8_valid("", SIZE_MAX));
	assert_true(tsb_utf8_valid("plain ascii", SIZE_MAX));
	assert_true(tsb_utf8_valid("na\xc3\xafve \xf0\x9f\x98\x80", SIZE_MAX));
	assert_false(tsb_utf8_valid("abc\xff", SIZE_MAX));
	assert_false(tsb_utf8_valid("\xed\xa0\x80", SIZE_MAX));
	assert_false(tsb_utf8_valid(NULL, 0));
	/* A counted run: the bad byte past n does not count, the cut one does. */
	assert_true(tsb_utf8_valid("ab\xff", 2));
	assert_false(tsb_utf8_valid("a\xc3\xaf", 2));
}

static void test_truncate_on_boundaries(void **state)
{
	/* "aé€😀": 1 + 2 + 3 + 4 bytes. */
	const char *s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";

	(void)state;
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 100), 10);
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 10), 10);
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 9), 6); /* not into the emoji */
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 7), 6);
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 6), 6);
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 5), 3); /* not into the euro */
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 2), 1); /* not into the é */
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 1), 1);
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, 0), 0);
	/* Bad bytes are one character each. */
	assert_int_equal(tsb_utf8_truncate("\xff\xfe\xfd", SIZE_MAX, 2), 2);
	/* A counted string and a huge limit. */
	assert_int_equal(tsb_utf8_truncate(s, 3, SIZE_MAX), 3);
	assert_int_equal(tsb_utf8_truncate(s, SIZE_MAX, SIZE_MAX), 10);
}

static void test_start(void **state)
{
	const char *s = "a\xe2\x82\xac" "b";

	(void)state;
	assert_int_equal(tsb_utf8_start(s, 3, 0), 1);
	assert_int_equal(tsb_utf8_start(s, 2, 0), 1);
	assert_int_equal(tsb_utf8_start(s, 1, 0), 1);
	assert_int_equal(tsb_utf8_start(s, 4, 0), 4);
	assert_int_equal(tsb_utf8_start(s, 3, 2), 2); /* not below the floor */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_accepts_each_length),
		cmocka_unit_test(test_decode_refuses_malformed),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_truncate_on_boundaries),
		cmocka_unit_test(test_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
