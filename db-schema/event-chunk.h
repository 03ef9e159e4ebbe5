/*
 * The packed event encoding of .pvti files (event_chunk.data; documented
 * in pvti.sql). The PVTI writer encodes spans into chunks; reportlib
 * decodes them. This is the only coder of the encoding.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The encoding version, the blob's first byte. */
#define TSF_CHUNK_VERSION 1

/* One span as stored. Ids are the file's own (string / channel ids);
 * times are nanoseconds since the file's origin. */
typedef struct tsf_event {
	int64_t start_ns, end_ns; /* end >= start */
	int64_t seq;              /* ordinal of its begin in its thread, >= 0 */
	int64_t parent;           /* the enclosing event's seq, -1: none */
	uint32_t name;            /* string id */
	uint32_t channel;         /* channel id */
	uint32_t depth;           /* 0: outermost */
} tsf_event;

/* Builds one blob. */
typedef struct tsf_chunk_enc {
	uint8_t *data;        /* malloc'd */
	size_t len, cap;      /* bytes */
	uint32_t count;       /* events */
	int64_t first_ns;     /* least start */
	int64_t last_ns;      /* greatest end */
	tsf_event prev;       /* the previous event (the coder's state) */
} tsf_chunk_enc;

/* Empties the encoder for a new blob, keeping its buffer. A zeroed struct
 * must be reset before its first use. */
void tsf_chunk_enc_reset(tsf_chunk_enc *enc);
/* Appends an event: 0, -1 when it cannot be coded (end before start, a
 * negative seq, a parent not before it), -2 when out of memory. */
int tsf_chunk_enc_add(tsf_chunk_enc *enc, const tsf_event *ev);
/* Frees the buffer (the struct itself is the caller's); NULL-safe. */
void tsf_chunk_enc_clear(tsf_chunk_enc *enc);

/* Reads one blob, one event at a time, checking everything. */
typedef struct tsf_chunk_dec {
	const uint8_t *p, *end;
	tsf_event prev;
	const char *why;      /* after -1: what is wrong, for a message */
} tsf_chunk_dec;

/* Starts reading blob[0..len); -1 for an empty blob or an unknown version
 * (dec->why says which). The decoder never looks outside the blob. */
int tsf_chunk_dec_init(tsf_chunk_dec *dec, const void *blob, size_t len);
/* Decodes the next event into *out: 1, 0 at the end of the blob, or -1
 * when the blob is malformed (dec->why: truncated, reserved flags, an id
 * past 32 bits, a sequence number out of range, a parent not before its
 * event, times that overflow). */
int tsf_chunk_dec_next(tsf_chunk_dec *dec, tsf_event *out);

/*
 * Decodes a whole blob that must hold exactly `count` events into
 * out[0..count): the reader's fast path (one call per chunk). Returns 0,
 * or -1 with *why set when the blob is malformed, holds fewer or more
 * events than `count`, or is too short for `count` to be true (checked
 * before anything is decoded: an event takes three bytes at least, so a
 * lying count cannot make the caller allocate more than the blob's size
 * says).
 */
int tsf_chunk_decode(tsf_event *out, uint32_t count, const void *blob, size_t len,
                     const char **why);
/* Whether a blob of `len` bytes can hold `count` events (see above). */
static inline int tsf_chunk_fits(uint32_t count, size_t len)
{
	return len >= 1 && len - 1 >= 3 * (size_t)count;
}
