/*
 * Chrome trace-event JSON (tsr_trace_export_chrome): the format Perfetto
 * and chrome://tracing open. It is streamed to the caller's FILE, one
 * chunk of spans at a time, so a trace of any size exports in bounded
 * memory.
 *
 * Times are written as exact decimals of the nanoseconds ("12.345" us),
 * never through a double. Strings from the file are escaped here, and
 * bytes that are not UTF-8 become U+FFFD, so a hostile name cannot break
 * the document. Span metadata is copied as JSON only when cJSON parses it
 * and it is valid UTF-8; otherwise it is written as a string.
 */
#include "trace-private.h"

#include <tilescope/json-writer.h>
#include <tilescope/utf8.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Writes `s` as a JSON string: base's writer's rule, with a byte that is
 * not UTF-8 as the escape \ufffd (this document's spelling since its
 * first release). */
static void put_string(FILE *out, const char *s)
{
	tsb_json_fputs(out, s, SIZE_MAX, TSB_JSON_ESCAPE_INVALID);
}

/* ns as microseconds with three exact decimals. */
static void put_us(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	fprintf(out, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

/* The tid written for thread `t`: the OS one, unless an earlier thread of
 * the same process had it (a reused tid), then one made from thread.id. */
static int64_t chrome_tid(const tsr_trace *tr, size_t t)
{
	const tsr_trace_thread *th = &tr->threads[t];
	size_t i;

	for (i = tr->processes[th->process].first_thread; i < t; i++)
		if (tr->threads[i].tid == th->tid)
			return 1000000000 + th->id;
	return th->tid;
}

/* A span's metadata, by seq. */
typedef struct meta_entry {
	int64_t seq;
	const char *json; /* malloc'd */
} meta_entry;

/* By seq, for the binary search of meta_find. */
static int compare_meta(const void *a, const void *b)
{
	const meta_entry *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Frees a thread's metadata list. */
static void meta_clear(tsr_trace *tr, meta_entry *m, size_t n, size_t cap)
{
	size_t i;

	for (i = 0; i < n; i++)
		trace_free_mem(tr, (void *)m[i].json, strlen(m[i].json) + 1);
	trace_free_mem(tr, m, cap * sizeof(*m));
}

/* Reads every metadata row of thread `t`, sorted by seq. Counted against
 * the cap with the texts' lengths. */
static int meta_load(tsr_trace *tr, meta_entry **out, size_t *n, size_t *cap, size_t t)
{
	const tsr_trace_thread *th = &tr->threads[t];
	sqlite3_stmt *st = NULL;
	int rc = trace_prepare(tr, &st, th->process,
	                       "SELECT seq, json FROM event_metadata WHERE thread = ?");

	*out = NULL;
	*n = *cap = 0;
	if (rc != TSR_OK)
		return rc;
	sqlite3_bind_int64(st, 1, th->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *text = sqlite3_column_text(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		char *copy;

		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || !text) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: an event_metadata row is malformed",
			                tr->processes[th->process].path);
			goto cleanup;
		}
		if (*n == *cap) {
			size_t grown = *cap ? *cap * 2 : 64;
			meta_entry *g = trace_realloc(tr, *out, *cap, grown, sizeof(*g));

			if (!g) {
				rc = tr->code;
				goto cleanup;
			}
			*out = g;
			*cap = grown;
		}
		copy = trace_alloc(tr, len + 1, 1);
		if (!copy) {
			rc = tr->code;
			goto cleanup;
		}
		memcpy(copy, text, len);
		(*out)[*n].seq = sqlite3_column_int64(st, 0);
		(*out)[(*n)++].json = copy;
	}
	rc = rc == SQLITE_DONE ? TSR_OK
	                       : trace_sql_fail(tr, tr->files[th->process].db, rc,
	                                        tr->processes[th->process].path);
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), compare_meta);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* The metadata of span `seq`, or NULL. */
static const char *meta_find(const meta_entry *m, size_t n, int64_t seq)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && m[lo].seq == seq ? m[lo].json : NULL;
}

static const char *json_skip_value(const char *s, int depth);

static const char *json_skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* Past the JSON string at `s` (RFC 8259), or NULL. */
static const char *json_skip_string(const char *s)
{
	if (*s++ != '"')
		return NULL;
	for (; *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL; /* also the end of the text */
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				/* As cJSON: a low surrogate alone, or a high one not
				 * followed by a low one, is refused. */
				unsigned long u;
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)s[i]))
						return NULL;
				u = strtoul((char[5]){s[1], s[2], s[3], s[4], 0}, NULL, 16);
				s += 4;
				if (u >= 0xdc00 && u <= 0xdfff)
					return NULL;
				if (u >= 0xd800 && u <= 0xdbff) {
					if (s[1] != '\\' || s[2] != 'u')
						return NULL;
					for (int i = 3; i <= 6; i++)
						if (!isxdigit((unsigned char)s[i]))
							return NULL;
					u = strtoul((char[5]){s[3], s[4], s[5], s[6], 0}, NULL, 16);
					if (u < 0xdc00 || u > 0xdfff)
						return NULL;
					s += 6;
				}
			} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
				return NULL;
			}
		}
	}
	return s + 1;
}

/* Past the JSON number at `s`, or NULL. */
static const char *json_skip_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		return NULL;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return NULL;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return NULL;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return s;
}

/* Past the JSON value at `s` (and the white space around it), or NULL;
 * nested at most as deep as cJSON parses. Allocates nothing. */
static const char *json_skip_value(const char *s, int depth)
{
	s = json_skip_ws(s);
	if (depth > 1000)
		return NULL;
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = json_skip_ws(s + 1);
		if (*s == close)
			return json_skip_ws(s + 1);
		for (;;) {
			if (close == '}') {
				s = json_skip_string(json_skip_ws(s));
				if (!s || *(s = json_skip_ws(s)) != ':')
					return NULL;
				s++;
			}
			if (!(s = json_skip_value(s, depth + 1)))
				return NULL;
			if (*s == close)
				return json_skip_ws(s + 1);
			if (*s++ != ',')
				return NULL;
		}
	}
	if (*s == '"')
		s = json_skip_string(s);
	else if (strncmp(s, "true", 4) == 0 || strncmp(s, "null", 4) == 0)
		s += 4;
	else if (strncmp(s, "false", 5) == 0)
		s += 5;
	else
		s = json_skip_number(s);
	return s ? json_skip_ws(s) : NULL;
}

/* Writes `json` as an args value: as is when it is JSON and UTF-8, else
 * as a string. cJSON decides; when it refuses text that is JSON by the
 * RFC (json_skip_value), it ran out of memory, and that is an error
 * rather than a quietly different export. */
static int put_json_value(tsr_trace *tr, FILE *out, const char *json)
{
	bool utf8 = tsb_utf8_valid(json, SIZE_MAX);
	cJSON *doc = utf8 ? cJSON_Parse(json) : NULL;

	if (doc)
		fputs(json, out);
	else if (utf8 && json_skip_value(json, 0))
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
	else
		put_string(out, json);
	cJSON_Delete(doc);
	return TSR_OK;
}

/* Starts an event object, with the separator. */
static void begin_event(FILE *out, bool *first)
{
	fputs(*first ? "\n{" : ",\n{", out);
	*first = false;
}

/* "M" events: process and thread names. */
static void put_names(tsr_trace *tr, FILE *out, bool *first)
{
	size_t p, t;

	for (p = 0; p < tr->n_processes; p++) {
		const tsr_trace_process *pr = &tr->processes[p];

		begin_event(out, first);
		fprintf(out, "\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRId64 ",\"args\":{\"name\":",
		        pr->pid);
		put_string(out, pr->name);
		fputs("}}", out);
	}
	for (t = 0; t < tr->n_threads; t++) {
		const tsr_trace_thread *th = &tr->threads[t];

		begin_event(out, first);
		fprintf(out,
		        "\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		        ",\"args\":{\"name\":",
		        tr->processes[th->process].pid, chrome_tid(tr, t));
		put_string(out, th->name);
		fputs("}}", out);
	}
}

/* "X" events of thread `t` in the window, chunk by chunk. */
static int put_spans(tsr_trace *tr, FILE *out, bool *first, size_t t,
                     const tsr_trace_export_options *o, trace_event **scratch, size_t *cap)
{
	const tsr_trace_thread *th = &tr->threads[t];
	int64_t pid = tr->processes[th->process].pid, tid = chrome_tid(tr, t);
	meta_entry *meta = NULL;
	size_t n_meta = 0, cap_meta = 0, *idx = NULL, n_idx = 0, i, k;
	int rc = TSR_OK;

	if (o->metadata && (rc = meta_load(tr, &meta, &n_meta, &cap_meta, t)) != TSR_OK)
		goto cleanup;
	if ((rc = trace_find_chunks(tr, &idx, &n_idx, t, o->from_ns, o->to_ns)) != TSR_OK)
		goto cleanup;
	for (i = 0; i < n_idx; i++) {
		const trace_chunk *c = &tr->tdata[t].chunks[idx[i]];

		if ((rc = trace_decode_chunk(tr, scratch, cap, t, c)) != TSR_OK)
			goto cleanup;
		for (k = 0; k < c->count; k++) {
			const trace_event *e = &(*scratch)[k];
			const char *json;

			if (!trace_event_in(e, o->from_ns, o->to_ns))
				continue;
			begin_event(out, first);
			fputs("\"ph\":\"X\",\"name\":", out);
			put_string(out, tr->names[e->name]);
			fputs(",\"cat\":", out);
			put_string(out, tr->channels[e->channel].name);
			fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", pid, tid);
			put_us(out, e->start_ns);
			fputs(",\"dur\":", out);
			put_us(out, e->end_ns - e->start_ns);
			json = meta_find(meta, n_meta, e->seq);
			if (json) {
				fputs(",\"args\":{\"metadata\":", out);
				if ((rc = put_json_value(tr, out, json)) != TSR_OK)
					goto cleanup;
				fputc('}', out);
			}
			fputc('}', out);
		}
		if (ferror(out)) {
			rc = trace_fail(tr, TSR_ERR_IO, "writing the Chrome trace failed");
			goto cleanup;
		}
	}
cleanup:
	trace_free_mem(tr, idx, n_idx * sizeof(*idx));
	meta_clear(tr, meta, n_meta, cap_meta);
	return rc;
}

/* "i" events of file `p` in the window, through its time index. */
static int put_instants(tsr_trace *tr, FILE *out, bool *first, size_t p,
                        const tsr_trace_export_options *o)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int rc;

	trace_window_to_file(tr, p, o->from_ns, o->to_ns, &lo, &hi);
	rc = trace_prepare(tr, &st, p,
	                   "SELECT thread, t_ns, channel, name FROM instant "
	                   "WHERE t_ns >= ? AND t_ns < ? ORDER BY t_ns");
	if (rc != TSR_OK)
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t t;
		int64_t ts;
		uint32_t channel, name;

		if ((rc = trace_map_thread(tr, &t, p, sqlite3_column_int64(st, 0))) ||
		    (rc = trace_to_axis(tr, &ts, p, sqlite3_column_int64(st, 1), "instant.t_ns")) ||
		    (rc = trace_map_channel(tr, &channel, p, sqlite3_column_int64(st, 2))) ||
		    (rc = trace_map_name(tr, &name, p, sqlite3_column_int64(st, 3))))
			goto cleanup;
		begin_event(out, first);
		fputs("\"ph\":\"i\",\"s\":\"t\",\"name\":", out);
		put_string(out, tr->names[name]);
		fputs(",\"cat\":", out);
		put_string(out, tr->channels[channel].name);
		fprintf(out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":",
		        tr->processes[p].pid, chrome_tid(tr, t));
		put_us(out, ts);
		fputc('}', out);
	}
	rc = rc == SQLITE_DONE ? TSR_OK : trace_sql_fail(tr, tr->files[p].db, rc, tr->processes[p].path);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* "C" events of series `s` in the window (finite values only). */
static int put_counter(tsr_trace *tr, FILE *out, bool *first, size_t s,
                       const tsr_trace_export_options *o)
{
	const tsr_trace_series *se = &tr->series[s];
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int rc;

	trace_window_to_file(tr, se->process, o->from_ns, o->to_ns, &lo, &hi);
	rc = trace_prepare(tr, &st, se->process,
	                   "SELECT t_ns, value FROM sample WHERE series = ? AND t_ns >= ? AND t_ns < ? "
	                   "ORDER BY t_ns");
	if (rc != TSR_OK)
		return rc;
	sqlite3_bind_int64(st, 1, tr->sdata[s].id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double v = sqlite3_column_double(st, 1);
		int64_t ts;

		if ((rc = trace_to_axis(tr, &ts, se->process, sqlite3_column_int64(st, 0), "sample.t_ns")))
			goto cleanup;
		if (!isfinite(v))
			continue;
		begin_event(out, first);
		fputs("\"ph\":\"C\",\"name\":", out);
		put_string(out, se->graph);
		fprintf(out, ",\"pid\":%" PRId64 ",\"ts\":", tr->processes[se->process].pid);
		put_us(out, ts);
		fputs(",\"args\":{", out);
		put_string(out, se->name);
		fprintf(out, ":%.17g}}", v);
	}
	rc = rc == SQLITE_DONE ? TSR_OK
	                       : trace_sql_fail(tr, tr->files[se->process].db, rc,
	                                        tr->processes[se->process].path);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* See trace.h. */
int tsr_trace_export_chrome(FILE *out, tsr_trace *tr, const tsr_trace_export_options *opts)
{
	tsr_trace_export_options o = TSR_TRACE_EXPORT_OPTIONS_INIT;
	trace_event *scratch = NULL;
	size_t cap = 0, i;
	bool first = true;
	int rc = TSR_OK;

	if (!tr || !out)
		return TSR_ERR_INVALID_ARGUMENT;
	if (opts) {
		if (opts->version != TSR_TRACE_EXPORT_OPTIONS_VERSION)
			return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT,
			                  "export options version %u is not %u", opts->version,
			                  TSR_TRACE_EXPORT_OPTIONS_VERSION);
		o = *opts;
	}
	if (o.from_ns > o.to_ns)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "the window ends before it starts");
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"origin_wall_ns\":", out);
	fprintf(out, "\"%" PRId64 "\"},\"traceEvents\":[", tr->info.origin_wall_ns);
	put_names(tr, out, &first);
	for (i = 0; i < tr->n_threads && rc == TSR_OK; i++)
		rc = put_spans(tr, out, &first, i, &o, &scratch, &cap);
	for (i = 0; o.instants && i < tr->n_processes && rc == TSR_OK; i++)
		rc = put_instants(tr, out, &first, i, &o);
	for (i = 0; o.counters && i < tr->n_series && rc == TSR_OK; i++)
		rc = put_counter(tr, out, &first, i, &o);
	trace_free_mem(tr, scratch, cap * sizeof(*scratch));
	if (rc != TSR_OK)
		return rc;
	fputs("\n]}\n", out);
	if (fflush(out) != 0 || ferror(out))
		return trace_fail(tr, TSR_ERR_IO, "writing the Chrome trace failed");
	return TSR_OK;
}
