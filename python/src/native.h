/*
 * tilescope._native: the C half of the Python module (issue 30), over
 * reportlib's public API only. It hands reportlib's figures to
 * python/tilescope/pva.py as plain tuples, dicts and ints, one item at a
 * time, so that the Python objects stay lazy and compute nothing.
 */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <tilescope/compare.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>

/* A report handle. reportlib handles serve one thread at a time, and the
 * long calls run without the GIL, so every call into `report` holds
 * `lock` (see tspy_lock). */
typedef struct tspy_report {
	PyObject_HEAD
	tsr_report *report;      /* NULL once closed */
	PyThread_type_lock lock;
	uint64_t *always_live;   /* bytes by tile (num_tiles), read on first use */
	uint64_t *categories;    /* each category's bytes by tile (categories x num_tiles),
	                            read on first use */
} tspy_report;

extern PyTypeObject tspy_report_type;
/* _native.Error, a RuntimeError carrying reportlib's one-line message. */
extern PyObject *tspy_error;

/* Takes `lock`, waiting without the GIL when another thread has it (so
 * that thread, which may need the GIL to finish, can): the one way
 * _native's reports and _trace's traces take their handle's lock. */
static inline void tspy_acquire(PyThread_type_lock lock)
{
	if (!PyThread_acquire_lock(lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
}

/* Takes the report's lock (tspy_acquire); -1 with Error set for a
 * closed report. */
int tspy_lock(tspy_report *r);
void tspy_unlock(tspy_report *r);
/* Raises Error with `message` (reportlib's) and returns NULL. */
PyObject *tspy_raise(const char *message);
