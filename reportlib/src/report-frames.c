/*
 * The call stack of every execution step (tsr_report_get_frames): the
 * flame view of a run. program_trace keeps only the lowered leaves that
 * ran, so the nesting is rebuilt by walking the run's control program
 * against the trace, as the engine ran it:
 *
 *   Sequence           its children in order;
 *   Repeat             its children repeat_count times;
 *   If, IfElse,
 *   Switch             the branch whose first leaves hold the next trace
 *                      entry (none when none does and one may run nothing);
 *   RepeatWhileTrue/
 *   RepeatWhileFalse   the condition and the predicate (the children up to
 *                      and including the SetLocalConsensusFromVar + Sync
 *                      pair), then body, condition and predicate again while
 *                      the next entry starts them;
 *   Call               the function's body (function_program);
 *   any other program  a leaf: it must be the next trace entry, except
 *                      WriteUndef, which the engine does not trace.
 *
 * "First leaves" (the leaves a program's part of the trace can start
 * with, and whether it can be empty) are computed once per program and
 * kept for the walk; choices never look further ahead than one entry, as
 * the lowered programs of one engine never need more.
 *
 * Steps are matched to trace entries in order: an entry's steps carry its
 * program, at most one Sync step first (the one the simulator inserts
 * before an exchange) and then at most one other step; a Sync leaf is one
 * step. A step left over, or a trace the control program cannot produce,
 * is TSR_ERR_CORRUPT naming the run and the entry.
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper call stacks are refused (the engine stops at 1,000). */
#define MAX_DEPTH 1000

typedef enum kind {
	K_LEAF = 0,
	K_UNTRACED, /* WriteUndef: a leaf the trace never names */
	K_SEQUENCE,
	K_REPEAT,
	K_CHOICE,   /* If, IfElse, Switch */
	K_WHILE,    /* RepeatWhileTrue / RepeatWhileFalse */
	K_CALL,
} kind;

/* A program's first leaves: first[off .. off + n), sorted, and whether its
 * part of the trace may be empty. */
typedef struct first_set {
	size_t off, n;
	bool nullable;
	uint8_t state; /* 0: not computed, 1: being computed, 2: done */
} first_set;

typedef struct walk {
	tsr_report *r;
	size_t run;
	const tsr_program *progs;
	size_t n_progs;
	const uint32_t *functions;
	size_t n_functions;
	const uint32_t *trace;
	size_t n_trace;
	const tsr_step *steps;
	size_t n_steps;
	size_t *entry_step; /* n_trace + 1: the first step of each entry */
	uint64_t *max_to;   /* n_steps: the largest cycles_to of steps[0..i] */
	kind *kinds;        /* n_progs */
	first_set *sets;    /* n_progs */
	uint32_t *pool;     /* first leaves of all programs */
	size_t n_pool, cap_pool;
	tsr_frame *frames;
	size_t n_frames, cap_frames;
	size_t pos;         /* the next trace entry */
} walk;

static kind kind_of(tsr_program_type type)
{
	switch (type) {
	case TSR_PROGRAM_SEQUENCE:
		return K_SEQUENCE;
	case TSR_PROGRAM_REPEAT:
		return K_REPEAT;
	case TSR_PROGRAM_IF:
	case TSR_PROGRAM_IF_ELSE:
	case TSR_PROGRAM_SWITCH:
		return K_CHOICE;
	case TSR_PROGRAM_REPEAT_WHILE_TRUE:
	case TSR_PROGRAM_REPEAT_WHILE_FALSE:
		return K_WHILE;
	case TSR_PROGRAM_CALL:
		return K_CALL;
	case TSR_PROGRAM_WRITE_UNDEF:
		return K_UNTRACED;
	default:
		return K_LEAF;
	}
}

/* A program's tag for a message ("?" for none). */
static const char *tag(const tsr_program *p)
{
	const char *name = tsr_program_type_name(p->program_type);

	return name ? name : "?";
}

static int fail(walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* TSR_ERR_CORRUPT: "'path': run N: <what>". */
static int fail(walk *w, const char *fmt, ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tsr_fail(w->r, TSR_ERR_CORRUPT, "'%s': run %zu: %s", w->r->path, w->run, what);
}

/* --- First leaves ------------------------------------------------------------------ */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Appends `n` ids to the pool (growing it). */
static int pool_add(walk *w, const uint32_t *ids, size_t n)
{
	if (w->n_pool + n > w->cap_pool) {
		size_t cap = w->cap_pool ? w->cap_pool : 256;
		uint32_t *p;

		while (cap < w->n_pool + n)
			cap *= 2;
		if (cap > ((size_t)1 << 28))
			return tsr_fail(w->r, TSR_ERR_TOO_LARGE,
			                "'%s': run %zu: the programs' branches are too many to follow",
			                w->r->path, w->run);
		p = tsb_realloc(w->pool, cap * sizeof(*p));
		if (!p)
			return tsr_fail(w->r, TSR_ERR_NO_MEMORY, "out of memory following run %zu", w->run);
		w->pool = p;
		w->cap_pool = cap;
	}
	if (n)
		memmove(w->pool + w->n_pool, ids, n * sizeof(*ids));
	w->n_pool += n;
	return TSR_OK;
}

static int first_of(walk *w, uint32_t p, unsigned depth);

/* The first leaves of children[from .. to) run in order, appended to the
 * pool (unsorted) when `copy`; *nullable when all may be empty. Called
 * first without `copy` so that the children's own sets are all in the
 * pool before the parent's part of it starts (a child computed while the
 * parent's part is open would be sorted into it and lost). */
static int first_of_seq(walk *w, const uint32_t *children, size_t from, size_t to,
                        bool *nullable, unsigned depth, bool copy)
{
	int rc;

	*nullable = true;
	for (size_t i = from; i < to && *nullable; i++) {
		const first_set *s;

		if ((rc = first_of(w, children[i], depth + 1)))
			return rc;
		s = &w->sets[children[i]];
		for (size_t j = 0; copy && j < s->n; j++) {
			uint32_t id = w->pool[s->off + j];

			if ((rc = pool_add(w, &id, 1)))
				return rc;
			s = &w->sets[children[i]];
		}
		*nullable = s->nullable;
	}
	return TSR_OK;
}

/* Where the predicate of RepeatWhile `p` ends: the index after its
 * SetLocalConsensusFromVar + Sync pair, the last such pair not followed by
 * an If (a body that is an If lowers to the same pair before it). */
static size_t while_split(walk *w, const tsr_program *p)
{
	size_t split = 0;

	for (size_t i = 0; i + 1 < p->n_children; i++) {
		const tsr_program *a = &w->progs[p->children[i]], *b = &w->progs[p->children[i + 1]];
		const tsr_program *c = i + 2 < p->n_children ? &w->progs[p->children[i + 2]] : NULL;

		if (a->program_type == TSR_PROGRAM_SET_LOCAL_CONSENSUS &&
		    b->program_type == TSR_PROGRAM_SYNC &&
		    !(c && (c->program_type == TSR_PROGRAM_IF || c->program_type == TSR_PROGRAM_IF_ELSE)))
			split = i + 2;
	}
	return split;
}

/* Computes w->sets[p] (once). */
static int first_of(walk *w, uint32_t p, unsigned depth)
{
	first_set *s;
	const tsr_program *pr;
	size_t start = w->n_pool;
	bool nullable = true;
	int rc = TSR_OK;

	if (p >= w->n_progs)
		return fail(w, "a program names child %u of %zu programs", p, w->n_progs);
	s = &w->sets[p];
	if (s->state == 2)
		return TSR_OK;
	if (s->state == 1 || depth > MAX_DEPTH)
		return fail(w, "program %u contains itself", p);
	s->state = 1;
	pr = &w->progs[p];
	/* Twice: the children's sets first, then this one's part of the
	 * pool, from `start` (see first_of_seq). */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		bool copy = pass == 1;

		start = w->n_pool;
		nullable = true;
		switch (w->kinds[p]) {
		case K_LEAF:
			if (copy)
				rc = pool_add(w, &p, 1);
			nullable = false;
			break;
		case K_UNTRACED:
			break;
		case K_SEQUENCE:
			rc = first_of_seq(w, pr->children, 0, pr->n_children, &nullable, depth, copy);
			break;
		case K_REPEAT:
			if (pr->repeat_count)
				rc = first_of_seq(w, pr->children, 0, pr->n_children, &nullable, depth, copy);
			break;
		case K_CHOICE:
			for (size_t i = 0; !rc && i < pr->n_children; i++) {
				bool n;

				rc = first_of_seq(w, pr->children, i, i + 1, &n, depth, copy);
			}
			/* An If whose predicate fails, or a Switch without a
			 * matching case, runs nothing (the lowered form does not
			 * say which branch is an else). */
			nullable = true;
			break;
		case K_WHILE: {
			size_t split = while_split(w, pr);

			if (!split)
				return fail(w,
				            "program %u (%s) has no predicate (SetLocalConsensusFromVar, Sync)",
				            p, tag(pr));
			rc = first_of_seq(w, pr->children, 0, split, &nullable, depth, copy);
			break;
		}
		case K_CALL:
			if (pr->function < 0 || (size_t)pr->function >= w->n_functions)
				return fail(w, "program %u (Call) calls function %lld of %zu", p,
				            (long long)pr->function, w->n_functions);
			rc = first_of_seq(w, &w->functions[pr->function], 0, 1, &nullable, depth, copy);
			break;
		}
	}
	if (rc)
		return rc;
	/* Sorted and unique, so that membership is a binary search (an
	 * empty set may have no pool at all yet: nothing to sort). */
	if (w->n_pool > start)
		qsort(w->pool + start, w->n_pool - start, sizeof(*w->pool), cmp_u32);
	{
		size_t k = start;

		for (size_t i = start; i < w->n_pool; i++)
			if (k == start || w->pool[k - 1] != w->pool[i])
				w->pool[k++] = w->pool[i];
		w->n_pool = k;
	}
	s = &w->sets[p];
	s->off = start;
	s->n = w->n_pool - start;
	s->nullable = nullable;
	s->state = 2;
	return TSR_OK;
}

/* Whether program p's part of the trace may start with leaf `leaf`. */
static bool starts_with(const walk *w, uint32_t p, uint32_t leaf)
{
	const first_set *s = &w->sets[p];
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t v = w->pool[s->off + mid];

		if (v == leaf)
			return true;
		if (v < leaf)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Whether children[from .. to), in order, may start with the next entry;
 * *nullable when all of them may be empty. */
static bool seq_starts(const walk *w, const uint32_t *children, size_t from, size_t to,
                       bool *nullable)
{
	uint32_t next = w->pos < w->n_trace ? w->trace[w->pos] : UINT32_MAX;

	*nullable = true;
	for (size_t i = from; i < to; i++) {
		if (next != UINT32_MAX && starts_with(w, children[i], next))
			return true;
		if (!w->sets[children[i]].nullable) {
			*nullable = false;
			return false;
		}
	}
	return false;
}

/* --- The walk ------------------------------------------------------------------------ */

static int walk_program(walk *w, uint32_t p, unsigned depth, int64_t parent);

static int walk_seq(walk *w, const uint32_t *children, size_t from, size_t to, unsigned depth,
                    int64_t parent)
{
	int rc = TSR_OK;

	for (size_t i = from; !rc && i < to; i++)
		rc = walk_program(w, children[i], depth, parent);
	return rc;
}

/* Walks program `p` at `depth` under frame `parent`, adding its frame and
 * its descendants' when it covers steps. */
static int walk_program(walk *w, uint32_t p, unsigned depth, int64_t parent)
{
	const tsr_program *pr = &w->progs[p];
	size_t self = w->n_frames, pos0 = w->pos;
	int rc = TSR_OK;

	if (depth > MAX_DEPTH)
		return fail(w, "programs nest more than %d deep at program %u", MAX_DEPTH, p);
	if (tsr_progress_row(w->r->ps, w->pos, w->n_trace + 1))
		return tsr_fail_cancelled(w->r);
	/* The frame goes first (pre-order); it is dropped again if it covers
	 * no step. */
	if (w->n_frames == w->cap_frames) {
		size_t cap = w->cap_frames ? w->cap_frames * 2 : 1024;
		tsr_frame *f;

		/* Frames count against the handle's memory cap (a hostile
		 * nesting repeated many times must not take the host's). */
		if (cap > SIZE_MAX / sizeof(*f) ||
		    cap * sizeof(*f) > (w->r->memory_used < w->r->memory_cap
		                            ? w->r->memory_cap - w->r->memory_used
		                            : 0))
			return tsr_fail(w->r, TSR_ERR_TOO_LARGE,
			                "'%s': run %zu has more frames than the memory cap allows",
			                w->r->path, w->run);
		f = tsb_realloc(w->frames, cap * sizeof(*f));
		if (!f)
			return tsr_fail(w->r, TSR_ERR_NO_MEMORY, "out of memory following run %zu", w->run);
		w->frames = f;
		w->cap_frames = cap;
	}
	w->n_frames++;
	switch (w->kinds[p]) {
	case K_LEAF:
		if (w->pos >= w->n_trace)
			return fail(w, "the trace ends where the control program runs program %u (%s)", p,
			            tag(pr));
		if (w->trace[w->pos] != p)
			return fail(w, "trace entry %zu is program %u, where the control program runs "
			               "program %u (%s)",
			            w->pos, w->trace[w->pos], p, tag(pr));
		w->pos++;
		break;
	case K_UNTRACED:
		break;
	case K_SEQUENCE:
		rc = walk_seq(w, pr->children, 0, pr->n_children, depth + 1, (int64_t)self);
		break;
	case K_REPEAT:
		for (uint64_t it = 0; !rc && it < pr->repeat_count; it++) {
			bool nullable;

			if (!seq_starts(w, pr->children, 0, pr->n_children, &nullable)) {
				if (nullable)
					break; /* every iteration left runs nothing */
				return fail(w, "iteration %llu of program %u (Repeat) does not start with "
				               "trace entry %zu",
				            (unsigned long long)it, p, w->pos);
			}
			rc = walk_seq(w, pr->children, 0, pr->n_children, depth + 1, (int64_t)self);
		}
		break;
	case K_CHOICE: {
		size_t i;
		bool nullable;

		for (i = 0; i < pr->n_children; i++)
			if (seq_starts(w, pr->children, i, i + 1, &nullable))
				break;
		if (i < pr->n_children)
			rc = walk_program(w, pr->children[i], depth + 1, (int64_t)self);
		break;
	}
	case K_WHILE: {
		size_t split = while_split(w, pr);
		bool nullable;

		rc = walk_seq(w, pr->children, 0, split, depth + 1, (int64_t)self);
		/* Each turn ends with the predicate's entries, so it always moves
		 * on and the loop ends with the trace. */
		while (!rc && (seq_starts(w, pr->children, split, pr->n_children, &nullable) ||
		               (nullable && seq_starts(w, pr->children, 0, split, &nullable)))) {
			rc = walk_seq(w, pr->children, split, pr->n_children, depth + 1, (int64_t)self);
			if (!rc)
				rc = walk_seq(w, pr->children, 0, split, depth + 1, (int64_t)self);
		}
		break;
	}
	case K_CALL:
		rc = walk_program(w, w->functions[pr->function], depth + 1, (int64_t)self);
		break;
	}
	if (rc)
		return rc;
	if (w->entry_step[w->pos] == w->entry_step[pos0]) {
		w->n_frames = self; /* no step: no frame, and none below it */
	} else {
		tsr_frame *f = &w->frames[self];

		f->program = p;
		f->depth = depth;
		f->parent = parent;
		f->step_from = w->entry_step[pos0];
		f->step_to = w->entry_step[w->pos];
		f->cycles_from = w->steps[f->step_from].cycles_from;
		f->cycles_to = w->max_to[f->step_to - 1];
	}
	return TSR_OK;
}

/* --- Steps of each trace entry --------------------------------------------------------- */

/* Fills w->entry_step: an entry's steps carry its program, an optional
 * Sync first, then at most one other step (a Sync leaf: one step). */
static int match_steps(walk *w)
{
	size_t k = 0;

	for (size_t i = 0; i < w->n_trace; i++) {
		uint32_t p = w->trace[i];
		bool sync_leaf = w->progs[p].program_type == TSR_PROGRAM_SYNC;

		w->entry_step[i] = k;
		if (k < w->n_steps && w->steps[k].program == p && w->steps[k].type == TSR_STEP_SYNC) {
			k++;
			if (sync_leaf)
				continue;
		}
		if (k < w->n_steps && w->steps[k].program == p && w->steps[k].type != TSR_STEP_SYNC &&
		    !sync_leaf)
			k++;
	}
	w->entry_step[w->n_trace] = k;
	if (k != w->n_steps)
		return fail(w, "step %zu (program %u) belongs to no trace entry", k, w->steps[k].program);
	for (size_t i = 0; i < w->n_steps; i++)
		w->max_to[i] = i && w->max_to[i - 1] > w->steps[i].cycles_to ? w->max_to[i - 1]
		                                                                : w->steps[i].cycles_to;
	return TSR_OK;
}

static int build(walk *w, tsr_frame **out, size_t *n_out)
{
	const uint32_t *controls;
	size_t n_controls;
	uint32_t root;
	int rc;

	if ((rc = tsr_report_get_programs(&w->progs, &w->n_progs, w->r)) ||
	    (rc = tsr_report_get_control_programs(&controls, &n_controls, w->r)) ||
	    (rc = tsr_report_get_function_programs(&w->functions, &w->n_functions, w->r)) ||
	    (rc = tsr_report_get_steps(&w->steps, &w->n_steps, w->r, w->run)) ||
	    (rc = tsr_report_get_program_trace(&w->trace, &w->n_trace, w->r, w->run)))
		return rc;
	if (w->r->runs[w->run].program >= n_controls)
		return fail(w, "it ran control program %u of %zu", w->r->runs[w->run].program,
		            n_controls);
	root = controls[w->r->runs[w->run].program];
	if (root >= w->n_progs)
		return fail(w, "its control program is program %u of %zu", root, w->n_progs);
	for (size_t i = 0; i < w->n_functions; i++)
		if (w->functions[i] >= w->n_progs)
			return fail(w, "function %zu is program %u of %zu", i, w->functions[i], w->n_progs);
	w->entry_step = tsb_calloc(w->n_trace + 1, sizeof(*w->entry_step));
	w->max_to = tsb_calloc(w->n_steps + 1, sizeof(*w->max_to));
	w->kinds = tsb_calloc(w->n_progs + 1, sizeof(*w->kinds));
	w->sets = tsb_calloc(w->n_progs + 1, sizeof(*w->sets));
	if (!w->entry_step || !w->max_to || !w->kinds || !w->sets)
		return tsr_fail(w->r, TSR_ERR_NO_MEMORY, "out of memory following run %zu", w->run);
	if ((rc = match_steps(w)))
		return rc;
	for (size_t i = 0; i < w->n_progs; i++) {
		w->kinds[i] = kind_of(w->progs[i].program_type);
		for (size_t j = 0; j < w->progs[i].n_children; j++)
			if (w->progs[i].children[j] >= w->n_progs)
				return fail(w, "program %zu has child %u of %zu programs", i,
				            w->progs[i].children[j], w->n_progs);
	}
	/* First leaves of the programs this run can reach (another control
	 * program's damage is not this run's). */
	{
		uint32_t *stack = tsb_calloc(w->n_progs + 1, sizeof(*stack));
		bool *seen = tsb_calloc(w->n_progs + 1, sizeof(*seen));
		size_t top = 0;

		if (!stack || !seen) {
			free(stack);
			free(seen);
			return tsr_fail(w->r, TSR_ERR_NO_MEMORY, "out of memory following run %zu", w->run);
		}
		stack[top++] = root;
		seen[root] = true;
		while (!rc && top) {
			const tsr_program *pr = &w->progs[stack[--top]];

			if ((rc = first_of(w, (uint32_t)(pr - w->progs), 0)))
				break;
			for (size_t j = 0; j <= pr->n_children; j++) {
				int64_t c = j < pr->n_children ? (int64_t)pr->children[j]
				            : w->kinds[pr - w->progs] == K_CALL ? (int64_t)w->functions[pr->function]
				                                                : -1;

				if (c >= 0 && !seen[c]) {
					seen[c] = true;
					stack[top++] = (uint32_t)c;
				}
			}
		}
		free(stack);
		free(seen);
		if (rc)
			return rc;
	}
	if ((rc = walk_program(w, root, 0, -1)))
		return rc;
	if (w->pos != w->n_trace)
		return fail(w, "the control program ends before trace entry %zu of %zu (program %u)",
		            w->pos, w->n_trace, w->trace[w->pos]);
	*out = tsr_alloc(w->r, w->n_frames ? w->n_frames : 1, sizeof(**out));
	if (!*out)
		return tsr_last_error_code();
	if (w->n_frames)
		memcpy(*out, w->frames, w->n_frames * sizeof(**out));
	*n_out = w->n_frames;
	return TSR_OK;
}

int tsr_report_get_frames(const tsr_frame **out, size_t *n, tsr_report *report, size_t run)
{
	tsr_progress_frame saved;
	walk w;
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!report || !out || !n)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_get_frames: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	if (report->counts.runs == 0 || !report->runs)
		return tsr_fail(report, TSR_ERR_NO_DATA, "tsr_report_get_frames: '%s' holds no runs",
		                report->path);
	if (run >= report->counts.runs)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "tsr_report_get_frames: run %zu of %zu",
		                run, report->counts.runs);
	if (!report->frames) {
		report->frames = tsb_calloc(report->counts.runs, sizeof(*report->frames));
		report->n_frames = tsb_calloc(report->counts.runs, sizeof(*report->n_frames));
		if (!report->frames || !report->n_frames) {
			free(report->frames);
			free(report->n_frames);
			report->frames = NULL;
			report->n_frames = NULL;
			return tsr_fail(report, TSR_ERR_NO_MEMORY, "out of memory for frames");
		}
	}
	if (report->frames[run]) {
		*out = report->frames[run];
		*n = report->n_frames[run];
		return TSR_OK;
	}
	memset(&w, 0, sizeof(w));
	w.r = report;
	w.run = run;
	if (tsr_progress_push(report->ps, &saved, "following the program trace"))
		rc = tsr_fail_cancelled(report);
	else
		rc = build(&w, &report->frames[run], &report->n_frames[run]);
	tsr_progress_pop(report->ps, &saved, !rc);
	free(w.entry_step);
	free(w.max_to);
	free(w.kinds);
	free(w.sets);
	free(w.pool);
	free(w.frames);
	if (rc)
		return rc;
	*out = report->frames[run];
	*n = report->n_frames[run];
	return TSR_OK;
}
