/*
 * Chrome trace-event JSON import (trace-chrome.c) and its streaming JSON
 * tokenizer (trace-chrome-lex.c). Nothing here is public: a JSON file is
 * opened through tsr_trace_open like a .pvti file.
 */
#pragma once

#include "trace-private.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read from the file at a time. */
#define CJ_BLOCK (1u << 20)
/* The deepest nesting of arrays and objects accepted. */
#define CJ_MAX_NESTING 512u

/* A growable byte buffer that keeps at most `max` bytes of what is
 * appended (the rest is dropped and `truncated` set). */
typedef struct cj_buf {
	char *data;                /* NUL-terminated once cj_buf_end ran */
	size_t len, cap, max;
	bool truncated;
} cj_buf;

/* A number as read: the first 19 significant digits and a power of ten,
 * plus its text when short (for strtod). */
typedef struct cj_num {
	uint64_t mant;
	int64_t exp10;             /* value = (neg ? -1 : 1) * mant * 10^exp10 */
	bool neg;
	char text[64];             /* the token, "" when longer than 63 bytes */
} cj_num;

/*
 * The tokenizer: reads a file in blocks (or walks a buffer in memory),
 * never holding more than one block plus what the caller asks it to keep.
 * After a failure `msg` names the line and byte offset, and every call
 * returns -1.
 */
typedef struct cj_lex {
	int fd;                    /* -1: reading `buf` from memory */
	unsigned char *buf;
	size_t len, pos;           /* bytes in buf, next one */
	uint64_t base;             /* offset in the file of buf[0] */
	uint64_t line;             /* 1-based line of buf[pos] */
	bool eof;
	bool failed;
	char msg[256];
	cj_buf *rec;               /* when set, every byte consumed is appended */
	size_t rec_from;           /* buf offset where recording resumes */
} cj_lex;

/* A file reader (fd open for reading; the caller closes it). */
int cj_lex_init_fd(cj_lex *lx, int fd);
/* A reader over data[0..len) (not copied). */
void cj_lex_init_mem(cj_lex *lx, const char *data, size_t len);
void cj_lex_clear(cj_lex *lx);
/* Records a failure at the current position; returns -1. */
int cj_fail(cj_lex *lx, const char *what);
/* The next byte that is not white space, not consumed: 0..255, or -1 at
 * the end of the input (or after a failure). */
int cj_peek(cj_lex *lx);
/* Skips a UTF-8 byte order mark at the start (editors write one). */
void cj_skip_bom(cj_lex *lx);
/* Consumes the byte cj_peek returned. */
void cj_take(cj_lex *lx);
/* Consumes `c` (after white space) or fails naming `what`. */
int cj_expect(cj_lex *lx, int c, const char *what);
/* Reads a string (escapes decoded, UTF-8 checked) into `out` (reset
 * first; NULL: skipped). 0 or -1. */
int cj_string(cj_lex *lx, cj_buf *out);
/* Reads a number. 0 or -1. */
int cj_number(cj_lex *lx, cj_num *out);
/* Skips one value of any kind and depth (iteratively, at most
 * CJ_MAX_NESTING deep), appending its text to `keep` when not NULL. */
int cj_skip(cj_lex *lx, cj_buf *keep);

/* cj_buf */
void cj_buf_reset(cj_buf *b);
int cj_buf_put(cj_buf *b, const void *p, size_t n);
/* NUL-terminates; -1 when out of memory. */
int cj_buf_end(cj_buf *b);
void cj_buf_clear(cj_buf *b);

/* The number as integer nanoseconds when it counts microseconds, rounded
 * to the nearest: 0, or -1 when out of int64_t range. */
int cj_num_us_to_ns(const cj_num *n, int64_t *ns);
/* The number as a double ("C" locale whatever the process's). */
double cj_num_double(const cj_num *n);
/* The number as an integer when it is one that fits: 0, else -1. */
int cj_num_int(const cj_num *n, int64_t *out);

/* --- trace-chrome.c --------------------------------------------------------- */

/* Whether the file at `path` reads as JSON: its first byte that is not
 * white space is '[' or '{'. */
bool trace_chrome_sniff(const char *path);
/*
 * Converts the Chrome trace-event JSON file of process `p` into a .pvti
 * database in memory (*db, caller closes), so that every query reads it
 * as it reads a file that libtilescope-pvti wrote.
 */
int trace_chrome_import(tsr_trace *tr, size_t p, sqlite3 **db);
