/*
 * Names cut for display (tsd-name.h): the start and the end of a long
 * name around a middle ellipsis, cut between characters, cleaned for a
 * label; the work bounded by the characters shown, not the name's length.
 */
#include <tilescope/tsd-name.h>

#include <string.h>

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */

/* The character after the one at `p` (*p != 0): an invalid or cut-short
 * sequence counts as one byte, as g_utf8_make_valid replaces it. */
static const char *next_char(const char *p)
{
	if ((unsigned char)*p < 0x80)
		return p + 1;
	if ((gint32)g_utf8_get_char_validated(p, -1) < 0)
		return p + 1;
	return g_utf8_next_char(p);
}

/* The start of the character that ends at `end` (> start), by the same
 * rule: a whole character when one ends there, else one byte. */
static const char *prev_char(const char *start, const char *end)
{
	const char *p = end - 1;

	if ((unsigned char)*p < 0x80)
		return p;
	for (int k = 0; k < 3 && p > start && ((unsigned char)*p & 0xc0) == 0x80; k++)
		p--;
	if ((gint32)g_utf8_get_char_validated(p, end - p) >= 0 && g_utf8_next_char(p) == end)
		return p;
	return end - 1;
}

/* Appends bytes [p, p + len) to `out`, valid UTF-8, control characters
 * as '?'. */
static void append_clean(GString *out, const char *p, gsize len)
{
	gsize from = out->len;
	char *valid = g_utf8_make_valid(p, (gssize)len);

	g_string_append(out, valid);
	g_free(valid);
	for (gsize i = from; i < out->len; i++)
		if ((unsigned char)out->str[i] < 0x20 || out->str[i] == 0x7f)
			out->str[i] = '?';
}

/* Walks at most `max_chars` characters from `name`; returns where it
 * stopped (the terminating NUL when the name is no longer) and, in
 * *head_end, where the first `head_chars` characters end. */
static const char *walk(const char *name, gsize max_chars, gsize head_chars,
                        const char **head_end)
{
	const char *p = name;

	*head_end = name;
	for (gsize n = 0; *p && n < max_chars; n++) {
		if (n == head_chars)
			*head_end = p;
		p = next_char(p);
	}
	if (head_chars >= max_chars)
		*head_end = p;
	return p;
}

char *tsd_name_cut_to(const char *name, gsize max_chars)
{
	GString *out;
	const char *head_end, *p, *end, *tail;
	gsize head_chars, tail_chars;

	if (!name)
		return g_strdup("?");
	if (max_chars < 3)
		max_chars = 3;
	/* Two thirds of the room for the start, where names say what they
	 * are; the rest for the end, which tells siblings apart. */
	head_chars = (max_chars - 1) * 2 / 3;
	tail_chars = max_chars - 1 - head_chars;
	p = walk(name, max_chars, head_chars, &head_end);
	out = g_string_sized_new(64);
	if (!*p) {
		append_clean(out, name, (gsize)(p - name));
		return g_string_free(out, FALSE);
	}
	end = p + strlen(p);
	tail = end;
	for (gsize n = 0; n < tail_chars && tail > head_end; n++)
		tail = prev_char(head_end, tail);
	append_clean(out, name, (gsize)(head_end - name));
	g_string_append(out, ELLIPSIS);
	append_clean(out, tail, (gsize)(end - tail));
	return g_string_free(out, FALSE);
}

char *tsd_name_cut(const char *name)
{
	return tsd_name_cut_to(name, TSD_NAME_MAX_CHARS);
}

char *tsd_name_clean(const char *name)
{
	GString *out;

	if (!name)
		return g_strdup("?");
	out = g_string_sized_new(strlen(name) + 1);
	append_clean(out, name, strlen(name));
	return g_string_free(out, FALSE);
}

gboolean tsd_name_is_cut(const char *name)
{
	const char *head_end;

	return name && *walk(name, TSD_NAME_MAX_CHARS, TSD_NAME_MAX_CHARS, &head_end) != '\0';
}

void tsd_widget_set_name_tooltip(GtkWidget *widget, const char *name)
{
	if (tsd_name_is_cut(name)) {
		g_autofree char *full = tsd_name_clean(name);

		gtk_widget_set_tooltip_text(widget, full);
	} else {
		gtk_widget_set_tooltip_text(widget, NULL);
	}
}

void tsd_label_set_name(GtkLabel *label, const char *name)
{
	g_autofree char *cut = tsd_name_cut(name);

	gtk_label_set_text(label, cut);
	tsd_widget_set_name_tooltip(GTK_WIDGET(label), name);
}
