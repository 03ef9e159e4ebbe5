/*
 * Error handling shared by the tutorial examples (see example-util.h).
 */
#include "example-util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program_name = "example";

/* Remembers the name messages start with (a fixed name, not argv[0],
 * whose path would vary with how the example was started). */
void ex_init(const char *program)
{
	program_name = program;
}

/* Flushes stdout first so the message comes after anything the example
 * printed before failing. */
noreturn void ex_fail(const char *what, const char *message)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s: %s\n", program_name, what,
	        message && *message ? message : "unknown error");
	exit(1);
}

/*
 * Graph-building calls record their first error in the graph and return
 * NULL; later calls given that NULL return NULL quietly. So the graph's
 * message is the one that names the real cause.
 */
void *ex_must(tsi_graph *graph, void *p, const char *what)
{
	const char *err = tsi_graph_get_error(graph);

	if (!p || *err)
		ex_fail(what, *err ? err : tsi_error_last());
	return p;
}

/* As ex_must for calls that return a code. */
void ex_must_rc(tsi_graph *graph, int rc, const char *what)
{
	const char *err = tsi_graph_get_error(graph);

	if (rc != TSI_OK)
		ex_fail(what, *err ? err : tsi_error_last());
}

/* Engine calls keep their message in the engine; tsi_engine_new has no
 * engine yet, so its callers use tsi_error_last() directly. */
void ex_must_engine(const tsi_engine *engine, int rc, const char *what)
{
	const char *err = engine ? tsi_engine_error(engine) : NULL;

	if (rc != TSI_OK)
		ex_fail(what, err && *err ? err : tsi_error_last());
}

/*
 * strtoul alone accepts "-3" (as a huge number), " 7" and "" with no
 * complaint, so the text is checked to be only decimal digits first.
 */
int ex_parse_dim(const char *text, unsigned max, unsigned *out)
{
	unsigned long value;
	char *end;

	if (!text || !*text)
		return -1;
	for (const char *p = text; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
	}
	errno = 0;
	value = strtoul(text, &end, 10);
	if (errno || *end || value == 0 || value > max)
		return -1;
	*out = (unsigned)value;
	return 0;
}

noreturn void ex_usage_exit(const char *program, const char *args, const char *problem,
                            const char *arg)
{
	if (!problem) {
		printf("usage: %s %s\n", program, args);
		exit(0);
	}
	fprintf(stderr, "%s: %s%s%s%s\n", program, problem, arg ? " '" : "", arg ? arg : "",
	        arg ? "'" : "");
	fprintf(stderr, "usage: %s %s\n", program, args);
	exit(2);
}

bool ex_is_help(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int ex_parse_ipu(const char *text, tsi_ipu_version *out)
{
	if (!strcmp(text, "mk1"))
		*out = TSI_IPU_MK1;
	else if (!strcmp(text, "mk2"))
		*out = TSI_IPU_MK2;
	else if (!strcmp(text, "bow"))
		*out = TSI_IPU_BOW;
	else
		return -1;
	return 0;
}
