/*
 * The apps' key tables (tsd-keys.h, ga-keys.c, sa-keys.c), from which each
 * app installs its accelerators and builds its Keyboard Shortcuts window
 * (issue 28 item 3). Runs under xvfb-run: the window is built.
 *
 * What is checked, for each app's table with the common keys after it:
 *   - every entry has a section, a group and a title, and every
 *     accelerator parses (gtk_accelerator_parse, what GTK installs);
 *   - no accelerator is installed for two actions;
 *   - an installed accelerator has Control or Alt, or is a function key:
 *     the application's accelerators see a key before any widget, so a
 *     plain letter or arrow there would be taken from the entries and the
 *     charts;
 *   - no key a widget handles itself is also an installed accelerator
 *     (it would never reach the widget);
 *   - no installed accelerator is Alt with a bare letter: those are the
 *     mnemonics' keys, and GTK 4.8 lets a mnemonic see its key before the
 *     application's accelerators, and only cycles the focus to it (no
 *     press) when an accelerator shares the key (the System Analyser's
 *     "Open in _Graph Analyser" with Alt+G installed stopped opening it);
 *   - the Keyboard Shortcuts window built from the table has a shortcut
 *     for every entry, with the entry's title and accelerators, and a
 *     section for every section of the table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ga-keys.h"
#include "sa-keys.h"

#include <string.h>

/* Every entry of an app: its own table, then the common keys. */
typedef struct {
	const TsdKey *keys[2];
	size_t n[2];
} app_keys;

static app_keys keys_of(const TsdKey *(*table)(size_t *n))
{
	app_keys k;

	k.keys[0] = table(&k.n[0]);
	k.keys[1] = tsd_keys_common(&k.n[1]);
	return k;
}

/* One parsed accelerator and the entry it came from. */
typedef struct {
	guint keyval;
	GdkModifierType mods;
	const TsdKey *key;
} parsed;

static GArray *parse_all(const app_keys *k)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(parsed));

	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < k->n[t]; i++) {
			const TsdKey *key = &k->keys[t][i];
			g_auto(GStrv) accels = g_strsplit(key->accels, " ", -1);

			assert_non_null(key->section);
			assert_non_null(key->group);
			assert_non_null(key->title);
			assert_true(*key->section && *key->group && *key->title && *key->accels);
			for (size_t a = 0; accels[a]; a++) {
				parsed p = {0, 0, key};

				if (!gtk_accelerator_parse(accels[a], &p.keyval, &p.mods))
					fail_msg("%s: %s does not parse", key->title, accels[a]);
				/* A shifted letter is the same key as its capital. */
				p.keyval = gdk_keyval_to_lower(p.keyval);
				g_array_append_val(all, p);
			}
		}
	return all;
}

static void check_table(const TsdKey *(*table)(size_t *n))
{
	app_keys k = keys_of(table);
	g_autoptr(GArray) all = parse_all(&k);

	for (guint i = 0; i < all->len; i++) {
		const parsed *a = &g_array_index(all, parsed, i);

		if (a->key->action && !(a->mods & (GDK_CONTROL_MASK | GDK_ALT_MASK)) &&
		    !(a->keyval >= GDK_KEY_F1 && a->keyval <= GDK_KEY_F35))
			fail_msg("%s (%s) is an application accelerator without Control or Alt",
			         a->key->title, a->key->accels);
		if (a->key->action && (a->mods & GDK_ALT_MASK) &&
		    !(a->mods & (GDK_CONTROL_MASK | GDK_SHIFT_MASK)) && a->keyval >= GDK_KEY_a &&
		    a->keyval <= GDK_KEY_z)
			fail_msg("%s (%s): Alt with a letter is a mnemonic's key, not an "
			         "application accelerator",
			         a->key->title, a->key->accels);
		for (guint j = i + 1; j < all->len; j++) {
			const parsed *b = &g_array_index(all, parsed, j);

			if (a->keyval != b->keyval || a->mods != b->mods || a->key == b->key)
				continue;
			if (a->key->action && b->key->action && strcmp(a->key->action, b->key->action))
				fail_msg("%s is installed for %s and %s", a->key->accels, a->key->action,
				         b->key->action);
			if (!a->key->action != !b->key->action)
				fail_msg("%s: \"%s\" is an accelerator, so \"%s\" never gets it",
				         a->key->accels, a->key->action ? a->key->title : b->key->title,
				         a->key->action ? b->key->title : a->key->title);
		}
	}
}

static void test_ga_table(void **state)
{
	(void)state;
	check_table(ga_keys);
}

static void test_sa_table(void **state)
{
	(void)state;
	check_table(sa_keys);
}

/* Every GtkShortcutsSection below w and the GtkShortcutsShortcuts in
 * them (the window's search page holds copies of its own). */
static void collect(GtkWidget *w, GPtrArray *shortcuts, GPtrArray *sections, gboolean in_section)
{
	if (GTK_IS_SHORTCUTS_SHORTCUT(w) && in_section)
		g_ptr_array_add(shortcuts, w);
	if (GTK_IS_SHORTCUTS_SECTION(w)) {
		g_ptr_array_add(sections, w);
		in_section = TRUE;
	}
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		collect(c, shortcuts, sections, in_section);
}

static void check_window(const TsdKey *(*table)(size_t *n))
{
	app_keys k = keys_of(table);
	GtkWidget *window = tsd_keys_window_new(k.keys[0], k.n[0]);
	g_autoptr(GPtrArray) shortcuts = g_ptr_array_new();
	g_autoptr(GPtrArray) sections = g_ptr_array_new();
	g_autoptr(GHashTable) section_names = g_hash_table_new(g_str_hash, g_str_equal);

	assert_true(GTK_IS_SHORTCUTS_WINDOW(window));
	collect(window, shortcuts, sections, FALSE);
	assert_int_equal(shortcuts->len, k.n[0] + k.n[1]);
	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < k.n[t]; i++) {
			gboolean found = FALSE;

			g_hash_table_add(section_names, (gpointer)k.keys[t][i].section);
			for (guint j = 0; j < shortcuts->len && !found; j++) {
				g_autofree char *title = NULL, *accel = NULL;

				g_object_get(shortcuts->pdata[j], "title", &title, "accelerator", &accel,
				             NULL);
				found = !g_strcmp0(title, k.keys[t][i].title) &&
				        !g_strcmp0(accel, k.keys[t][i].accels);
			}
			if (!found)
				fail_msg("the window has no \"%s\" (%s)", k.keys[t][i].title,
				         k.keys[t][i].accels);
		}
	assert_int_equal(sections->len, g_hash_table_size(section_names));
	gtk_window_destroy(GTK_WINDOW(window));
}

static void test_ga_window(void **state)
{
	(void)state;
	check_window(ga_keys);
}

static void test_sa_window(void **state)
{
	(void)state;
	check_window(sa_keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ga_table),
	    cmocka_unit_test(test_sa_table),
	    cmocka_unit_test(test_ga_window),
	    cmocka_unit_test(test_sa_window),
	};

	gtk_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
