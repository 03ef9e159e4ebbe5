/*
 * TsdApplication (tsd-app.h), the base both apps' GtkApplication derive
 * from: its command line from the app's option table (--version with the
 * TS_COMMAND's name, an unknown option or a missing value refused with
 * status 2 before the app's own checks, which may stop the launch), and
 * what it sets at construction (one process per launch, files opened, the
 * resources registered once however many instances are made). Nothing
 * here opens a display: all of it happens before startup.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/tsd-app.h>

#include <glib/gstdio.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const TsdCmdlineLine cmdline[] = {
#include <tilescope/tsd-cmdline-rows.h>
	TS_COMMAND("tilescope-test-app", "an app for a test")
	TS_USAGE("tilescope-test-app [OPTION...] [FILE]")
	TS_TEXT("DESCRIPTION", "Tests TsdApplication.\n")
	TS_OPT(NAME, "name", "", STRING, "NAME", "", "A name")
	TS_OPT(VERSION, "version", "", NONE, "", "", "Print the version and exit")
	TS_OPT(HELP, "help", "h", NONE, "", "", "Show help options")
};

static const TsdKey *test_keys(size_t *n);
static const TsdKey keys[] = {
	TSD_KEY("General", "Test", "Open", "<Control>o", "win.open")
};
static TSD_KEYS_DEFINE(test_keys, keys)

static int registered;   /* times the resources were registered */
static int checked;      /* times check_arguments ran */
static int check_status; /* what check_arguments answers: 0 go on, else stop with it */

static void register_resources(void)
{
	registered++;
}

static const TsdAppInfo info = {
    .name = "Test App",
    .comments = "An app for a test.",
    .keys = test_keys,
    .cmdline = cmdline,
    .n_cmdline = G_N_ELEMENTS(cmdline),
    .register_resources = register_resources,
};

#define TEST_TYPE_APP (test_app_get_type())
G_DECLARE_FINAL_TYPE(TestApp, test_app, TEST, APP, TsdApplication)

struct _TestApp {
	TsdApplication parent_instance;
};

G_DEFINE_FINAL_TYPE(TestApp, test_app, TSD_TYPE_APPLICATION)

static gboolean check_arguments(TsdApplication *self, char **argv, int *exit_status)
{
	(void)self;
	(void)argv;
	checked++;
	if (!check_status)
		return FALSE;
	*exit_status = check_status;
	return TRUE;
}

static void test_app_class_init(TestAppClass *klass)
{
	TSD_APPLICATION_CLASS(klass)->info = &info;
	TSD_APPLICATION_CLASS(klass)->check_arguments = check_arguments;
}

static void test_app_init(TestApp *self)
{
	(void)self;
}

/* Runs an app on argv (NULL-terminated), what it prints on stdout and
 * stderr in *out and *err (the caller frees them). */
static int run(const char *const *argv, char **out, char **err)
{
	g_autofree char *dir = g_dir_make_tmp("test-app-XXXXXX", NULL);
	g_autofree char *out_path = g_build_filename(dir, "out", NULL);
	g_autofree char *err_path = g_build_filename(dir, "err", NULL);
	GApplication *app = g_object_new(TEST_TYPE_APP, "application-id", "org.tilescope.TestApp",
	                                 NULL);
	int saved_out = dup(1), saved_err = dup(2);
	FILE *o, *e;
	int status;

	assert_non_null(dir);
	o = fopen(out_path, "w");
	e = fopen(err_path, "w");
	assert_non_null(o);
	assert_non_null(e);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(o), 1);
	dup2(fileno(e), 2);
	status = g_application_run(app, (int)g_strv_length((char **)argv), (char **)argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	fclose(o);
	fclose(e);
	assert_true(g_file_get_contents(out_path, out, NULL, NULL));
	assert_true(g_file_get_contents(err_path, err, NULL, NULL));
	g_unlink(out_path);
	g_unlink(err_path);
	g_rmdir(dir);
	g_object_unref(app);
	return status;
}

static void test_version(void **state)
{
	const char *argv[] = {"prog", "--version", NULL};
	g_autofree char *out = NULL, *err = NULL;

	(void)state;
	check_status = 0;
	assert_int_equal(run(argv, &out, &err), 0);
	assert_string_equal(out, "tilescope-test-app " TSD_VERSION "\n");
	assert_string_equal(err, "");
}

static void test_unknown_option(void **state)
{
	const char *argv[] = {"prog", "--bogus=1", "file", NULL};
	const char *no_value[] = {"prog", "--name", NULL};
	g_autofree char *out = NULL, *err = NULL;
	g_autofree char *out2 = NULL, *err2 = NULL;
	int before = checked;

	(void)state;
	check_status = 0;
	assert_int_equal(run(argv, &out, &err), 2);
	assert_string_equal(err, "tilescope-test-app: unknown option '--bogus' (see --help)\n");
	assert_int_equal(run(no_value, &out2, &err2), 2);
	assert_string_equal(err2, "tilescope-test-app: option '--name' needs a value (see --help)\n");
	/* Refused before the app's own checks. */
	assert_int_equal(checked, before);
}

static void test_app_checks(void **state)
{
	const char *argv[] = {"prog", "--name", "x", "--version", NULL};
	g_autofree char *out = NULL, *err = NULL;
	g_autofree char *out2 = NULL, *err2 = NULL;
	int before = checked;

	(void)state;
	check_status = 3;
	assert_int_equal(run(argv, &out, &err), 3);
	assert_int_equal(checked, before + 1);
	assert_string_equal(out, "");
	/* Let through, the line goes on to GApplication: --version answers. */
	check_status = 0;
	assert_int_equal(run(argv, &out2, &err2), 0);
	assert_string_equal(out2, "tilescope-test-app " TSD_VERSION "\n");
}

static void test_construction(void **state)
{
	GApplication *a = g_object_new(TEST_TYPE_APP, "application-id", "org.tilescope.TestApp", NULL);
	GApplication *b = g_object_new(TEST_TYPE_APP, "application-id", "org.tilescope.TestApp", NULL);
	GApplicationFlags flags = g_application_get_flags(a);

	(void)state;
	assert_true(flags & G_APPLICATION_NON_UNIQUE);
	assert_true(flags & G_APPLICATION_HANDLES_OPEN);
	assert_int_equal(registered, 1);
	assert_string_equal(tsd_app_info_get_prog(&info), "tilescope-test-app");
	g_object_unref(a);
	g_object_unref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_app_checks),
		cmocka_unit_test(test_construction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
