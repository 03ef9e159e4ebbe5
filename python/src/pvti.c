/*
 * tilescope.pvti: tracing from Python, with the names of libpvti's Python
 * module (createTraceChannel, Tracepoint, Graph ...), over the C tracer
 * libtilescope-pvti (pvti/include/tilescope/pvti.h). Its own extension
 * module linking only that library, as a C program that traces links
 * it: importing it reads PVTI_OPTIONS once (the library's constructor),
 * and a process that also runs a model through libtilescope-instrument
 * shares the one tracer and writes one .pvti.
 *
 * Cost. A Tracepoint is a small object made by vectorcall; while nothing
 * is recorded, entering and leaving it test the library's flag and touch
 * nothing else. Names are encoded (UTF-8, cached by the str) only when a
 * span is recorded.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <tilescope/pvti.h>

#include <stdlib.h>

/* Raises the library's last error for `rc`: a bad argument is a
 * ValueError, anything else a RuntimeError. Returns NULL. */
static PyObject *pvti_fail(int rc)
{
	PyErr_SetString(rc == TSI_ERR_INVALID_ARGUMENT ? PyExc_ValueError : PyExc_RuntimeError,
	                tsi_error_last());
	return NULL;
}

/* --- Channels ------------------------------------------------------------ */

/* A channel of the tracer (which owns it for the process's life). */
typedef struct {
	PyObject_HEAD
	pvti_channel *ch;
} channel_obj;

static PyTypeObject channel_type;

/* A new TraceChannel object for `ch`, or NULL (raised) when `ch` is. */
static PyObject *channel_wrap(pvti_channel *ch)
{
	channel_obj *o;

	if (!ch)
		return pvti_fail(TSI_ERR_INVALID_ARGUMENT);
	o = PyObject_New(channel_obj, &channel_type);
	if (o)
		o->ch = ch;
	return (PyObject *)o;
}

/* The pvti_channel of `o`, or NULL with a TypeError. */
static pvti_channel *channel_of(PyObject *o)
{
	if (!PyObject_TypeCheck(o, &channel_type)) {
		PyErr_Format(PyExc_TypeError, "expected a TraceChannel, not %.100s",
		             Py_TYPE(o)->tp_name);
		return NULL;
	}
	return ((channel_obj *)o)->ch;
}

static PyObject *channel_get_name(PyObject *self, void *closure)
{
	return PyUnicode_FromString(pvti_channel_name(((channel_obj *)self)->ch));
}

static PyObject *channel_get_enabled(PyObject *self, void *closure)
{
	return PyBool_FromLong(pvti_channel_is_enabled(((channel_obj *)self)->ch));
}

static PyObject *channel_repr(PyObject *self)
{
	return PyUnicode_FromFormat("<TraceChannel '%s'>", pvti_channel_name(((channel_obj *)self)->ch));
}

/* Two objects of one channel are equal (createTraceChannel returns a new
 * object each time). */
static PyObject *channel_richcompare(PyObject *a, PyObject *b, int op)
{
	if (!PyObject_TypeCheck(b, &channel_type) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	return PyBool_FromLong((((channel_obj *)a)->ch == ((channel_obj *)b)->ch) == (op == Py_EQ));
}

static Py_hash_t channel_hash(PyObject *self)
{
	Py_hash_t h = (Py_hash_t)((uintptr_t)((channel_obj *)self)->ch >> 4);

	return h == -1 ? -2 : h;
}

static PyGetSetDef channel_getset[] = {
	{"name", channel_get_name, NULL, "The channel's name.", NULL},
	{"enabled", channel_get_enabled, NULL, "Whether its tracepoints are recorded now.", NULL},
	{0},
};

static PyTypeObject channel_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope.pvti.TraceChannel",
	.tp_basicsize = sizeof(channel_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A named group of tracepoints (createTraceChannel makes them).",
	.tp_repr = channel_repr,
	.tp_richcompare = channel_richcompare,
	.tp_hash = channel_hash,
	.tp_getset = channel_getset,
};

/* --- Spans --------------------------------------------------------------- */

/*
 * Opens a span `name` on `ch` in the calling thread, with the JSON text
 * `meta` (or NULL) attached. Returns 1 when a span was opened (the caller
 * then ends it), 0 when nothing is recorded, -1 (raised) on an error.
 */
static int span_open(pvti_channel *ch, PyObject *name, PyObject *meta)
{
	const char *s, *json;
	int rc = TSI_OK;

	if (!pvti_recording_())
		return 0;
	if (!(s = PyUnicode_AsUTF8(name)))
		return -1;
	if (!pvti_scope_begin_(ch, s))
		return 0;
	if (!meta || meta == Py_None)
		return 1;
	if (!(json = PyUnicode_AsUTF8(meta)) || (rc = pvti_event_metadata(json)) != TSI_OK) {
		pvti_end(ch);
		if (json)
			pvti_fail(rc);
		return -1;
	}
	return 1;
}

/* Checks Tracepoint-style arguments: a channel, a str name and a
 * metadata that is None or a str. */
static pvti_channel *span_args(PyObject *channel, PyObject *name, PyObject *meta)
{
	pvti_channel *ch = channel_of(channel);

	if (ch && !PyUnicode_Check(name)) {
		PyErr_SetString(PyExc_TypeError, "a tracepoint's name is a str");
		return NULL;
	}
	if (ch && meta && meta != Py_None && !PyUnicode_Check(meta)) {
		PyErr_SetString(PyExc_TypeError, "metadata is a JSON text (a str) or None");
		return NULL;
	}
	return ch;
}

/*
 * A Tracepoint: a context manager whose block is one span, and a
 * decorator whose function's every call is one span. `open` counts the
 * spans its __enter__ opened and __exit__ has not yet closed, so one
 * object may be entered again (recursion) and a block entered while
 * nothing was recorded closes nothing.
 */
typedef struct {
	PyObject_HEAD
	pvti_channel *ch;
	PyObject *channel;   /* the TraceChannel */
	PyObject *name;      /* str; NULL for instrument_fn: the function's __qualname__ */
	PyObject *meta;      /* JSON str, or NULL */
	Py_ssize_t open;
	vectorcallfunc call; /* tracepoint_call */
} tracepoint_obj;

static PyTypeObject tracepoint_type, traced_type;
static PyObject *tracepoint_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames);

/* Tracepoint(channel, name, metadata=None), by vectorcall (positional
 * arguments only, as libpvti takes them), which costs a fraction of the
 * generic tuple-and-dict call. */
static PyObject *tracepoint_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf,
                                       PyObject *kwnames)
{
	Py_ssize_t n = PyVectorcall_NARGS(nargsf);
	tracepoint_obj *tp;
	pvti_channel *ch;

	if (kwnames || n < 2 || n > 3)
		return PyErr_Format(PyExc_TypeError,
		                    "Tracepoint(channel, name, metadata=None) takes 2 or 3 "
		                    "positional arguments");
	if (!(ch = span_args(args[0], args[1], n > 2 ? args[2] : NULL)))
		return NULL;
	if (!(tp = PyObject_New(tracepoint_obj, &tracepoint_type)))
		return NULL;
	tp->ch = ch;
	tp->channel = Py_NewRef(args[0]);
	tp->name = Py_NewRef(args[1]);
	tp->meta = n > 2 && args[2] != Py_None ? Py_NewRef(args[2]) : NULL;
	tp->open = 0;
	tp->call = tracepoint_call;
	return (PyObject *)tp;
}

static void tracepoint_dealloc(PyObject *self)
{
	tracepoint_obj *tp = (tracepoint_obj *)self;

	Py_DECREF(tp->channel);
	Py_XDECREF(tp->name);
	Py_XDECREF(tp->meta);
	PyObject_Free(self);
}

static PyObject *tracepoint_enter(PyObject *self)
{
	tracepoint_obj *tp = (tracepoint_obj *)self;
	int opened;

	if (!tp->name)
		return PyErr_Format(PyExc_TypeError, "instrument_fn(channel) is a decorator");
	if ((opened = span_open(tp->ch, tp->name, tp->meta)) < 0)
		return NULL;
	tp->open += opened;
	return Py_NewRef(self);
}

/* Ends the span __enter__ opened; an exception from the block goes on. */
static PyObject *tracepoint_exit(PyObject *self)
{
	tracepoint_obj *tp = (tracepoint_obj *)self;

	if (tp->open > 0) {
		tp->open--;
		pvti_scope_end_(&tp->ch);
	}
	Py_RETURN_FALSE;
}

/* functools.update_wrapper, taken at import. */
static PyObject *update_wrapper;

/*
 * A function wrapped by a Tracepoint used as a decorator: each call is a
 * span. It has a __dict__ so that it carries the function's __name__,
 * __qualname__, __doc__ and __wrapped__ (functools.update_wrapper), and
 * binds as a method does.
 */
typedef struct {
	PyObject_HEAD
	PyObject *tp;        /* its Tracepoint: channel, name, metadata */
	PyObject *fn;
	PyObject *dict;
	vectorcallfunc vectorcall;
} traced_obj;

static PyObject *traced_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames)
{
	traced_obj *t = (traced_obj *)self;
	tracepoint_obj *tp = (tracepoint_obj *)t->tp;
	int opened = span_open(tp->ch, tp->name, tp->meta);
	PyObject *result;

	if (opened < 0)
		return NULL;
	result = PyObject_Vectorcall(t->fn, args, nargsf, kwnames);
	if (opened)
		pvti_scope_end_(&tp->ch);
	return result;
}

/* Tracepoint(...)(fn): `fn` wrapped so that each call is a span. */
static PyObject *tracepoint_decorate(PyObject *self, PyObject *fn)
{
	tracepoint_obj *tp = (tracepoint_obj *)self;
	PyObject *done;
	traced_obj *t;

	if (!PyCallable_Check(fn))
		return PyErr_Format(PyExc_TypeError, "a Tracepoint decorates a callable, not %.100s",
		                    Py_TYPE(fn)->tp_name);
	if (!tp->name) {
		/* instrument_fn: a Tracepoint of its own, named after the function. */
		PyObject *name = PyObject_GetAttrString(fn, "__qualname__"), *argv[] = {tp->channel, name};

		if (!name)
			return NULL;
		self = PyUnicode_Check(name) ? tracepoint_vectorcall(NULL, argv, 2, NULL)
		                             : PyErr_Format(PyExc_TypeError, "__qualname__ is no str");
		Py_DECREF(name);
		if (!self)
			return NULL;
	} else {
		Py_INCREF(self);
	}
	if (!(t = PyObject_GC_New(traced_obj, &traced_type))) {
		Py_DECREF(self);
		return NULL;
	}
	t->tp = self;
	t->fn = Py_NewRef(fn);
	t->dict = NULL;
	t->vectorcall = traced_vectorcall;
	PyObject_GC_Track(t);
	if (!(done = PyObject_CallFunctionObjArgs(update_wrapper, (PyObject *)t, fn, NULL))) {
		Py_DECREF(t);
		return NULL;
	}
	Py_DECREF(done);
	return (PyObject *)t;
}

static int traced_traverse(PyObject *self, visitproc visit, void *arg)
{
	traced_obj *t = (traced_obj *)self;

	Py_VISIT(t->tp);
	Py_VISIT(t->fn);
	Py_VISIT(t->dict);
	return 0;
}

static int traced_clear(PyObject *self)
{
	traced_obj *t = (traced_obj *)self;

	Py_CLEAR(t->tp);
	Py_CLEAR(t->fn);
	Py_CLEAR(t->dict);
	return 0;
}

static void traced_dealloc(PyObject *self)
{
	PyObject_GC_UnTrack(self);
	traced_clear(self);
	PyObject_GC_Del(self);
}

/* As a class attribute it binds to the instance, as a function does. */
static PyObject *traced_get(PyObject *self, PyObject *obj, PyObject *type)
{
	return obj && obj != Py_None ? PyMethod_New(self, obj) : Py_NewRef(self);
}

static PyGetSetDef traced_getset[] = {
	{"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
	{0},
};

static PyTypeObject traced_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope.pvti.TracedFunction",
	.tp_basicsize = sizeof(traced_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
	            Py_TPFLAGS_METHOD_DESCRIPTOR,
	.tp_doc = "A function whose every call is a span (made by a Tracepoint decorator).",
	.tp_dealloc = traced_dealloc,
	.tp_traverse = traced_traverse,
	.tp_clear = traced_clear,
	.tp_call = PyVectorcall_Call,
	.tp_vectorcall_offset = offsetof(traced_obj, vectorcall),
	.tp_descr_get = traced_get,
	.tp_dictoffset = offsetof(traced_obj, dict),
	.tp_getset = traced_getset,
	.tp_getattro = PyObject_GenericGetAttr,
	.tp_setattro = PyObject_GenericSetAttr,
};

/*
 * A Tracepoint's call: with no argument it enters, with three (what
 * `with` passes __exit__) it exits, with one callable it decorates.
 */
static PyObject *tracepoint_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames)
{
	Py_ssize_t n = PyVectorcall_NARGS(nargsf);

	if (kwnames || (n != 0 && n != 1 && n != 3))
		return PyErr_Format(PyExc_TypeError, "a Tracepoint decorates one callable");
	return n == 0 ? tracepoint_enter(self) : n == 3 ? tracepoint_exit(self)
	                                                : tracepoint_decorate(self, args[0]);
}

/*
 * __enter__ and __exit__. `with` looks both up at every use, and a method
 * would make a bound method object each time: two allocations, more than
 * half of what a tracepoint costs while nothing is recorded. These
 * descriptors give back the Tracepoint itself, whose call enters or
 * exits by its arguments (tracepoint_call). Taken from the class
 * (contextlib.ExitStack: type(cm).__enter__(cm)) they are called with
 * the Tracepoint first.
 */
typedef struct {
	PyObject_HEAD
	vectorcallfunc call;
	int exit;
} cm_method_obj;

static PyObject *cm_method_get(PyObject *self, PyObject *obj, PyObject *type)
{
	return Py_NewRef(obj && obj != Py_None ? obj : self);
}

static PyObject *cm_method_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                PyObject *kwnames)
{
	int exit = ((cm_method_obj *)self)->exit;

	if (kwnames || PyVectorcall_NARGS(nargsf) != (exit ? 4 : 1) ||
	    !PyObject_TypeCheck(args[0], &tracepoint_type))
		return PyErr_Format(PyExc_TypeError, exit ? "__exit__(tracepoint, type, value, tb)"
		                                          : "__enter__(tracepoint)");
	return exit ? tracepoint_exit(args[0]) : tracepoint_enter(args[0]);
}

static PyTypeObject cm_method_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope.pvti.TracepointMethod",
	.tp_basicsize = sizeof(cm_method_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
	.tp_call = PyVectorcall_Call,
	.tp_vectorcall_offset = offsetof(cm_method_obj, call),
	.tp_descr_get = cm_method_get,
};

static cm_method_obj enter_method = {PyObject_HEAD_INIT(&cm_method_type) cm_method_call, 0};
static cm_method_obj exit_method = {PyObject_HEAD_INIT(&cm_method_type) cm_method_call, 1};

/* Tracepoint.begin(channel, name, metadata=None): opens a span that
 * Tracepoint.end(channel) closes, on the same thread. */
static PyObject *tracepoint_begin(PyObject *unused, PyObject *const *args, Py_ssize_t n)
{
	pvti_channel *ch;

	if (n < 2 || n > 3)
		return PyErr_Format(PyExc_TypeError, "begin(channel, name, metadata=None)");
	if (!(ch = span_args(args[0], args[1], n > 2 ? args[2] : NULL)) ||
	    span_open(ch, args[1], n > 2 ? args[2] : NULL) < 0)
		return NULL;
	Py_RETURN_NONE;
}

/* Tracepoint.end(channel[, name]): closes the thread's innermost span,
 * which must be on `channel` (else the end is counted as unbalanced, as
 * pvti_end does). libpvti passes the name again; it is not needed. */
static PyObject *tracepoint_end(PyObject *unused, PyObject *const *args, Py_ssize_t n)
{
	pvti_channel *ch;

	if (n < 1 || n > 2)
		return PyErr_Format(PyExc_TypeError, "end(channel, name=None)");
	if (!(ch = channel_of(args[0])))
		return NULL;
	pvti_end(ch);
	Py_RETURN_NONE;
}

/* instantEvent(channel, name), also Tracepoint.event: a point in time. */
static PyObject *instant_event(PyObject *unused, PyObject *const *args, Py_ssize_t n)
{
	pvti_channel *ch;
	const char *s;

	if (n != 2)
		return PyErr_Format(PyExc_TypeError, "instantEvent(channel, name)");
	if (!(ch = span_args(args[0], args[1], NULL)))
		return NULL;
	if (pvti_recording_()) {
		if (!(s = PyUnicode_AsUTF8(args[1])))
			return NULL;
		pvti_instant(ch, s);
	}
	Py_RETURN_NONE;
}

static PyMethodDef tracepoint_methods[] = {
	{"begin", (PyCFunction)(void (*)(void))tracepoint_begin, METH_FASTCALL | METH_STATIC,
	 "begin(channel, name, metadata=None): opens a span on this thread."},
	{"end", (PyCFunction)(void (*)(void))tracepoint_end, METH_FASTCALL | METH_STATIC,
	 "end(channel, name=None): closes this thread's innermost span."},
	{"event", (PyCFunction)(void (*)(void))instant_event, METH_FASTCALL | METH_STATIC,
	 "event(channel, name): records an instant."},
	{0},
};

static PyTypeObject tracepoint_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope.pvti.Tracepoint",
	.tp_basicsize = sizeof(tracepoint_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
	.tp_doc = "Tracepoint(channel, name, metadata=None): a span, as a context manager\n"
	          "(`with Tracepoint(ch, \"epoch\"):`) or a decorator (`@Tracepoint(ch, \"step\")`).\n"
	          "metadata is a JSON text attached to the span.",
	.tp_dealloc = tracepoint_dealloc,
	.tp_call = PyVectorcall_Call,
	.tp_vectorcall_offset = offsetof(tracepoint_obj, call),
	.tp_methods = tracepoint_methods,
	.tp_vectorcall = tracepoint_vectorcall,
};

/* instrument_fn(channel): a decorator naming each span after the
 * function's __qualname__ (libpvti's). */
static PyObject *instrument_fn(PyObject *unused, PyObject *channel)
{
	tracepoint_obj *tp;

	if (!channel_of(channel) || !(tp = PyObject_New(tracepoint_obj, &tracepoint_type)))
		return NULL;
	tp->ch = channel_of(channel);
	tp->channel = Py_NewRef(channel);
	tp->name = tp->meta = NULL;
	tp->open = 0;
	tp->call = tracepoint_call;
	return (PyObject *)tp;
}

/* --- Graphs and heatmaps --------------------------------------------------- */

/* A Graph, a Series or a HeatmapDouble: a pointer the tracer owns. */
typedef struct {
	PyObject_HEAD
	void *p;
} handle_obj;

static PyTypeObject graph_type, series_type, heatmap_type;

static PyObject *handle_wrap(PyTypeObject *type, void *p)
{
	handle_obj *o;

	if (!p)
		return pvti_fail(TSI_ERR_INVALID_ARGUMENT);
	if ((o = PyObject_New(handle_obj, type)))
		o->p = p;
	return (PyObject *)o;
}

/* Graph(name, unit=""). */
static PyObject *graph_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"name", "unit", NULL};
	const char *name, *unit = "";

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|s:Graph", kw, &name, &unit))
		return NULL;
	return handle_wrap(type, pvti_graph_new(name, unit));
}

/* graph.addSeries(name) -> Series. */
static PyObject *graph_add_series(PyObject *self, PyObject *arg)
{
	const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;

	if (!name)
		return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "a series' name is a str");
	return handle_wrap(&series_type, pvti_graph_add_series(((handle_obj *)self)->p, name));
}

/* series.add(value): one sample, time-stamped now. */
static PyObject *series_add(PyObject *self, PyObject *arg)
{
	double v = PyFloat_AsDouble(arg);

	if (v == -1.0 && PyErr_Occurred())
		return NULL;
	pvti_series_add(((handle_obj *)self)->p, v);
	Py_RETURN_NONE;
}

/* The numbers of sequence `seq` as a malloc'ed array (*n of them), or
 * NULL (raised). */
static double *doubles_of(PyObject *seq, size_t *n)
{
	PyObject *fast = PySequence_Fast(seq, "expected a sequence of numbers");
	double *v = NULL;

	if (!fast)
		return NULL;
	*n = (size_t)PySequence_Fast_GET_SIZE(fast);
	if (!(v = malloc((*n ? *n : 1) * sizeof(*v)))) {
		PyErr_NoMemory();
		goto done;
	}
	for (size_t i = 0; i < *n; i++) {
		v[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, (Py_ssize_t)i));
		if (v[i] == -1.0 && PyErr_Occurred()) {
			free(v);
			v = NULL;
			break;
		}
	}
done:
	Py_DECREF(fast);
	return v;
}

/* HeatmapDouble(name, edges, unit=""). */
static PyObject *heatmap_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"name", "edges", "unit", NULL};
	const char *name, *unit = "";
	PyObject *edges_obj, *o;
	double *edges;
	size_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO|s:HeatmapDouble", kw, &name, &edges_obj,
	                                 &unit) ||
	    !(edges = doubles_of(edges_obj, &n)))
		return NULL;
	o = handle_wrap(type, pvti_heatmap_new(name, unit, edges, n));
	free(edges);
	return o;
}

/* heatmap.add(values): one sample of values. */
static PyObject *heatmap_add(PyObject *self, PyObject *arg)
{
	size_t n;
	double *v = doubles_of(arg, &n);
	int rc;

	if (!v)
		return NULL;
	rc = pvti_heatmap_add(((handle_obj *)self)->p, v, n);
	free(v);
	return rc == TSI_OK ? Py_NewRef(Py_None) : pvti_fail(rc);
}

static PyMethodDef graph_methods[] = {
	{"addSeries", graph_add_series, METH_O, "addSeries(name) -> Series"},
	{0},
};
static PyMethodDef series_methods[] = {
	{"add", series_add, METH_O, "add(value): a sample, time-stamped now."},
	{0},
};
static PyMethodDef heatmap_methods[] = {
	{"add", heatmap_add, METH_O, "add(values): one sample of values, bucketed."},
	{0},
};

#define HANDLE_TYPE(var, name_, doc, new_, methods)                                               \
	static PyTypeObject var = {                                                                \
	    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilescope.pvti." name_,                    \
	    .tp_basicsize = sizeof(handle_obj), .tp_flags = Py_TPFLAGS_DEFAULT, .tp_doc = doc,     \
	    .tp_new = new_, .tp_methods = methods}
HANDLE_TYPE(graph_type, "Graph", "Graph(name, unit=\"\"): series drawn on one chart.", graph_new,
            graph_methods);
HANDLE_TYPE(series_type, "Series", "A series of values (Graph.addSeries).", NULL, series_methods);
HANDLE_TYPE(heatmap_type, "HeatmapDouble",
            "HeatmapDouble(name, edges, unit=\"\"): counts of values per bucket over time.",
            heatmap_new, heatmap_methods);

/* --- The module ------------------------------------------------------------- */

static PyObject *create_trace_channel(PyObject *unused, PyObject *arg)
{
	const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;

	if (!name)
		return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "a channel's name is a str");
	return channel_wrap(pvti_channel_new(name));
}

/* enableTraceChannel / disableTraceChannel: `set` on the channel `arg`. */
static PyObject *switch_channel(PyObject *arg, void (*set)(pvti_channel *))
{
	pvti_channel *ch = channel_of(arg);

	if (!ch)
		return NULL;
	set(ch);
	Py_RETURN_NONE;
}
static PyObject *enable_trace_channel(PyObject *unused, PyObject *arg)
{
	return switch_channel(arg, pvti_channel_enable);
}
static PyObject *disable_trace_channel(PyObject *unused, PyObject *arg)
{
	return switch_channel(arg, pvti_channel_disable);
}

static PyObject *check_trace_channel(PyObject *unused, PyObject *arg)
{
	pvti_channel *ch = channel_of(arg);

	return ch ? PyBool_FromLong(pvti_channel_is_enabled(ch)) : NULL;
}

/* listTraceChannel() -> [[name, enabled], ...], built-in channels first. */
static PyObject *list_trace_channel(PyObject *unused, PyObject *noargs)
{
	size_t n = pvti_channel_count();
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; list && i < n; i++) {
		pvti_channel *ch = pvti_channel_at(i);
		PyObject *pair = Py_BuildValue("[sO]", pvti_channel_name(ch),
		                               pvti_channel_is_enabled(ch) ? Py_True : Py_False);

		if (!pair)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, pair);
	}
	return list;
}

/* getCurrentTraceFilename() -> the open trace's path, "" when none. */
static PyObject *current_trace_filename(PyObject *unused, PyObject *noargs)
{
	char *name = pvti_dup_file_name();
	PyObject *s = PyUnicode_DecodeFSDefault(name ? name : "");

	free(name);
	return s;
}

/* closeTrace() and flush(): `call` waits for the writer thread, without
 * the GIL. */
static PyObject *wait_for_writer(int (*call)(void))
{
	int rc;

	Py_BEGIN_ALLOW_THREADS
	rc = call();
	Py_END_ALLOW_THREADS
	return rc == TSI_OK ? Py_NewRef(Py_None) : pvti_fail(rc);
}
static PyObject *close_trace(PyObject *unused, PyObject *noargs)
{
	return wait_for_writer(pvti_close);
}
static PyObject *flush_trace(PyObject *unused, PyObject *noargs)
{
	return wait_for_writer(pvti_flush);
}

/* setTraceMetadata(key, json): the trace's metadata (pvti_trace_metadata). */
static PyObject *set_trace_metadata(PyObject *unused, PyObject *args)
{
	const char *key, *json;
	int rc;

	if (!PyArg_ParseTuple(args, "ss:setTraceMetadata", &key, &json))
		return NULL;
	rc = pvti_trace_metadata(key, json);
	return rc == TSI_OK ? Py_NewRef(Py_None) : pvti_fail(rc);
}

/* setThreadName(name): the calling thread's name in traces. */
static PyObject *set_thread_name(PyObject *unused, PyObject *args)
{
	const char *name;
	int rc;

	if (!PyArg_ParseTuple(args, "s:setThreadName", &name))
		return NULL;
	rc = pvti_thread_set_name(name);
	return rc == TSI_OK ? Py_NewRef(Py_None) : pvti_fail(rc);
}

static PyMethodDef pvti_methods[] = {
	{"createTraceChannel", create_trace_channel, METH_O,
	 "createTraceChannel(name) -> TraceChannel (made on first use)"},
	{"enableTraceChannel", enable_trace_channel, METH_O, "Records the channel's tracepoints."},
	{"disableTraceChannel", disable_trace_channel, METH_O, "Stops recording them."},
	{"checkTraceChannel", check_trace_channel, METH_O, "Whether the channel is recorded."},
	{"listTraceChannel", list_trace_channel, METH_NOARGS, "[[name, enabled], ...]"},
	{"getCurrentTraceFilename", current_trace_filename, METH_NOARGS,
	 "The open trace's file (\"\" when none is open)."},
	{"closeTrace", close_trace, METH_NOARGS, "Writes and closes the open trace."},
	{"flush", flush_trace, METH_NOARGS, "Waits until what was recorded is in the file."},
	{"instantEvent", (PyCFunction)(void (*)(void))instant_event, METH_FASTCALL,
	 "instantEvent(channel, name): records a point in time."},
	{"instrument_fn", instrument_fn, METH_O,
	 "instrument_fn(channel): a decorator naming the span after the function."},
	{"setTraceMetadata", set_trace_metadata, METH_VARARGS,
	 "setTraceMetadata(key, json): sets a key of the trace's metadata to a JSON value."},
	{"setThreadName", set_thread_name, METH_VARARGS,
	 "setThreadName(name): the calling thread's name in the trace."},
	{0},
};

static struct PyModuleDef pvti_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "tilescope.pvti",
	.m_doc = "Tracing from Python into .pvti files, with libpvti's names; "
	         "PVTI_OPTIONS as for a C program.",
	.m_size = -1,
	.m_methods = pvti_methods,
};

PyMODINIT_FUNC PyInit_pvti(void);
PyMODINIT_FUNC PyInit_pvti(void)
{
	PyTypeObject *types[] = {&channel_type, &tracepoint_type, &traced_type,
	                         &graph_type,   &series_type,     &heatmap_type};
	const char *names[] = {"TraceChannel", "Tracepoint", "TracedFunction",
	                       "Graph",        "Series",     "HeatmapDouble"};
	PyObject *m, *functools;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (PyType_Ready(types[i]) < 0)
			return NULL;
	if (PyType_Ready(&cm_method_type) < 0 ||
	    PyDict_SetItemString(tracepoint_type.tp_dict, "__enter__", (PyObject *)&enter_method) ||
	    PyDict_SetItemString(tracepoint_type.tp_dict, "__exit__", (PyObject *)&exit_method))
		return NULL;
	PyType_Modified(&tracepoint_type);
	if (!(functools = PyImport_ImportModule("functools")))
		return NULL;
	update_wrapper = PyObject_GetAttrString(functools, "update_wrapper");
	Py_DECREF(functools);
	if (!update_wrapper || !(m = PyModule_Create(&pvti_module)))
		return NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (PyModule_AddObjectRef(m, names[i], (PyObject *)types[i]) < 0)
			goto fail;
	/* libpvti's integer heatmap: the tracer keeps doubles (exact up to 2^53). */
	if (PyModule_AddObjectRef(m, "HeatmapInt64", (PyObject *)&heatmap_type) < 0 ||
	    PyModule_AddObject(m, "traceDrivers", channel_wrap(pvti_channel_drivers())) < 0 ||
	    PyModule_AddObject(m, "tracePoplar", channel_wrap(pvti_channel_poplar())) < 0 ||
	    PyModule_AddObject(m, "traceFramework", channel_wrap(pvti_channel_framework())) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
