/*
 * tsb_json: escaping (quotes, backslashes, every control character, bytes
 * that are not UTF-8, U+2028/2029), exact integers, locale-free doubles,
 * compact and pretty layout, and the sticky usage errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/json-writer.h>

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One string value written by a writer with `flags`, as text (malloc'd). */
static char *one_string(const char *s, size_t len, unsigned flags)
{
	tsb_json *j = tsb_json_new_buffer(flags);
	char *out;

	assert_non_null(j);
	assert_int_equal(tsb_json_string_len(j, s, len), 0);
	assert_int_equal(tsb_json_finish(j), 0);
	out = tsb_json_steal(j, NULL);
	tsb_json_free(j);
	return out;
}

#define assert_string_json(s, len, flags, want)         \
	do {                                             \
		char *got_ = one_string(s, len, flags);  \
		assert_string_equal(got_, want);         \
		free(got_);                              \
	} while (0)

static void test_escaping(void **state)
{
	(void)state;
	assert_string_json("plain", 5, 0, "\"plain\"");
	assert_string_json("a\"b\\c/d", 7, 0, "\"a\\\"b\\\\c/d\"");
	/* Every control character, NUL included, is escaped. */
	assert_string_json("\x01\x1f\n\t\r\b\f", 7, 0,
	                   "\"\\u0001\\u001f\\u000a\\u0009\\u000d\\u0008\\u000c\"");
	assert_string_json("x\0y", 3, 0, "\"x\\u0000y\"");
	/* DEL and C1 are not JSON controls. */
	assert_string_json("\x7f", 1, 0, "\"\x7f\"");
	assert_string_json("\n\t\r", 3, TSB_JSON_SHORT_NEWLINE_TAB, "\"\\n\\t\\u000d\"");
	assert_string_json("\n\t\r\b\f\x02", 6, TSB_JSON_SHORT_ESCAPES, "\"\\n\\t\\r\\b\\f\\u0002\"");
	/* Bytes that are not UTF-8: U+FFFD, raw or escaped; valid UTF-8 as it is. */
	assert_string_json("a\xff" "b\xc3\xa9", 5, 0, "\"a\xef\xbf\xbd" "b\xc3\xa9\"");
	assert_string_json("a\xff" "b\xc3\xa9", 5, TSB_JSON_ESCAPE_INVALID, "\"a\\ufffdb\xc3\xa9\"");
	/* A sequence cut by the length is invalid, one U+FFFD per byte. */
	assert_string_json("\xe2\x82\xac", 2, TSB_JSON_ESCAPE_INVALID, "\"\\ufffd\\ufffd\"");
	assert_string_json("\xed\xa0\x80", 3, TSB_JSON_ESCAPE_INVALID,
	                   "\"\\ufffd\\ufffd\\ufffd\"");
	/* U+2028/2029 stay raw unless asked. */
	assert_string_json("\xe2\x80\xa8\xe2\x80\xa9", 6, 0, "\"\xe2\x80\xa8\xe2\x80\xa9\"");
	assert_string_json("\xe2\x80\xa8\xe2\x80\xa9", 6, TSB_JSON_ESCAPE_SEPARATORS,
	                   "\"\\u2028\\u2029\"");
}

static void test_compact_document(void **state)
{
	tsb_json *j = tsb_json_new_buffer(TSB_JSON_COMPACT);
	size_t len;
	const char *text;

	(void)state;
	tsb_json_begin_object(j);
	tsb_json_key(j, "name");
	tsb_json_string(j, "tut\"5");
	tsb_json_key(j, "cycles");
	tsb_json_u64(j, UINT64_MAX);
	tsb_json_key(j, "delta");
	tsb_json_i64(j, INT64_MIN);
	tsb_json_key(j, "list");
	tsb_json_begin_array(j);
	tsb_json_bool(j, true);
	tsb_json_bool(j, false);
	tsb_json_null(j);
	tsb_json_begin_object(j);
	tsb_json_end_object(j);
	tsb_json_begin_array(j);
	tsb_json_end_array(j);
	tsb_json_raw(j, "{\"k\":1}");
	tsb_json_string(j, NULL);
	tsb_json_end_array(j);
	tsb_json_key(j, "k\n");
	tsb_json_double(j, 0.5);
	tsb_json_end_object(j);
	assert_int_equal(tsb_json_finish(j), TSB_JSON_OK);
	text = tsb_json_get_buffer(j, &len);
	assert_string_equal(text, "{\"name\":\"tut\\\"5\",\"cycles\":18446744073709551615,"
	                          "\"delta\":-9223372036854775808,"
	                          "\"list\":[true,false,null,{},[],{\"k\":1},null],\"k\\u000a\":0.5}");
	assert_int_equal(len, strlen(text));
	tsb_json_free(j);
}

static void test_pretty_document(void **state)
{
	tsb_json *j = tsb_json_new_buffer(TSB_JSON_PRETTY);
	char *text;

	(void)state;
	tsb_json_begin_object(j);
	tsb_json_key(j, "a");
	tsb_json_begin_array(j);
	tsb_json_u64(j, 1);
	tsb_json_begin_object(j);
	tsb_json_key(j, "b");
	tsb_json_null(j);
	tsb_json_end_object(j);
	tsb_json_end_array(j);
	tsb_json_key(j, "empty");
	tsb_json_begin_array(j);
	tsb_json_end_array(j);
	tsb_json_end_object(j);
	assert_int_equal(tsb_json_finish(j), 0);
	text = tsb_json_steal(j, NULL);
	assert_string_equal(text, "{\n"
	                          "  \"a\": [\n"
	                          "    1,\n"
	                          "    {\n"
	                          "      \"b\": null\n"
	                          "    }\n"
	                          "  ],\n"
	                          "  \"empty\": []\n"
	                          "}");
	free(text);
	tsb_json_free(j);
}

/*
 * Integers are written in place when they fit (json-writer.c's fast
 * path): the same text as printf's, in arrays and objects, across every
 * growth of the buffer; a second document after tsb_json_steal; nothing
 * more once the writer has failed.
 */
static void test_integers_in_place(void **state)
{
	tsb_json *j = tsb_json_new_buffer(0);
	size_t cap = 1 << 20, n = 0, len;
	char *want = malloc(cap), *text;

	(void)state;
	assert_non_null(want);
	/* Text from 0 to 20 bytes a number, so the fit test meets every
	 * length at the buffer's end as it doubles from 256 bytes. */
	tsb_json_begin_array(j);
	want[n++] = '[';
	for (uint64_t i = 0; i < 30000; i++) {
		uint64_t u = i % 3 == 0 ? UINT64_MAX - i : i * i * i;
		int64_t v = i % 5 == 0 ? INT64_MIN + (int64_t)i : -(int64_t)(i * 7919);

		tsb_json_u64(j, u);
		tsb_json_i64(j, v);
		n += (size_t)snprintf(want + n, cap - n, "%s%" PRIu64 ",%" PRId64, i ? "," : "", u, v);
		assert_true(n < cap - 64);
	}
	tsb_json_begin_object(j);
	tsb_json_key(j, "k");
	tsb_json_i64(j, -1);
	tsb_json_key(j, "l");
	tsb_json_u64(j, 0);
	tsb_json_end_object(j);
	tsb_json_end_array(j);
	n += (size_t)snprintf(want + n, cap - n, ",{\"k\":-1,\"l\":0}]");
	assert_int_equal(tsb_json_finish(j), TSB_JSON_OK);
	text = tsb_json_steal(j, &len);
	assert_int_equal(len, n);
	assert_string_equal(text, want);
	free(text);
	/* The writer starts again empty after a steal. */
	tsb_json_begin_array(j);
	tsb_json_u64(j, 3);
	tsb_json_i64(j, -4);
	tsb_json_end_array(j);
	assert_int_equal(tsb_json_finish(j), TSB_JSON_OK);
	assert_string_equal(tsb_json_get_buffer(j, NULL), "[3,-4]");
	tsb_json_free(j);
	/* After a usage error a number writes nothing. */
	j = tsb_json_new_buffer(0);
	tsb_json_begin_array(j);
	tsb_json_u64(j, 1);
	assert_int_equal(tsb_json_end_object(j), TSB_JSON_ERR_USAGE);
	assert_int_equal(tsb_json_u64(j, 2), TSB_JSON_ERR_USAGE);
	assert_int_equal(tsb_json_i64(j, -2), TSB_JSON_ERR_USAGE);
	assert_string_equal(tsb_json_get_buffer(j, &len), "[1");
	assert_int_equal(len, 2);
	tsb_json_free(j);
	free(want);
}

/* One double, as text. */
static void assert_double_json(double d, const char *want)
{
	tsb_json *j = tsb_json_new_buffer(0);

	tsb_json_double(j, d);
	assert_int_equal(tsb_json_finish(j), 0);
	assert_string_equal(tsb_json_get_buffer(j, NULL), want);
	tsb_json_free(j);
}

static void test_doubles(void **state)
{
	(void)state;
	assert_double_json(1.0, "1.0");
	assert_double_json(-0.25, "-0.25");
	assert_double_json(0.1, "0.10000000000000001");
	assert_double_json(1e300, "1.0000000000000001e+300");
	assert_double_json(NAN, "null");
	assert_double_json(INFINITY, "null");
	assert_double_json(-INFINITY, "null");
	/* A locale whose decimal point is a comma changes nothing. */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		assert_double_json(2.5, "2.5");
		setlocale(LC_NUMERIC, "C");
	}
}

static void test_usage_errors_are_sticky(void **state)
{
	tsb_json *j;

	(void)state;
	/* A value where a key is wanted. */
	j = tsb_json_new_buffer(0);
	tsb_json_begin_object(j);
	assert_int_equal(tsb_json_u64(j, 1), TSB_JSON_ERR_USAGE);
	assert_int_equal(tsb_json_key(j, "a"), TSB_JSON_ERR_USAGE); /* sticky */
	assert_int_equal(tsb_json_error(j), TSB_JSON_ERR_USAGE);
	assert_null(tsb_json_steal(j, NULL));
	tsb_json_free(j);
	/* A key with no value, then an end. */
	j = tsb_json_new_buffer(0);
	tsb_json_begin_object(j);
	tsb_json_key(j, "a");
	assert_int_equal(tsb_json_end_object(j), TSB_JSON_ERR_USAGE);
	tsb_json_free(j);
	/* A mismatched end, an unclosed document, a second top-level value. */
	j = tsb_json_new_buffer(0);
	tsb_json_begin_array(j);
	assert_int_equal(tsb_json_end_object(j), TSB_JSON_ERR_USAGE);
	tsb_json_free(j);
	j = tsb_json_new_buffer(0);
	tsb_json_begin_array(j);
	assert_int_equal(tsb_json_error(j), TSB_JSON_OK);
	assert_int_equal(tsb_json_finish(j), TSB_JSON_ERR_USAGE);
	tsb_json_free(j);
	j = tsb_json_new_buffer(0);
	assert_int_equal(tsb_json_finish(j), TSB_JSON_ERR_USAGE);
	tsb_json_free(j);
	j = tsb_json_new_buffer(0);
	tsb_json_u64(j, 1);
	assert_int_equal(tsb_json_u64(j, 2), TSB_JSON_ERR_USAGE);
	tsb_json_free(j);
	/* A key outside an object. */
	j = tsb_json_new_buffer(0);
	tsb_json_begin_array(j);
	assert_int_equal(tsb_json_key(j, "a"), TSB_JSON_ERR_USAGE);
	tsb_json_free(j);
}

/* Deep nesting grows the stack; a FILE writer and tsb_json_fputs write the
 * same bytes as the buffer. */
static void test_file_and_depth(void **state)
{
	char *mem = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&mem, &size);
	tsb_json *j = tsb_json_new_file(f, 0);
	tsb_json *b = tsb_json_new_buffer(0);

	(void)state;
	for (int i = 0; i < 100; i++) {
		tsb_json_begin_array(j);
		tsb_json_begin_array(b);
	}
	tsb_json_string(j, "\x01\xff");
	tsb_json_string(b, "\x01\xff");
	for (int i = 0; i < 100; i++) {
		tsb_json_end_array(j);
		tsb_json_end_array(b);
	}
	assert_int_equal(tsb_json_finish(j), 0);
	assert_int_equal(tsb_json_finish(b), 0);
	assert_null(tsb_json_get_buffer(j, NULL));
	assert_string_equal(mem, tsb_json_get_buffer(b, NULL));
	assert_int_equal(size, 100 * 2 + 11); /* '"' \u0001 U+FFFD '"' */
	tsb_json_free(j);
	tsb_json_free(b);
	fclose(f);
	free(mem);

	f = open_memstream(&mem, &size);
	assert_int_equal(tsb_json_fputs(f, "q\"\n\xfe", SIZE_MAX, TSB_JSON_ESCAPE_INVALID), 0);
	fclose(f);
	assert_string_equal(mem, "\"q\\\"\\u000a\\ufffd\"");
	free(mem);
	assert_null(tsb_json_new_file(NULL, 0));
}

/* A sink that keeps what it is given, and fails once it has `limit`. */
typedef struct sink_state {
	char *text;
	size_t len, calls, limit;
} sink_state;

static int keep(void *user_data, const char *bytes, size_t n)
{
	sink_state *s = user_data;

	if (s->limit && s->len + n > s->limit)
		return -1;
	s->text = realloc(s->text, s->len + n + 1);
	memcpy(s->text + s->len, bytes, n);
	s->len += n;
	s->text[s->len] = '\0';
	s->calls++;
	return 0;
}

/* A sink gets the same bytes as a buffer, in several chunks for a long
 * document, and a sink that fails fails the writer. */
static void test_sink(void **state)
{
	sink_state got = {0}, short_sink = {.limit = 1000};
	tsb_json *j = tsb_json_new_sink(keep, &got, TSB_JSON_SHORT_NEWLINE_TAB);
	tsb_json *b = tsb_json_new_buffer(TSB_JSON_SHORT_NEWLINE_TAB);
	tsb_json *f = tsb_json_new_sink(keep, &short_sink, 0);

	(void)state;
	assert_null(tsb_json_new_sink(NULL, NULL, 0));
	for (tsb_json **w = (tsb_json *[]){j, b, f}, **end = w + 3; w < end; w++) {
		tsb_json_begin_array(*w);
		for (uint64_t i = 0; i < 40000; i++) {
			tsb_json_u64(*w, i * 7919);
			tsb_json_i64(*w, -(int64_t)i);
			if (i % 1000 == 0)
				tsb_json_string(*w, "line\nbreak");
		}
		tsb_json_end_array(*w);
	}
	assert_int_equal(tsb_json_finish(j), 0);
	assert_int_equal(tsb_json_finish(b), 0);
	assert_true(got.calls > 3);
	assert_string_equal(got.text, tsb_json_get_buffer(b, NULL));
	assert_null(tsb_json_get_buffer(j, NULL));
	assert_int_equal(tsb_json_finish(f), TSB_JSON_ERR_IO);
	/* A failed sink is not called again, and the writer stays failed. */
	{
		size_t calls = short_sink.calls;

		for (int i = 0; i < 100000; i++)
			assert_int_equal(tsb_json_u64(f, 12345), TSB_JSON_ERR_IO);
		assert_int_equal(tsb_json_finish(f), TSB_JSON_ERR_IO);
		assert_int_equal(short_sink.calls, calls);
	}
	tsb_json_free(j);
	tsb_json_free(b);
	tsb_json_free(f);
	free(got.text);
	free(short_sink.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_compact_document),
		cmocka_unit_test(test_pretty_document),
		cmocka_unit_test(test_integers_in_place),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_usage_errors_are_sticky),
		cmocka_unit_test(test_file_and_depth),
		cmocka_unit_test(test_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
