/*
 * The .pvti tables written from what the import kept (trace-chrome.c):
 * spans nested per thread by a sweep over their start times, encoded
 * into event chunks with db-schema's codec, their metadata, instants,
 * names, channels, threads, label statistics, the process row and the
 * trace metadata of what the import met.
 */
#define _GNU_SOURCE 1

#include <tilescope/alloc.h>
#include "trace-chrome-private.h"

#include "event-chunk.h"

#include <tilescope/json-writer.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Nesting and chunks ------------------------------------------------------------ */

/* Start, then the longer first, then arrival. */
static int compare_spans(const void *a, const void *b)
{
	const cj_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* By time. */
static int compare_instants(const void *a, const void *b)
{
	const cj_inst *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/* One open span in the sweep. */
typedef struct sweep_frame {
	const cj_span *s;
	int64_t seq;
	uint64_t kids;             /* durations of its children (ns) */
} sweep_frame;

/* The state of one thread's sweep. */
typedef struct sweep {
	conv *c;
	int64_t thread_id;
	tsf_chunk_enc enc;
	sqlite3_stmt *ins_chunk, *ins_meta, *ins_inst;
	sweep_frame stack[MAX_DEPTH];
	size_t depth;
	int64_t next_seq;
} sweep;

/* Writes the chunk being encoded as one event_chunk row. */
static int flush_chunk(sweep *w)
{
	conv *c = w->c;
	int rc;

	if (!w->enc.count)
		return TSR_OK;
	sqlite3_reset(w->ins_chunk);
	sqlite3_bind_int64(w->ins_chunk, 1, w->thread_id);
	sqlite3_bind_int64(w->ins_chunk, 2, w->enc.first_ns);
	sqlite3_bind_int64(w->ins_chunk, 3, w->enc.last_ns);
	sqlite3_bind_int64(w->ins_chunk, 4, w->enc.count);
	sqlite3_bind_blob(w->ins_chunk, 5, w->enc.data, (int)w->enc.len, SQLITE_STATIC);
	if ((rc = sqlite3_step(w->ins_chunk)) != SQLITE_DONE)
		return trace_chrome_sql_fail(c, rc);
	tsf_chunk_enc_reset(&w->enc);
	return trace_chrome_check_db_size(c);
}

/* The label statistics of (channel, name). */
static int stat_of(conv *c, cj_stat **out, uint32_t chan, uint32_t name)
{
	cj_slot key = {chan, name, 0, 0, 0}, *slot;
	uint32_t idx;
	int rc = trace_chrome_map_find(c, &c->stat_map, &key, &idx, &slot);

	if (rc)
		return rc;
	if (idx == NONE) {
		if ((rc = trace_chrome_grow(c, (void **)&c->stats, &c->cap_stats, c->n_stats + 1, sizeof(*c->stats))))
			return rc;
		memset(&c->stats[c->n_stats], 0, sizeof(*c->stats));
		c->stats[c->n_stats].min = UINT64_MAX;
		idx = (uint32_t)c->n_stats++;
		trace_chrome_map_set(&c->stat_map, slot, &key, idx);
	}
	*out = &c->stats[idx];
	return TSR_OK;
}

/* Writes the innermost open span: the chunk, its metadata, its label's
 * statistics, its time to its parent. */
static int pop(sweep *w)
{
	conv *c = w->c;
	sweep_frame *f = &w->stack[--w->depth];
	const cj_span *s = f->s;
	uint64_t dur = (uint64_t)s->end - (uint64_t)s->start;
	tsf_event ev;
	cj_stat *st;
	int rc;

	ev.start_ns = s->start - c->base_ns;
	ev.end_ns = s->end - c->base_ns;
	ev.seq = f->seq;
	ev.parent = w->depth ? w->stack[w->depth - 1].seq : -1;
	ev.name = s->name;
	ev.channel = s->chan;
	ev.depth = (uint32_t)w->depth;
	if ((rc = tsf_chunk_enc_add(&w->enc, &ev)) != 0)
		return rc == -2 ? trace_fail(c->tr, TSR_ERR_NO_MEMORY, "%s: out of memory", c->path)
		                : trace_fail(c->tr, TSR_ERR_CORRUPT, "%s: a span cannot be stored", c->path);
	if (w->depth)
		w->stack[w->depth - 1].kids += dur;
	if ((rc = stat_of(c, &st, s->chan, s->name)))
		return rc;
	st->count++;
	st->total += dur;
	st->self += dur > f->kids ? dur - f->kids : 0;
	if (dur < st->min)
		st->min = dur;
	if (dur > st->max)
		st->max = dur;
	if (s->args_len) {
		sqlite3_reset(w->ins_meta);
		sqlite3_bind_int64(w->ins_meta, 1, w->thread_id);
		sqlite3_bind_int64(w->ins_meta, 2, f->seq);
		sqlite3_bind_text(w->ins_meta, 3, c->args + s->args_off, (int)s->args_len, SQLITE_STATIC);
		if ((rc = sqlite3_step(w->ins_meta)) != SQLITE_DONE)
			return trace_chrome_sql_fail(c, rc);
	}
	if (w->enc.count >= CHUNK_EVENTS || w->enc.len >= CHUNK_BYTES)
		return flush_chunk(w);
	return TSR_OK;
}

/* Writes instant `in` with the spans open at its time. */
static int put_instant(sweep *w, const cj_inst *in)
{
	conv *c = w->c;
	int rc;

	sqlite3_reset(w->ins_inst);
	sqlite3_bind_int64(w->ins_inst, 1, w->thread_id);
	sqlite3_bind_int64(w->ins_inst, 2, in->t - c->base_ns);
	sqlite3_bind_int64(w->ins_inst, 3, in->chan);
	sqlite3_bind_int64(w->ins_inst, 4, in->name);
	sqlite3_bind_int64(w->ins_inst, 5, (int64_t)w->depth);
	if (w->depth)
		sqlite3_bind_int64(w->ins_inst, 6, w->stack[w->depth - 1].seq);
	else
		sqlite3_bind_null(w->ins_inst, 6);
	if ((rc = sqlite3_step(w->ins_inst)) != SQLITE_DONE)
		return trace_chrome_sql_fail(c, rc);
	return TSR_OK;
}

/* Nests and writes the spans and instants of thread `t` ("Nesting" at the
 * top of trace-chrome.c). */
static int write_thread(conv *c, sweep *w, cj_thread *t)
{
	size_t i, k = 0;
	int rc = TSR_OK;

	if (t->unsorted) {
		/* Two spans with the same start and end: which one holds the
		 * other? A file listing spans as they end (tilescope's export,
		 * tracers that write a span when it closes) has the parent
		 * second; one listing them as they begin has it first. */
		if (!t->unsorted_end)
			for (i = 0; i < t->n; i++)
				t->spans[i].order = UINT32_MAX - t->spans[i].order;
		qsort(t->spans, t->n, sizeof(*t->spans), compare_spans);
	}
	if (t->inst_unsorted)
		qsort(t->inst, t->n_inst, sizeof(*t->inst), compare_instants);
	w->depth = 0;
	w->next_seq = 0;
	tsf_chunk_enc_reset(&w->enc);
	for (i = 0; i <= t->n && rc == TSR_OK; i++) {
		const cj_span *s = i < t->n ? &t->spans[i] : NULL;
		int64_t at = s ? s->start : INT64_MAX;

		/* Instants before this span, with what is open at their time. */
		while (rc == TSR_OK && k < t->n_inst && t->inst[k].t < at) {
			while (rc == TSR_OK && w->depth && w->stack[w->depth - 1].s->end <= t->inst[k].t)
				rc = pop(w);
			if (rc == TSR_OK)
				rc = put_instant(w, &t->inst[k++]);
		}
		if (!s)
			break;
		/* Close what ended, and what this span does not fit in. */
		while (rc == TSR_OK && w->depth &&
		       (w->stack[w->depth - 1].s->end <= s->start || w->stack[w->depth - 1].s->end < s->end))
			rc = pop(w);
		if (rc)
			break;
		if (w->depth >= MAX_DEPTH) {
			c->too_deep++;
			continue;
		}
		w->stack[w->depth].s = s;
		w->stack[w->depth].seq = w->next_seq++;
		w->stack[w->depth].kids = 0;
		w->depth++;
		if ((i & 65535) == 65535 && tsr_progress_poll(&c->tr->progress))
			rc = trace_fail_cancelled(c->tr);
	}
	while (rc == TSR_OK && w->depth)
		rc = pop(w);
	if (rc == TSR_OK)
		rc = flush_chunk(w);
	t->emitted = (uint64_t)w->next_seq;
	return rc;
}

/* Binds a text column, interned string `id`. */
static void bind_str(conv *c, sqlite3_stmt *st, int col, uint32_t id)
{
	sqlite3_bind_text(st, col, trace_chrome_str(c, id), (int)c->str_len[id], SQLITE_STATIC);
}

/* Steps a statement to its end and resets it for the next row. */
static int step_done(conv *c, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? TSR_OK : trace_chrome_sql_fail(c, rc);
}

/* "name" of a thread: its thread_name or its tid, with its process's
 * name or pid when the file holds several processes. */
static char *thread_label(conv *c, const cj_thread *t)
{
	char *s = NULL, tid[32], pid[32];
	const cj_process *pr = &c->procs[t->process];

	snprintf(tid, sizeof(tid), "%" PRId64, t->tid.v);
	snprintf(pid, sizeof(pid), "pid %" PRId64, t->pid.v);
	const char *tn = t->name != NONE ? trace_chrome_str(c, t->name)
	                 : t->tid.str    ? trace_chrome_str(c, (uint32_t)t->tid.v)
	                                 : NULL;
	const char *pn = pr->name != NONE ? trace_chrome_str(c, pr->name)
	                 : t->pid.str           ? trace_chrome_str(c, (uint32_t)t->pid.v)
	                                        : pid;

	if (c->n_procs > 1)
		s = tn ? tsb_asprintf("%s: %s", pn, tn) : tsb_asprintf("%s: tid %s", pn, tid);
	else
		s = tn ? tsb_asprintf("%s", tn) : tsb_asprintf("tid %s", tid);
	return s;
}

/* The JSON object of the skipped phases' counts (base's JSON writer), or
 * NULL when out of memory. A phase that is a control character, a quote
 * or a backslash is counted under "other". */
static char *skipped_json(const conv *c)
{
	tsb_json *j = tsb_json_new_buffer(TSB_JSON_COMPACT);
	char *s = NULL;

	if (!j)
		return NULL;
	tsb_json_begin_object(j);
	for (int i = 0; i < 128; i++) {
		char key[2] = {(char)i, '\0'};

		if (!c->skipped[i])
			continue;
		tsb_json_key(j, i == 0 || i == '"' || i == '\\' || i < 0x20 ? "other" : key);
		tsb_json_u64(j, c->skipped[i]);
	}
	tsb_json_end_object(j);
	if (tsb_json_finish(j) == TSB_JSON_OK)
		s = tsb_json_steal(j, NULL);
	tsb_json_free(j);
	return s;
}

/* Everything the parse kept, as the .pvti tables. */
int trace_chrome_write_tables(conv *c)
{
	sqlite3_stmt *st = NULL;
	sweep w;
	size_t i;
	int rc;
	const char *base = strrchr(c->path, '/');
	int64_t pid = 0;
	uint32_t pname = NONE;

	memset(&w, 0, sizeof(w));
	w.c = c;
	tsf_chunk_enc_reset(&w.enc);
	if (!c->any_time)
		c->min_ns = 0;
	/* Times start at 0 on the file's axis, unless the file says where its
	 * 0 lies in wall time (the export's origin_wall_ns) and none is
	 * before it: a round trip then keeps the trace's own times. */
	c->base_ns = c->have_origin && c->min_ns >= 0 ? 0 : c->min_ns;
	for (i = 0; i < c->n_threads; i++) {
		cj_thread *t = c->threads[i];

		c->unclosed_begins += t->n_open + t->open_past;
		/* Every time minus the earliest must fit (spans cover < 2^63 ns). */
		for (size_t k = 0; k < t->n_inst; k++)
			if ((uint64_t)t->inst[k].t - (uint64_t)c->base_ns > (uint64_t)INT64_MAX)
				return trace_fail(c->tr, TSR_ERR_CORRUPT,
				                  "%s: not a valid Chrome trace: its times span more than "
				                  "292 years",
				                  c->path);
		for (size_t k = 0; k < t->n; k++)
			if ((uint64_t)t->spans[k].end - (uint64_t)c->base_ns > (uint64_t)INT64_MAX)
				return trace_fail(c->tr, TSR_ERR_CORRUPT,
				                  "%s: not a valid Chrome trace: its times span more than "
				                  "292 years",
				                  c->path);
	}
	if ((rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO event_chunk(thread, first_ns, last_ns, count, data) "
	                             "VALUES (?, ?, ?, ?, ?)",
	                             -1, &w.ins_chunk, NULL)) ||
	    (rc = sqlite3_prepare_v2(c->db,
	                             "INSERT OR REPLACE INTO event_metadata(thread, seq, json) "
	                             "VALUES (?, ?, ?)",
	                             -1, &w.ins_meta, NULL)) ||
	    (rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO instant(thread, t_ns, channel, name, depth, parent) "
	                             "VALUES (?, ?, ?, ?, ?, ?)",
	                             -1, &w.ins_inst, NULL))) {
		rc = trace_chrome_sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_threads && rc == TSR_OK; i++) {
		w.thread_id = (int64_t)i + 1;
		rc = write_thread(c, &w, c->threads[i]);
	}
	if (rc)
		goto cleanup;
	/* Samples were written with the file's times. */
	if (c->counters) {
		char sql[96];

		snprintf(sql, sizeof(sql), "UPDATE sample SET t_ns = t_ns - (%" PRId64 ")", c->base_ns);
		if ((rc = trace_chrome_exec(c, sql)))
			goto cleanup;
	}
	/* Names. */
	if ((rc = sqlite3_prepare_v2(c->db, "INSERT INTO string(id, value) VALUES (?, ?)", -1, &st,
	                             NULL))) {
		rc = trace_chrome_sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_str && rc == TSR_OK; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		bind_str(c, st, 2, (uint32_t)i);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	if ((rc = sqlite3_prepare_v2(c->db, "INSERT INTO channel(id, name, enabled) VALUES (?, ?, 1)",
	                             -1, &st, NULL))) {
		rc = trace_chrome_sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_chan && rc == TSR_OK; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		bind_str(c, st, 2, c->chan_name[i]);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* Threads. */
	if ((rc = sqlite3_prepare_v2(c->db, "INSERT INTO thread(id, tid, name, events) VALUES (?, ?, ?, ?)",
	                             -1, &st, NULL))) {
		rc = trace_chrome_sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_threads && rc == TSR_OK; i++) {
		const cj_thread *t = c->threads[i];
		char *label = thread_label(c, t);

		if (!label) {
			rc = trace_fail(c->tr, TSR_ERR_NO_MEMORY, "%s: out of memory", c->path);
			break;
		}
		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_int64(st, 2, t->tid.str ? 0 : t->tid.v);
		sqlite3_bind_text(st, 3, label, -1, free);
		sqlite3_bind_int64(st, 4, (int64_t)t->emitted);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* Label statistics. */
	if ((rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO label_stats(channel, name, count, total_ns, self_ns, "
	                             "min_ns, max_ns) VALUES (?, ?, ?, ?, ?, ?, ?)",
	                             -1, &st, NULL))) {
		rc = trace_chrome_sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->stat_map.cap && rc == TSR_OK; i++) {
		const cj_slot *s = &c->stat_map.slots[i];
		const cj_stat *x;

		if (!s->idx)
			continue;
		x = &c->stats[s->idx - 1];
		sqlite3_bind_int64(st, 1, s->a);
		sqlite3_bind_int64(st, 2, s->b);
		sqlite3_bind_int64(st, 3, (int64_t)x->count);
		sqlite3_bind_int64(st, 4, x->total > INT64_MAX ? INT64_MAX : (int64_t)x->total);
		sqlite3_bind_int64(st, 5, x->self > INT64_MAX ? INT64_MAX : (int64_t)x->self);
		sqlite3_bind_int64(st, 6, (int64_t)x->min);
		sqlite3_bind_int64(st, 7, (int64_t)x->max);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* The process: the first pid's, named after it or the file. */
	if (c->n_procs) {
		pid = c->procs[0].pid.str ? 0 : c->procs[0].pid.v;
		pname = c->procs[0].name;
	}
	if ((rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO process(pid, host, name, command_line, start_wall_ns, "
	                             "start_mono_ns, clock, ticks_per_s) "
	                             "VALUES (?, 'unknown', ?, NULL, ?, 0, 'monotonic', NULL)",
	                             -1, &st, NULL))) {
		rc = trace_chrome_sql_fail(c, rc);
		goto cleanup;
	}
	{
		/* Wall time of the earliest event: the export's origin plus it;
		 * else the times themselves when they read as microseconds since
		 * 1970 within 2000 .. 2100 (PyTorch's); else 0. */
		int64_t wall = 0;

		if (c->have_origin && c->origin_wall_ns <= INT64_MAX - (c->base_ns > 0 ? c->base_ns : 0))
			wall = c->origin_wall_ns + c->base_ns;
		else if (c->min_ns >= 946684800ll * 1000000000ll && c->min_ns < 4102444800ll * 1000000000ll)
			wall = c->min_ns;
		if (wall < 0)
			wall = 0;
		sqlite3_bind_int64(st, 1, pid);
		if (pname != NONE)
			bind_str(c, st, 2, pname);
		else
			sqlite3_bind_text(st, 2, base ? base + 1 : c->path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, wall);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* What the import met. */
	{
		char *skipped = skipped_json(c);
		char sql[1024];

		snprintf(sql, sizeof(sql),
		         "INSERT INTO trace_metadata(key, value) VALUES ('pvti.complete', 'true'), "
		         "('chrome.form', '\"%s\"'), ('chrome.events', '%" PRIu64 "'), "
		         "('pvti.unbalanced_ends', '%" PRIu64 "'), ('pvti.unclosed_begins', '%" PRIu64 "'), "
		         "('pvti.too_deep', '%" PRIu64 "'), ('chrome.bad_times', '%" PRIu64 "'), "
		         "('chrome.args_dropped', '%" PRIu64 "')",
		         c->object_form ? "object" : "array", c->events, c->unbalanced_ends,
		         c->unclosed_begins, c->too_deep, c->bad_times, c->args_dropped);
		rc = trace_chrome_exec(c, sql);
		if (rc == TSR_OK && skipped && strlen(skipped) > 2) {
			if ((rc = sqlite3_prepare_v2(c->db,
			                             "INSERT INTO trace_metadata(key, value) "
			                             "VALUES ('chrome.skipped_phases', ?)",
			                             -1, &st, NULL)) == SQLITE_OK) {
				sqlite3_bind_text(st, 1, skipped, -1, SQLITE_STATIC);
				rc = step_done(c, st);
			} else {
				rc = trace_chrome_sql_fail(c, rc);
			}
		}
		free(skipped);
	}
cleanup:
	sqlite3_finalize(st);
	sqlite3_finalize(w.ins_chunk);
	sqlite3_finalize(w.ins_meta);
	sqlite3_finalize(w.ins_inst);
	tsf_chunk_enc_clear(&w.enc);
	return rc;
}
