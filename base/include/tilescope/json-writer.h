/*
 * A streaming JSON writer (libtilescope-base, prefix tsb_): values are
 * written as they are given, into a growing buffer or a FILE, with the
 * commas, colons and (when asked) indentation placed by the writer, so no
 * caller escapes a string or prints a number by hand again.
 *
 * Strings are escaped by one rule: '"', '\' and every control character
 * (U+0000 to U+001F) are escaped, bytes that are not UTF-8 become U+FFFD,
 * and the flags below choose the spelling where documents differ. Numbers
 * never depend on the locale: integers are exact (64 bits, no double in
 * between), doubles have 17 significant digits and a '.' whatever
 * LC_NUMERIC says, and a NaN or an infinity (which JSON cannot hold) is
 * null.
 *
 * Errors are sticky: the first failure (out of memory, a write that
 * failed, a call out of order such as a value where a key is wanted) is
 * kept, every later call does nothing, and tsb_json_error() tells which.
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

TSB_BEGIN_DECLS

typedef struct tsb_json tsb_json;

/* Flags of tsb_json_new_buffer / tsb_json_new_file, or'ed. */
typedef enum tsb_json_flags {
	TSB_JSON_COMPACT = 0,              /* no space or newline between tokens */
	TSB_JSON_PRETTY = 1 << 0,          /* one member per line, two spaces a level */
	TSB_JSON_SHORT_NEWLINE_TAB = 1 << 1, /* \n and \t for those two controls
	                                        (as the profile documents spell
	                                        them), instead of \u000a, \u0009 */
	TSB_JSON_ESCAPE_INVALID = 1 << 2,  /* a byte that is not UTF-8 as the six
	                                      characters \ufffd, not the raw U+FFFD */
	TSB_JSON_ESCAPE_SEPARATORS = 1 << 3, /* U+2028 and U+2029 as \u2028 and \u2029,
	                                        for a document read as JavaScript */
	TSB_JSON_SHORT_ESCAPES = 1 << 4,   /* \b \f \n \r \t for all five (RFC 8259's
	                                      short forms, as cJSON writes them) */
} tsb_json_flags;

/* What tsb_json_error() returns. */
typedef enum tsb_json_status {
	TSB_JSON_OK = 0,
	TSB_JSON_ERR_NO_MEMORY = -1, /* out of memory */
	TSB_JSON_ERR_IO = -2,        /* the FILE refused a write (errno kept) */
	TSB_JSON_ERR_USAGE = -3,     /* a call out of order: a value where a key
	                                is wanted, an end that closes nothing,
	                                a second top-level value */
} tsb_json_status;

/* A writer into a buffer of its own (tsb_json_steal / tsb_json_get_buffer);
 * NULL when out of memory. Free with tsb_json_free. */
TSB_API tsb_json *tsb_json_new_buffer(unsigned flags);
/* A writer onto `f` (borrowed: the caller closes it after tsb_json_free);
 * NULL when out of memory or `f` is NULL. */
TSB_API tsb_json *tsb_json_new_file(FILE *f, unsigned flags);
/* Where a tsb_json_new_sink writer sends its bytes, in order, a chunk at
 * a time: returns 0, or non-zero to fail the writer (TSB_JSON_ERR_IO). */
typedef int (*tsb_json_write_cb)(void *user_data, const char *bytes, size_t n);
/* A writer that hands its output to `write` (with `user_data`) in chunks
 * of up to 64 KiB as it goes, and the rest at tsb_json_finish: for an
 * emitter with an output of its own (a growing buffer, a compressed
 * stream). NULL when out of memory or `write` is NULL. */
TSB_API tsb_json *tsb_json_new_sink(tsb_json_write_cb write, void *user_data, unsigned flags);
/* Frees the writer (and its buffer unless stolen); NULL is fine. */
TSB_API void tsb_json_free(tsb_json *j);

TSB_API int tsb_json_begin_object(tsb_json *j);
TSB_API int tsb_json_end_object(tsb_json *j);
TSB_API int tsb_json_begin_array(tsb_json *j);
TSB_API int tsb_json_end_array(tsb_json *j);
/* The key of the next member of the open object. */
TSB_API int tsb_json_key(tsb_json *j, const char *key);
/* A string value: NUL-terminated, or its first `len` bytes (which may hold
 * NULs, written as \u0000). A NULL string is null. */
TSB_API int tsb_json_string(tsb_json *j, const char *s);
TSB_API int tsb_json_string_len(tsb_json *j, const char *s, size_t len);
TSB_API int tsb_json_u64(tsb_json *j, uint64_t v);
TSB_API int tsb_json_i64(tsb_json *j, int64_t v);
/* A double: 17 significant digits and a ".0" when they make an integer,
 * so a reader sees a floating-point value; null when not finite. */
TSB_API int tsb_json_double(tsb_json *j, double v);
TSB_API int tsb_json_bool(tsb_json *j, bool v);
TSB_API int tsb_json_null(tsb_json *j);
/* `json`, trusted to be one well-formed JSON value, as it is. */
TSB_API int tsb_json_raw(tsb_json *j, const char *json);

/* TSB_JSON_OK, or the first failure (tsb_json_status); each call above
 * returns it too. A writer whose top-level value is not complete yet
 * says TSB_JSON_OK: tsb_json_finish checks that. */
TSB_API int tsb_json_error(const tsb_json *j);
/* TSB_JSON_OK when one complete value was written without a failure
 * (and, onto a FILE or a sink, flushed); else the failure, TSB_JSON_ERR_USAGE for
 * an unclosed or missing value. */
TSB_API int tsb_json_finish(tsb_json *j);
/* The buffer so far (NUL-terminated; valid until the next call), its
 * length in *len when `len` is not NULL; NULL for a FILE or sink writer. */
TSB_API const char *tsb_json_get_buffer(const tsb_json *j, size_t *len);
/* Takes the buffer (NUL-terminated, the caller frees it with free()) and
 * leaves the writer empty; NULL for a FILE or sink writer or after a
 * failure. */
TSB_API char *tsb_json_steal(tsb_json *j, size_t *len);

/*
 * Writes `s` (`len` bytes, SIZE_MAX: up to its NUL) onto `f` as one
 * quoted JSON string by the writer's rule and `flags`, for a document
 * that is printed piece by piece rather than through a tsb_json (a long
 * export that must not allocate per string). Returns TSB_JSON_OK or
 * TSB_JSON_ERR_IO.
 */
TSB_API int tsb_json_fputs(FILE *f, const char *s, size_t len, unsigned flags);

TSB_END_DECLS
