/*
 * The packed event encoding of .pvti files (event_chunk.data; the format
 * is documented in db-schema/pvti.sql). A traced loop repeats the same
 * name, channel, depth and parent, and its begins follow each other in
 * order, so a flag byte says which of those change and only the changes
 * are written; times are deltas. A typical span takes 3 to 5 bytes,
 * which keeps ten million spans a second well inside what SQLite writes
 * as blobs.
 *
 * The decoder is written for files from elsewhere: every read is bounds
 * checked, integers longer than 64 bits are rejected and so are values
 * that cannot come from the encoder.
 */
#include "pvti-private.h"

#include <stdlib.h>
#include <string.h>

#define F_NAME 0x01u
#define F_CHANNEL 0x02u
#define F_DEPTH 0x04u
#define F_SEQ 0x08u
#define F_PARENT 0x10u
#define F_RESERVED 0xe0u
#define MAX_EVENT_BYTES (1 + 6 * 10) /* flag + six LEB128 integers */

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Inverse of zigzag(). */
static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Appends `v` as LEB128 (room reserved by the caller). */
static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* The coder's state before the first event of a blob. */
static void initial_state(pvti_event *prev)
{
	memset(prev, 0, sizeof(*prev));
	prev->seq = UINT64_MAX; /* "previous + 1" is then 0 */
	prev->parent = -1;
}

/* Starts a new blob: the coder state returns to its documented initial
 * values, the buffer is kept for reuse. */
void pvti_chunk_reset(pvti_chunk_enc *enc)
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
int pvti_chunk_add(pvti_chunk_enc *enc, const pvti_event *ev)
{
	uint8_t *p, *flags;
	const pvti_event *prev = &enc->prev;

	if (ev->end_ns < ev->start_ns || (ev->parent >= 0 && (uint64_t)ev->parent >= ev->seq))
		return TSI_ERR_INVALID_ARGUMENT;
	if (enc->cap - enc->len < MAX_EVENT_BYTES + 1) {
		size_t cap = enc->cap ? enc->cap * 2 : 4096;
		uint8_t *data = realloc(enc->data, cap);

		if (!data)
			return TSI_ERR_NO_MEMORY;
		enc->data = data;
		enc->cap = cap;
	}
	p = enc->data + enc->len;
	if (enc->len == 0)
		*p++ = PVTI_CHUNK_VERSION;
	flags = p++;
	*flags = 0;
	if (ev->name != prev->name) {
		*flags |= F_NAME;
		p = put_varint(p, ev->name);
	}
	if (ev->channel != prev->channel) {
		*flags |= F_CHANNEL;
		p = put_varint(p, ev->channel);
	}
	if (ev->depth != prev->depth) {
		*flags |= F_DEPTH;
		p = put_varint(p, ev->depth);
	}
	if (ev->seq != prev->seq + 1) {
		*flags |= F_SEQ;
		p = put_varint(p, zigzag((int64_t)(ev->seq - (prev->seq + 1))));
	}
	if (ev->parent != prev->parent) {
		*flags |= F_PARENT;
		p = put_varint(p, ev->parent < 0 ? 0 : ev->seq - (uint64_t)ev->parent);
	}
	p = put_varint(p, zigzag(ev->start_ns - prev->start_ns));
	p = put_varint(p, (uint64_t)(ev->end_ns - ev->start_ns));
	enc->len = (size_t)(p - enc->data);
	enc->count++;
	if (ev->start_ns < enc->first_ns)
		enc->first_ns = ev->start_ns;
	if (ev->end_ns > enc->last_ns)
		enc->last_ns = ev->end_ns;
	enc->prev = *ev;
	return TSI_OK;
}

/* Frees the buffer; NULL-safe. */
void pvti_chunk_clear(pvti_chunk_enc *enc)
{
	if (!enc)
		return;
	free(enc->data);
	enc->data = NULL;
	enc->len = enc->cap = 0;
}

/* Checks the version byte; the decoder never looks outside [blob, blob+len). */
int pvti_chunk_dec_init(pvti_chunk_dec *dec, const void *blob, size_t len)
{
	const uint8_t *b = blob;

	initial_state(&dec->prev);
	dec->p = dec->end = b;
	if (!b || len == 0 || b[0] != PVTI_CHUNK_VERSION)
		return TSI_ERR_INVALID_ARGUMENT;
	dec->p = b + 1;
	dec->end = b + len;
	return TSI_OK;
}

/* Reads one LEB128 integer; -1 when truncated or longer than 64 bits. */
static int get_varint(pvti_chunk_dec *dec, uint64_t *out)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t byte;

		if (dec->p >= dec->end || shift > 63)
			return -1;
		byte = *dec->p++;
		if (shift == 63 && (byte & 0x7e))
			return -1; /* bits past 64 */
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			break;
		shift += 7;
	}
	*out = v;
	return 0;
}

/* Reads an integer that must fit in 32 bits. */
static int get_u32(pvti_chunk_dec *dec, uint32_t *out)
{
	uint64_t v;

	if (get_varint(dec, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Decodes one event, rejecting anything the encoder cannot have written:
 * reserved flags, names / channels / depths past 32 bits, a parent not
 * before the event, times that overflow. */
int pvti_chunk_dec_next(pvti_chunk_dec *dec, pvti_event *out)
{
	pvti_event ev = dec->prev;
	uint64_t v, dur;
	uint8_t flags;
	int64_t delta;

	if (dec->p >= dec->end)
		return 0;
	flags = *dec->p++;
	if (flags & F_RESERVED)
		return -1;
	if ((flags & F_NAME) && get_u32(dec, &ev.name))
		return -1;
	if ((flags & F_CHANNEL) && get_u32(dec, &ev.channel))
		return -1;
	if ((flags & F_DEPTH) && get_u32(dec, &ev.depth))
		return -1;
	ev.seq = dec->prev.seq + 1;
	if (flags & F_SEQ) {
		if (get_varint(dec, &v))
			return -1;
		ev.seq += (uint64_t)unzigzag(v);
	}
	if (flags & F_PARENT) {
		if (get_varint(dec, &v) || v > ev.seq)
			return -1;
		ev.parent = v == 0 ? -1 : (int64_t)(ev.seq - v);
	} else if (ev.parent >= 0 && (uint64_t)ev.parent >= ev.seq) {
		return -1;
	}
	if (get_varint(dec, &v) || get_varint(dec, &dur))
		return -1;
	delta = unzigzag(v);
	if (__builtin_add_overflow(dec->prev.start_ns, delta, &ev.start_ns) || dur > INT64_MAX ||
	    __builtin_add_overflow(ev.start_ns, (int64_t)dur, &ev.end_ns))
		return -1;
	if (ev.seq > INT64_MAX)
		return -1;
	dec->prev = ev;
	*out = ev;
	return 1;
}
