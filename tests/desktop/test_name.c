/*
 * tsd_name_cut and friends (tsd-name.h): short names whole, long ones cut
 * to their start, "…" and their end within the character budget, never
 * inside a UTF-8 character, always valid UTF-8 with control characters
 * as '?', and the whole name kept for the tooltip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/tsd-name.h>

#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6"

/* A name of `n` characters: `unit` (one character) repeated, with `head`
 * at the start and `tail` at the end (counted in n). */
static char *make_name(const char *head, const char *unit, const char *tail, gsize n)
{
	GString *s = g_string_new(head);
	gsize fill = n - g_utf8_strlen(head, -1) - g_utf8_strlen(tail, -1);

	for (gsize i = 0; i < fill; i++)
		g_string_append(s, unit);
	g_string_append(s, tail);
	return g_string_free(s, FALSE);
}

static void test_short_names_whole(void **state)
{
	g_autofree char *exact = make_name("a", "b", "c", TSD_NAME_MAX_CHARS);
	g_autofree char *cut = tsd_name_cut(exact);
	g_autofree char *plain = tsd_name_cut("layer1/fc/MatMul");
	g_autofree char *empty = tsd_name_cut("");
	g_autofree char *none = tsd_name_cut(NULL);

	(void)state;
	assert_string_equal(plain, "layer1/fc/MatMul");
	assert_string_equal(empty, "");
	assert_string_equal(none, "?");
	/* Exactly the budget: whole, not cut. */
	assert_string_equal(cut, exact);
	assert_false(tsd_name_is_cut(exact));
	assert_false(tsd_name_is_cut(NULL));
}

static void test_long_name_keeps_start_and_end(void **state)
{
	g_autofree char *name = make_name("poplin::ConvPartial1x1Out<float", "x", ">#end", 16384);
	g_autofree char *cut = tsd_name_cut(name);
	g_autofree char *full = tsd_name_clean(name);
	const char *mid = strstr(cut, ELLIPSIS);

	(void)state;
	assert_true(tsd_name_is_cut(name));
	assert_non_null(mid);
	/* One ellipsis, the start before it and the end after it. */
	assert_null(strstr(mid + 1, ELLIPSIS));
	assert_true(g_str_has_prefix(cut, "poplin::ConvPartial1x1Out<float"));
	assert_true(g_str_has_suffix(cut, ">#end"));
	assert_int_equal(g_utf8_strlen(cut, -1), TSD_NAME_MAX_CHARS);
	/* More of the start than of the end. */
	assert_true(g_utf8_strlen(cut, mid - cut) > g_utf8_strlen(mid + 3, -1));
	/* The whole name for the tooltip. */
	assert_string_equal(full, name);
	/* One character over the budget is cut too. */
	{
		g_autofree char *over = make_name("a", "b", "c", TSD_NAME_MAX_CHARS + 1);
		g_autofree char *c = tsd_name_cut(over);

		assert_true(tsd_name_is_cut(over));
		assert_non_null(strstr(c, ELLIPSIS));
		assert_int_equal(g_utf8_strlen(c, -1), TSD_NAME_MAX_CHARS);
	}
}

/* Names of two-, three- and four-byte characters, and every offset of a
 * mixed filler: whatever the alignment, the cut falls between
 * characters (valid UTF-8, no U+FFFD made from a split character). */
static void test_cut_between_characters(void **state)
{
	static const char *const units[] = {"\xc3\xa9", "\xe6\xbc\xa2", "\xf0\x9f\x98\x80"};
	static const char mixed[] = "ab\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80-";

	(void)state;
	for (size_t u = 0; u < G_N_ELEMENTS(units); u++) {
		g_autofree char *name = make_name("", units[u], "", 5000);
		g_autofree char *cut = tsd_name_cut(name);

		assert_true(g_utf8_validate(cut, -1, NULL));
		assert_null(strstr(cut, "\xef\xbf\xbd"));
		assert_int_equal(g_utf8_strlen(cut, -1), TSD_NAME_MAX_CHARS);
	}
	for (size_t shift = 0; shift < sizeof mixed - 1; shift++) {
		GString *s = g_string_new(NULL);
		g_autofree char *cut = NULL;

		g_string_append_len(s, mixed + shift, (gssize)(sizeof mixed - 1 - shift));
		for (int i = 0; i < 300; i++)
			g_string_append(s, mixed);
		/* Start on a character: drop the continuation bytes a shift left. */
		while (((unsigned char)s->str[0] & 0xc0) == 0x80)
			g_string_erase(s, 0, 1);
		cut = tsd_name_cut(s->str);
		assert_true(g_utf8_validate(cut, -1, NULL));
		assert_null(strstr(cut, "\xef\xbf\xbd"));
		assert_int_equal(g_utf8_strlen(cut, -1), TSD_NAME_MAX_CHARS);
		g_string_free(s, TRUE);
	}
}

static void test_smaller_budget(void **state)
{
	g_autofree char *a = tsd_name_cut_to("abcdefghij", 7);
	g_autofree char *b = tsd_name_cut_to("abcdefghij", 0);
	g_autofree char *c = tsd_name_cut_to("abc", 3);

	(void)state;
	assert_string_equal(a, "abcd" ELLIPSIS "ij");
	/* At least the start, the ellipsis and the end. */
	assert_string_equal(b, "a" ELLIPSIS "j");
	assert_string_equal(c, "abc");
}

/* Bytes that are not UTF-8 and control characters, in a short name, at
 * the start and the end of a long one, and where the cut falls. */
static void test_invalid_and_control(void **state)
{
	g_autofree char *shortc = tsd_name_cut("tab\there\nnl\x7f" "end");
	g_autofree char *shortb = tsd_name_cut("ab\xff" "cd\xe6\xbc");
	g_autofree char *longb = make_name("\xff\x01start", "\xe6", "end\x80\n", 3000);
	g_autofree char *cut = tsd_name_cut(longb);
	g_autofree char *full = tsd_name_clean(longb);

	(void)state;
	assert_string_equal(shortc, "tab?here?nl?end");
	assert_true(g_utf8_validate(shortb, -1, NULL));
	assert_true(g_str_has_prefix(shortb, "ab\xef\xbf\xbd" "cd"));
	assert_true(g_utf8_validate(cut, -1, NULL));
	assert_true(g_str_has_prefix(cut, "\xef\xbf\xbd?start"));
	assert_true(g_str_has_suffix(cut, "end\xef\xbf\xbd?"));
	assert_int_equal(g_utf8_strlen(cut, -1), TSD_NAME_MAX_CHARS);
	assert_true(g_utf8_validate(full, -1, NULL));
	assert_null(strchr(full, '\n'));
}

/* The tooltip holds the whole name only when the label shows it cut. */
static void test_tooltip(void **state)
{
	g_autofree char *name = make_name("start", "y", "end", 1000);
	GtkWidget *label;
	const char *tip;

	(void)state;
	if (!gtk_init_check()) {
		skip();
		return;
	}
	label = g_object_ref_sink(gtk_label_new(NULL));
	tsd_label_set_name(GTK_LABEL(label), name);
	tip = gtk_widget_get_tooltip_text(label);
	assert_non_null(tip);
	assert_string_equal(tip, name);
	assert_int_equal(g_utf8_strlen(gtk_label_get_text(GTK_LABEL(label)), -1),
	                 TSD_NAME_MAX_CHARS);
	tsd_label_set_name(GTK_LABEL(label), "short");
	assert_string_equal(gtk_label_get_text(GTK_LABEL(label)), "short");
	assert_null(gtk_widget_get_tooltip_text(label));
	g_object_unref(label);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_names_whole),
		cmocka_unit_test(test_long_name_keeps_start_and_end),
		cmocka_unit_test(test_cut_between_characters),
		cmocka_unit_test(test_smaller_budget),
		cmocka_unit_test(test_invalid_and_control),
		cmocka_unit_test(test_tooltip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
