/*
 * The packed event encoding of .pvti files (event_chunk.data; the format
 * is documented in pvti.sql). A traced loop repeats the same name,
 * channel, depth and parent, and its begins follow each other in order,
 * so a flag byte says which of those change and only the changes are
 * written; times are deltas. A typical span takes 3 to 5 bytes, which
 * keeps ten million spans a second well inside what SQLite writes as
 * blobs.
 *
 * The decoders are written for files from elsewhere: every read is bounds
 * checked, integers longer than 64 bits are rejected and so are values
 * that cannot come from the encoder. The iterator (tsf_chunk_dec) and the
 * whole-blob decoder (tsf_chunk_decode, the reader's fast path) share one
 * event decoder, so they accept exactly the same blobs.
 */
#include <tilescope/alloc.h>
#include "event-chunk.h"
#include "leb128.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define F_NAME 0x01u
#define F_CHANNEL 0x02u
#define F_DEPTH 0x04u
#define F_SEQ 0x08u
#define F_PARENT 0x10u
#define F_RESERVED 0xe0u
#define MAX_EVENT_BYTES (1 + 6 * TSF_LEB128_MAX) /* flag + six integers */

/* The coder's state before the first event of a blob. */
static void initial_state(tsf_event *prev)
{
	memset(prev, 0, sizeof(*prev));
	prev->seq = -1; /* "previous + 1" is then 0 */
	prev->parent = -1;
}

/* --- Encoding ------------------------------------------------------------- */

void tsf_chunk_enc_reset(tsf_chunk_enc *enc)
{
	enc->len = 0;
	enc->count = 0;
	enc->first_ns = INT64_MAX;
	enc->last_ns = INT64_MIN;
	initial_state(&enc->prev);
}

/*
 * Appends one event. The buffer grows by doubling; the version byte is
 * written with the first event so an empty encoder holds nothing.
 */
int tsf_chunk_enc_add(tsf_chunk_enc *enc, const tsf_event *ev)
{
	const tsf_event *prev = &enc->prev;
	uint8_t *p, *flags;

	if (ev->end_ns < ev->start_ns || ev->seq < 0 || ev->parent >= ev->seq)
		return -1;
	if (enc->cap - enc->len < MAX_EVENT_BYTES + 1) {
		size_t cap = enc->cap ? enc->cap * 2 : 4096;
		uint8_t *data = tsb_realloc(enc->data, cap);

		if (!data)
			return -2;
		enc->data = data;
		enc->cap = cap;
	}
	p = enc->data + enc->len;
	if (enc->len == 0)
		*p++ = TSF_CHUNK_VERSION;
	flags = p++;
	*flags = 0;
	if (ev->name != prev->name) {
		*flags |= F_NAME;
		p = tsf_leb128_put(p, ev->name);
	}
	if (ev->channel != prev->channel) {
		*flags |= F_CHANNEL;
		p = tsf_leb128_put(p, ev->channel);
	}
	if (ev->depth != prev->depth) {
		*flags |= F_DEPTH;
		p = tsf_leb128_put(p, ev->depth);
	}
	if (ev->seq != prev->seq + 1) {
		*flags |= F_SEQ;
		p = tsf_leb128_put(p, tsf_zigzag(ev->seq - (prev->seq + 1)));
	}
	if (ev->parent != prev->parent) {
		*flags |= F_PARENT;
		p = tsf_leb128_put(p, ev->parent < 0 ? 0 : (uint64_t)(ev->seq - ev->parent));
	}
	p = tsf_leb128_put(p, tsf_zigzag(ev->start_ns - prev->start_ns));
	p = tsf_leb128_put(p, (uint64_t)(ev->end_ns - ev->start_ns));
	enc->len = (size_t)(p - enc->data);
	enc->count++;
	if (ev->start_ns < enc->first_ns)
		enc->first_ns = ev->start_ns;
	if (ev->end_ns > enc->last_ns)
		enc->last_ns = ev->end_ns;
	enc->prev = *ev;
	return 0;
}

void tsf_chunk_enc_clear(tsf_chunk_enc *enc)
{
	if (!enc)
		return;
	free(enc->data);
	enc->data = NULL;
	enc->len = enc->cap = 0;
}

/* --- Decoding ------------------------------------------------------------- */

/* Reads an integer that must fit in 32 bits. */
static inline bool get_u32(const uint8_t **p, const uint8_t *end, uint32_t *out)
{
	uint64_t v;

	if (!tsf_leb128_get(p, end, &v) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/*
 * Decodes the event at *pp (which is before `end`) following *prev into
 * *prev, rejecting anything the encoder cannot have written. NULL when it
 * is good, else what is wrong.
 */
static inline __attribute__((always_inline)) const char *decode_event(const uint8_t **pp,
                                                                      const uint8_t *end,
                                                                      tsf_event *prev)
{
	const uint8_t *p = *pp;
	uint8_t flags = *p++;
	uint64_t v, dur;
	int64_t seq;

	if (flags & F_RESERVED)
		return "reserved flags";
	if ((flags & F_NAME) && !get_u32(&p, end, &prev->name))
		return "truncated, or an id past 32 bits";
	if ((flags & F_CHANNEL) && !get_u32(&p, end, &prev->channel))
		return "truncated, or an id past 32 bits";
	if ((flags & F_DEPTH) && !get_u32(&p, end, &prev->depth))
		return "truncated, or a depth past 32 bits";
	if (flags & F_SEQ) {
		if (!tsf_leb128_get(&p, end, &v) ||
		    __builtin_add_overflow(prev->seq + 1, tsf_unzigzag(v), &seq) || seq < 0)
			return "a sequence number out of range";
	} else if (__builtin_add_overflow(prev->seq, 1, &seq)) {
		return "a sequence number out of range";
	}
	prev->seq = seq;
	if (flags & F_PARENT) {
		if (!tsf_leb128_get(&p, end, &v) || v > (uint64_t)seq)
			return "a parent that is not before its child";
		prev->parent = v == 0 ? -1 : seq - (int64_t)v;
	} else if (prev->parent >= seq) {
		return "a parent that is not before its child";
	}
	if (!tsf_leb128_get(&p, end, &v) || !tsf_leb128_get(&p, end, &dur))
		return "truncated";
	if (__builtin_add_overflow(prev->start_ns, tsf_unzigzag(v), &prev->start_ns) ||
	    dur > (uint64_t)INT64_MAX ||
	    __builtin_add_overflow(prev->start_ns, (int64_t)dur, &prev->end_ns))
		return "times that overflow";
	*pp = p;
	return NULL;
}

int tsf_chunk_dec_init(tsf_chunk_dec *dec, const void *blob, size_t len)
{
	const uint8_t *b = blob;

	initial_state(&dec->prev);
	dec->p = dec->end = b;
	dec->why = NULL;
	if (!b || len == 0) {
		dec->why = "empty";
		return -1;
	}
	if (b[0] != TSF_CHUNK_VERSION) {
		dec->why = "unknown encoding version";
		return -1;
	}
	dec->p = b + 1;
	dec->end = b + len;
	return 0;
}

int tsf_chunk_dec_next(tsf_chunk_dec *dec, tsf_event *out)
{
	if (dec->why)
		return -1;
	if (dec->p >= dec->end)
		return 0;
	dec->why = decode_event(&dec->p, dec->end, &dec->prev);
	if (dec->why)
		return -1;
	*out = dec->prev;
	return 1;
}

int tsf_chunk_decode(tsf_event *out, uint32_t count, const void *blob, size_t len,
                     const char **why)
{
	const uint8_t *p = blob, *end = p + len;
	tsf_event state;

	*why = NULL;
	if (!blob || !tsf_chunk_fits(count, len)) {
		*why = "too short for its count";
		return -1;
	}
	if (*p++ != TSF_CHUNK_VERSION) {
		*why = "unknown encoding version";
		return -1;
	}
	initial_state(&state);
	for (uint32_t i = 0; i < count; i++) {
		if (p >= end) {
			*why = "it holds fewer events than its count";
			return -1;
		}
		if ((*why = decode_event(&p, end, &state)) != NULL)
			return -1;
		out[i] = state;
	}
	if (p != end) {
		*why = "it holds more than its count";
		return -1;
	}
	return 0;
}
