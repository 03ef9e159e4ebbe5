/*
 * Error handling shared by the tutorial examples. A Poplar tutorial gets
 * an exception from a failing call; these C models check every return code
 * instead and end through the helpers below, which print what failed with
 * the runtime's own message and exit non-zero.
 */
#pragma once

#include <tilescope/ipu.h>

#include <stdnoreturn.h>

/* Sets the program name used at the start of every message. */
void ex_init(const char *program);
/* Prints "<program>: <what>: <message>" on stderr and exits with status 1. */
noreturn void ex_fail(const char *what, const char *message);
/* Returns `p`; when `p` is NULL or `graph` holds an error, exits through
 * ex_fail with the graph's first error (or tsi_error_last()). */
void *ex_must(tsi_graph *graph, void *p, const char *what);
/* Exits through ex_fail when `rc` is not TSI_OK, with the graph's error. */
void ex_must_rc(tsi_graph *graph, int rc, const char *what);
/* Exits through ex_fail when `rc` is not TSI_OK, with the engine's error. */
void ex_must_engine(const tsi_engine *engine, int rc, const char *what);
/* Command-line usage. With `problem` NULL (the user asked for --help):
 * prints "usage: <program> <args>" on stdout and exits 0. Otherwise prints
 * "<program>: <problem> '<arg>'" (arg may be NULL) and the usage line on
 * stderr and exits 2. */
noreturn void ex_usage_exit(const char *program, const char *args, const char *problem,
                            const char *arg);
/* True for "--help" and "-h". */
bool ex_is_help(const char *arg);
/* Parses an "--ipu" value: "mk1", "mk2" or "bow". Returns 0, or -1 for
 * anything else. */
int ex_parse_ipu(const char *text, tsi_ipu_version *out);

/* Parses a positive matrix dimension of at most `max`. Returns 0 and sets
 * *out, or -1 for a missing, non-numeric, zero or too large value. */
int ex_parse_dim(const char *text, unsigned max, unsigned *out);
