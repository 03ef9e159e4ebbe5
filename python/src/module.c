/*
 * The module tilescope._native: Error, open() and compare(); the Report
 * type is in report.c.
 */
#include "native.h"

PyObject *tspy_error;

/* Raises Error with reportlib's message (what the CLI prints). */
PyObject *tspy_raise(const char *message)
{
	PyErr_SetString(tspy_error, message && *message ? message : "reportlib failed");
	return NULL;
}

/* open(path): a Report over the profile.pop (or autoReport directory) at
 * `path`, opened without the GIL. */
static PyObject *tspy_open(PyObject *self, PyObject *args)
{
	PyObject *path_obj;
	if (!PyArg_ParseTuple(args, "O&:open", PyUnicode_FSConverter, &path_obj))
		return NULL;
	tsr_report *report = NULL;
	char message[512] = "";
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = tsr_report_open(&report, PyBytes_AS_STRING(path_obj), NULL);
	if (rc != TSR_OK)
		snprintf(message, sizeof(message), "%s", tsr_last_error());
	Py_END_ALLOW_THREADS
	Py_DECREF(path_obj);
	if (rc != TSR_OK)
		return tspy_raise(message);
	tspy_report *r = PyObject_New(tspy_report, &tspy_report_type);
	if (!r || !(r->lock = PyThread_allocate_lock())) {
		tsr_report_free(report);
		Py_XDECREF(r);
		return r ? PyErr_NoMemory() : NULL;
	}
	r->report = report;
	r->always_live = r->categories = NULL;
	return (PyObject *)r;
}

/* The limits of compare(): (option, value or None) pairs as `tilescope
 * diff`'s options name them; ValueError with reportlib's message (what
 * the command prints) on a bad one. NULL with the error set. */
static tsr_compare_limits *parse_limits(PyObject *pairs)
{
	tsr_compare_limits *limits = NULL;
	PyObject *seq = PySequence_Fast(pairs, "compare: limits must be a sequence");
	if (!seq)
		return NULL;
	if (tsr_compare_limits_new(&limits) != TSR_OK) {
		Py_DECREF(seq);
		return (tsr_compare_limits *)PyErr_NoMemory();
	}
	for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
		const char *option, *value;
		if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "sz:compare limit", &option,
		                      &value))
			goto fail;
		if (tsr_compare_limits_set_option(limits, option, value) != TSR_OK) {
			PyErr_SetString(PyExc_ValueError, tsr_compare_limits_get_error(limits));
			goto fail;
		}
	}
	Py_DECREF(seq);
	return limits;
fail:
	Py_DECREF(seq);
	tsr_compare_limits_free(limits);
	return NULL;
}

/* The checks of `limits` against `cmp` as (option, metric, threshold, base,
 * new, in_base, in_new, passed) tuples; ValueError when a limit cannot be
 * checked (its metric is in neither report ...), as the command refuses. */
static PyObject *list_checks(tsr_compare_limits *limits, const tsr_comparison *cmp)
{
	tsr_limit_check *checks = NULL;
	size_t n = 0;
	if (tsr_compare_limits_list_checks(&checks, &n, limits, cmp) != TSR_OK) {
		PyErr_SetString(PyExc_ValueError, tsr_compare_limits_get_error(limits));
		return NULL;
	}
	PyObject *out = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; out && i < n; i++) {
		const tsr_limit_check *k = &checks[i];
		PyObject *t = Py_BuildValue("(sssKKNNN)", k->limit->option, k->limit->metric,
		                            k->limit->threshold, (unsigned long long)k->base,
		                            (unsigned long long)k->new_value, PyBool_FromLong(k->in_base),
		                            PyBool_FromLong(k->in_new), PyBool_FromLong(k->passed));
		if (!t)
			Py_CLEAR(out);
		else
			PyList_SET_ITEM(out, (Py_ssize_t)i, t);
	}
	free(checks);
	return out;
}

/* compare(base, new, base_run, new_run, program, limits): tsr_compare_programs'
 * deltas as (metric, unit, in_base, in_new, base, new, change, percent,
 * verdict) tuples, the compared programs as (base name, new name,
 * base runs, new runs) tuples and the limits' checks (list_checks); runs
 * as tsr_compare_options has them (-2: averaged per program), `program`
 * None for every program, `limits` as parse_limits takes them (checked
 * before the reports are compared). Both locks are held (one when base is
 * new), without the GIL. */
static PyObject *tspy_compare(PyObject *self, PyObject *args)
{
	static const char *const units[] = {"bytes", "cycles", "tiles", "count", "flops"};
	tspy_report *a, *b;
	PyObject *pairs;
	tsr_compare_options opts = TSR_COMPARE_OPTIONS_INIT;
	if (!PyArg_ParseTuple(args, "O!O!LLzO:compare", &tspy_report_type, &a, &tspy_report_type,
	                      &b, &opts.base_run, &opts.new_run, &opts.program, &pairs))
		return NULL;
	tsr_compare_limits *limits = parse_limits(pairs);
	if (!limits)
		return NULL;
	if (tspy_lock(a)) {
		tsr_compare_limits_free(limits);
		return NULL;
	}
	if (b != a && tspy_lock(b)) {
		tspy_unlock(a);
		tsr_compare_limits_free(limits);
		return NULL;
	}
	tsr_comparison *cmp = NULL;
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = tsr_compare_programs(&cmp, a->report, b->report, &opts);
	Py_END_ALLOW_THREADS
	PyObject *out = NULL;
	if (rc != TSR_OK) {
		const char *msg = tsr_report_error(a->report);
		tspy_raise(*msg ? msg : tsr_report_error(b->report));
		goto done;
	}
	size_t n = tsr_comparison_get_count(cmp);
	if (!(out = PyList_New((Py_ssize_t)n)))
		goto done;
	for (size_t i = 0; i < n; i++) {
		const tsr_delta *d = tsr_comparison_get_delta(cmp, i);
		PyObject *t = Py_BuildValue("(ssOOKKLds)", d->metric,
		                            d->unit < 5 ? units[d->unit] : "", d->in_base ? Py_True : Py_False,
		                            d->in_new ? Py_True : Py_False, (unsigned long long)d->base,
		                            (unsigned long long)d->new_value, (long long)d->change,
		                            d->percent, tsr_verdict_get_name(d->verdict));
		if (!t) {
			Py_CLEAR(out);
			goto done;
		}
		PyList_SET_ITEM(out, (Py_ssize_t)i, t);
	}
	PyObject *progs = PyList_New(0);
	for (size_t i = 0; progs && i < tsr_comparison_get_program_count(cmp); i++) {
		const tsr_compared_program *p = tsr_comparison_get_program(cmp, i);
		PyObject *t = Py_BuildValue("(zznn)", p->base_name, p->new_name, p->base_runs,
		                            p->new_runs);
		if (!t || PyList_Append(progs, t) < 0)
			Py_CLEAR(progs);
		Py_XDECREF(t);
	}
	PyObject *checks = progs ? list_checks(limits, cmp) : NULL;
	Py_SETREF(out, checks ? Py_BuildValue("(ONN)", out, progs, checks) : NULL);
	if (!checks)
		Py_XDECREF(progs);
done:
	tsr_compare_limits_free(limits);
	tsr_comparison_free(cmp);
	if (b != a)
		tspy_unlock(b);
	tspy_unlock(a);
	return out;
}

/* Word `i` of list `k` of vocabulary(). */
static const char *word(int k, int i)
{
	switch (k) {
	case 0: return tsr_program_type_name((tsr_program_type)i);
	case 1: return tsr_category_name((tsr_mem_category)i);
	case 2: return tsr_region_name((tsr_region)i);
	default: return tsr_step_type_name((tsr_step_type)i);
	}
}

/* vocabulary() -> the format's words, each list in its enum's order:
 * {"programTypes", "categories", "regions", "stepTypes"}. */
static PyObject *tspy_vocabulary(PyObject *self, PyObject *unused)
{
	const char *const key[4] = {"programTypes", "categories", "regions", "stepTypes"};
	const int count[4] = {TSR_PROGRAM_TYPE_COUNT, TSR_MEM_CATEGORY_COUNT, TSR_REGION_COUNT,
	                      TSR_STEP_TYPE_COUNT};
	PyObject *d = PyDict_New();
	for (int k = 0; d && k < 4; k++) {
		PyObject *l = PyList_New(0), *s = NULL;
		for (int i = 0; l && i < count[k]; i++) {
			if (!(s = PyUnicode_FromString(word(k, i))) || PyList_Append(l, s) < 0)
				Py_CLEAR(l);
			Py_XDECREF(s);
		}
		if (!l || PyDict_SetItemString(d, key[k], l) < 0)
			Py_CLEAR(d);
		Py_XDECREF(l);
	}
	return d;
}

static PyMethodDef tspy_methods[] = {
	{"vocabulary", tspy_vocabulary, METH_NOARGS, "vocabulary() -> the format's words"},
	{"open", tspy_open, METH_VARARGS, "open(path) -> Report: opens a profile.pop"},
	{"compare", tspy_compare, METH_VARARGS,
	 "compare(base, new, base_run, new_run, program, limits) -> (deltas, programs, checks)"},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef tspy_module = {
	PyModuleDef_HEAD_INIT, "tilescope._native",
	"Tilescope reports through reportlib (see the tilescope package).", -1, tspy_methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void);
PyMODINIT_FUNC PyInit__native(void)
{
	PyObject *m = PyModule_Create(&tspy_module);
	if (!m || PyType_Ready(&tspy_report_type) < 0)
		goto fail;
	tspy_error = PyErr_NewExceptionWithDoc("tilescope.Error",
	                                       "A report could not be read: reportlib's message.",
	                                       PyExc_RuntimeError, NULL);
	if (PyModule_AddObjectRef(m, "Error", tspy_error) < 0 ||
	    PyModule_AddObjectRef(m, "Report", (PyObject *)&tspy_report_type) < 0)
		goto fail;
	return m;
fail:
	Py_XDECREF(m);
	return NULL;
}
