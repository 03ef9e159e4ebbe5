/*
 * Progress and cancelling (report.h's tsr_progress_cb), shared by report
 * and trace handles: the state a handle keeps for the caller's callback,
 * the mapping of each part of a long call onto [0, 1], and how often the
 * callback is called.
 *
 * A call that reports progress opens a frame (tsr_progress_push) and
 * names its parts (tsr_progress_step: "this part covers [lo, hi) of my
 * work"); its loops say how far through the part they are
 * (tsr_progress_row), and the SQLite progress handler of a busy statement
 * asks whether to stop (tsr_progress_poll). A call made from inside
 * another's part (a lazy load inside tsr_compare) opens a frame of its
 * own, which maps its [0, 1] onto that part, so the fractions the caller
 * sees never go back. Only the outermost frame starts at 0, ends at 1 and
 * clears a previous cancel.
 *
 * Rate. The callback is called at every part boundary, and in between at
 * most every PROGRESS_PERIOD_NS (rows and SQLite steps only read the
 * clock, every ROW_PERIOD rows or 20,000 virtual-machine steps). That
 * keeps a desktop progress bar smooth without making the callback a cost,
 * and bounds the time between the callback asking to stop and the call
 * returning to a few milliseconds plus the period.
 *
 * Cancel. The SQLite progress handler of every connection reportlib opens
 * polls here, so a cancel reaches every statement that runs long, from
 * any call that reports progress; when the callback asks to stop, the
 * handle's hook (tsr_progress_state.interrupt) also calls
 * sqlite3_interrupt on its connections. No single step runs long: the
 * schema check refuses files whose reads would run their own code, and
 * the functions whose cost is not linear are bounded (sql-functions.c).
 */
#include "report-private.h"

#include <time.h>

/* Least time between two calls of the callback inside one part. */
#define PROGRESS_PERIOD_NS ((uint64_t)10 * 1000 * 1000)

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Calls the callback with `fraction` (an absolute fraction of the
 * outermost call, clamped so that it never goes back and stays in [0, 1])
 * and remembers a request to stop. Returns true when the call must stop.
 */
static bool report(tsr_progress_state *ps, double fraction)
{
	if (ps->cancelled)
		return true;
	if (!ps->cb)
		return false;
	if (!(fraction >= ps->last)) /* NaN too */
		fraction = ps->last;
	if (fraction > 1.0)
		fraction = 1.0;
	ps->last = fraction;
	ps->last_ns = now_ns();
	if (ps->cb(fraction, ps->message ? ps->message : "", ps->data) != 0) {
		ps->cancelled = true;
		/* Any statement of the handle still running stops at its next
		 * virtual-machine step, not only the one whose progress handler
		 * asked: a row loop that saw the cancel may sit inside another
		 * statement's row. */
		if (ps->interrupt)
			ps->interrupt(ps->interrupt_data);
	}
	return ps->cancelled;
}

/*
 * Opens a frame for a call that reports progress (see the top of this
 * file). `saved` keeps what tsr_progress_pop restores. Outermost: clears
 * a previous cancel and reports 0 with `message`.
 */
bool tsr_progress_push(tsr_progress_state *ps, tsr_progress_frame *saved, const char *message)
{
	saved->base = ps->base;
	saved->scale = ps->scale;
	saved->lo = ps->lo;
	saved->hi = ps->hi;
	saved->message = ps->message;
	if (ps->depth++ == 0) {
		ps->cancelled = false;
		ps->last = 0.0;
		ps->base = 0.0;
		ps->scale = 1.0;
	} else {
		ps->base = ps->lo;
		ps->scale = ps->hi - ps->lo;
	}
	ps->lo = ps->base;
	ps->hi = ps->base + ps->scale;
	ps->message = message;
	return report(ps, ps->lo);
}

/* The current frame's part [lo, hi) (fractions of the frame) begins,
 * doing `message` (a static string). Returns true to stop. */
bool tsr_progress_step(tsr_progress_state *ps, double lo, double hi, const char *message)
{
	if (!ps->depth)
		return false;
	ps->lo = ps->base + ps->scale * lo;
	ps->hi = ps->base + ps->scale * hi;
	ps->message = message;
	return report(ps, ps->lo);
}

/* The same for a loop over many parts (threads ...): the part begins, but
 * the callback hears of it only when the period has passed. */
bool tsr_progress_part(tsr_progress_state *ps, double lo, double hi, const char *message)
{
	if (!ps->depth)
		return ps->cancelled;
	ps->lo = ps->base + ps->scale * lo;
	ps->hi = ps->base + ps->scale * hi;
	ps->message = message;
	return tsr_progress_at(ps, 0.0);
}

/* Row `i` of `n` of the current part: calls the callback when the period
 * has passed. Returns true to stop. */
bool tsr_progress_row_slow(tsr_progress_state *ps, size_t i, size_t n)
{
	if (ps->cancelled)
		return true;
	if (!ps->cb || !ps->depth || now_ns() - ps->last_ns < PROGRESS_PERIOD_NS)
		return false;
	return report(ps, ps->lo + (ps->hi - ps->lo) * (n ? (double)i / (double)n : 0.0));
}

/* `within` of the current part, at the same rate. Returns true to stop. */
bool tsr_progress_at(tsr_progress_state *ps, double within)
{
	if (ps->cancelled)
		return true;
	if (!ps->cb || !ps->depth || now_ns() - ps->last_ns < PROGRESS_PERIOD_NS)
		return false;
	return report(ps, ps->lo + (ps->hi - ps->lo) * within);
}

/* From the SQLite progress handler: the same fraction again when the
 * period has passed (a statement still working). Returns true to stop. */
bool tsr_progress_poll(tsr_progress_state *ps)
{
	if (ps->cancelled)
		return true;
	if (!ps->cb || !ps->depth || now_ns() - ps->last_ns < PROGRESS_PERIOD_NS)
		return false;
	return report(ps, ps->last);
}

/*
 * Closes the frame opened with tsr_progress_push. When the outermost one
 * closes after success (`ok`), the callback gets 1 (its return value no
 * longer matters: the work is done). A cancel ends with the outermost
 * call: the handle's next calls run.
 */
void tsr_progress_pop(tsr_progress_state *ps, const tsr_progress_frame *saved, bool ok)
{
	if (!ps->depth)
		return;
	if (--ps->depth == 0) {
		if (ok && !ps->cancelled && ps->cb) {
			ps->message = "done";
			report(ps, 1.0);
		}
		ps->cancelled = false;
	}
	ps->base = saved->base;
	ps->scale = saved->scale;
	ps->lo = saved->lo;
	ps->hi = saved->hi;
	ps->message = saved->message;
}

/* Sets the callback of a handle's state (NULL: none). */
void tsr_progress_set(tsr_progress_state *ps, tsr_progress_cb cb, void *data)
{
	ps->cb = cb;
	ps->data = data;
}
