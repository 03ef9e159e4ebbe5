/*
 * What the libFuzzer targets of tests/fuzz/ share: a private temporary
 * directory per fuzzing process (removed at exit) and writing the input
 * into a file in it, since reportlib opens reports and traces by path.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The process's temporary directory, made on first use (aborts when it
 * cannot be made: the target cannot run without it). */
const char *fuzz_tmpdir(void);

/* Writes `data` (`size` bytes) to `name` inside fuzz_tmpdir(), first
 * removing that file and the SQLite side files a previous input may have
 * left (-wal, -shm, -journal). Returns the path (static buffer, valid
 * until the next call) or NULL when the write failed. */
const char *fuzz_write_file(const char *name, const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (the caller frees it). */
char *fuzz_dup_string(const uint8_t *data, size_t size);

/* Memory cap given to reportlib for every handle the targets open: far
 * below libFuzzer's -rss_limit_mb, so a file that asks for more must be
 * refused with TSR_ERR_TOO_LARGE rather than reach the fuzzer's limit. */
#define FUZZ_MEMORY_CAP (128u << 20)
