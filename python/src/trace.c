/*
 * tilescope._trace: .pvti traces from Python (tilescope.openTrace), over
 * reportlib's trace.h, with the figures `tilescope trace` prints: label
 * statistics, totals per channel and thread, the spans of a thread in a
 * time window, counter series, the call tree, instants and metadata.
 * Nothing is computed here: every figure is reportlib's.
 *
 * Times are integer nanoseconds on the trace's merged axis (trace.h);
 * a window is fromNs / toNs on it, None for open. Records are struct
 * sequences (named tuples) with camelCase names, as tilescope.pva's.
 *
 * Cost. The spans of a window are one reportlib array; a SpanList makes
 * a Span object only when one is indexed. The long calls (open,
 * statistics, totals, spans, call tree, counters) run without the GIL;
 * the handle serves one thread at a time, so every call into it holds
 * the Trace's lock, and Spans, lists and trees keep their Trace alive.
 * Failures raise tilescope.Error with reportlib's one-line message.
 */
#include "native.h"

#include <structmember.h>

#include <tilescope/trace.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

/* tilescope.Error (tilescope._native's), taken at import. */
static PyObject *trace_error;

typedef struct {
	PyObject_HEAD
	tsr_trace *trace;
	PyThread_type_lock lock;
	const tsr_trace_channel *channels;
	size_t n_channels, n_threads;
	PyObject *processes, *threads, *series; /* tuples of records, made at open */
	long long start_ns, end_ns, origin_wall_ns;
	unsigned long long spans;
	int complete;
} trace_obj;

static PyTypeObject trace_type, span_list_type;

/* --- Records ------------------------------------------------------------------- */

#define F(name) {name, NULL}
#define FIELDS(...) ((PyStructSequence_Field[]){__VA_ARGS__, {NULL, NULL}})
static PyTypeObject process_type, thread_type, series_type, label_type, span_type,
    totals_type, span_totals_type, channel_totals_type, bucket_type, call_node_type,
    call_tree_type, instant_type, heatmap_type;
static struct {
	PyTypeObject *type;
	PyStructSequence_Desc desc;
} records[] = {
	{&process_type, {"tilescope.TraceProcess", "One traced process: one file.",
	                 FIELDS(F("path"), F("pid"), F("host"), F("name"), F("commandLine"),
	                        {"startWallNs", "its origin, ns since 1970"},
	                        {"offsetNs", "where its origin lies on the merged axis"},
	                        {"complete", "closed cleanly"},
	                        {"metadata", "trace metadata: key -> JSON text"}), 9}},
	{&thread_type, {"tilescope.TraceThread", "A thread: its index is what queries take.",
	                FIELDS(F("index"), F("process"), F("tid"), F("name"), F("spans"),
	                       {"firstNs", "earliest start (None: no spans)"},
	                       {"lastNs", "latest end (None: no spans)"}), 7}},
	{&series_type, {"tilescope.TraceSeries", "A counter series (pvti Graph.addSeries).",
	                FIELDS(F("index"), F("process"), F("graph"), F("name"), F("unit")), 5}},
	{&label_type, {"tilescope.LabelStat", "Statistics of one label (channel and name).",
	               FIELDS(F("channel"), F("name"), F("count"), F("totalNs"), F("selfNs"),
	                      F("meanNs"), {"medianNs", "None without medians"}, F("medianExact"),
	                      F("minNs"), F("maxNs")), 10}},
	{&span_type, {"tilescope.Span", "A span (or, at a resolution, a merged run or summary).",
	              FIELDS(F("thread"), {"seq", "its ordinal in its thread (-1 unless an event)"},
	                     {"parent", "the enclosing span's seq, -1 when none"}, F("name"),
	                     F("channel"), F("depth"), F("startNs"), F("endNs"),
	                     {"count", "spans it stands for"}, F("busyNs"),
	                     {"kind", "'event', 'merged' or 'summary'"}), 11}},
	{&totals_type, {"tilescope.TraceTotals", "Totals of a view.",
	                FIELDS(F("spans"), F("selfNs"), {"processes", "SpanTotals per process"},
	                       {"threads", "SpanTotals per thread"},
	                       {"channels", "name -> ChannelTotals, channels with spans"}), 5}},
	{&span_totals_type, {"tilescope.SpanTotals", "The spans of a thread or process in a view.",
	                     FIELDS(F("spans"), {"busyNs", "sum of self times"},
	                            F("firstNs"), F("lastNs")), 4}},
	{&channel_totals_type, {"tilescope.ChannelTotals", "The spans of a channel in a view.",
	                        FIELDS(F("spans"), F("selfNs")), 2}},
	{&bucket_type, {"tilescope.CounterBucket", "The samples of a series in a bucket of time.",
	                FIELDS(F("fromNs"), F("toNs"), F("count"), F("min"), F("max"), F("first"),
	                       F("last")), 7}},
	{&call_node_type, {"tilescope.CallNode", "A call path: one label under its ancestors'.",
	                   FIELDS(F("channel"), F("name"), F("count"), F("inclusiveNs"),
	                          F("exclusiveNs"), {"children", "largest inclusive time first"}),
	                   6}},
	{&call_tree_type, {"tilescope.CallTree", "The call tree of a view.",
	                   FIELDS(F("spans"), F("inclusiveNs"), F("roots")), 3}},
	{&heatmap_type, {"tilescope.TraceHeatmap", "A heatmap: values counted per bucket over time.",
	                 FIELDS(F("index"), F("process"), F("name"), F("unit"),
	                        {"edges", "bucket i holds values in [edges[i-1], edges[i])"},
	                        F("samples"), F("firstNs"), F("lastNs"),
	                        {"skipped", "malformed rows (known after heatmapCounts)"}), 9}},
	{&instant_type, {"tilescope.Instant", "An instant event.",
	                 FIELDS(F("tNs"), F("thread"), F("channel"), F("name"), F("depth"),
	                        {"parent", "seq of the innermost open span, -1 when none"}), 6}},
};

/* A record of `type` from Py_BuildValue's `fmt` (a tuple of its fields). */
static PyObject *record(PyTypeObject *type, const char *fmt, ...)
{
	va_list ap;
	PyObject *t, *r = NULL;

	va_start(ap, fmt);
	t = Py_VaBuildValue(fmt, ap);
	va_end(ap);
	if (t && (r = PyStructSequence_New(type)))
		for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++)
			PyStructSequence_SET_ITEM(r, i, Py_NewRef(PyTuple_GET_ITEM(t, i)));
	Py_XDECREF(t);
	return r;
}

/* A string from the file as str (bytes that are not UTF-8 replaced), or
 * None for NULL. */
static PyObject *text(const char *s)
{
	return s ? PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace") : Py_NewRef(Py_None);
}

/* Puts `item` at `i` of the new list or tuple *seq, or clears *seq when
 * `item` is NULL (an error is raised). */
static void put(PyObject **seq, Py_ssize_t i, PyObject *item)
{
	if (!item)
		Py_CLEAR(*seq);
	else if (PyList_Check(*seq))
		PyList_SET_ITEM(*seq, i, item);
	else
		PyTuple_SET_ITEM(*seq, i, item);
}

/* An int, or None when `some` is false. */
static PyObject *maybe_ns(int some, long long ns)
{
	return some ? PyLong_FromLongLong(ns) : Py_NewRef(Py_None);
}

/* --- Locking and errors ------------------------------------------------------- */


/* Runs `call` (a reportlib call on t->trace, assigned to `rc`) without the
 * GIL and with the lock; on failure `msg` gets the handle's message. */
#define TRACE_CALL(t, rc, msg, call)                                                          \
	do {                                                                                  \
		Py_BEGIN_ALLOW_THREADS                                                            \
		PyThread_acquire_lock((t)->lock, WAIT_LOCK);                                      \
		if (((rc) = (call)) != TSR_OK)                                                    \
			snprintf((msg), sizeof(msg), "%s", tsr_trace_error((t)->trace));              \
		PyThread_release_lock((t)->lock);                                                 \
		Py_END_ALLOW_THREADS                                                              \
	} while (0)

/* Raises tilescope.Error with reportlib's message (IndexError for a thread
 * or series out of range). Returns NULL. */
static PyObject *fail(int rc, const char *msg)
{
	PyErr_SetString(rc == TSR_ERR_OUT_OF_RANGE ? PyExc_IndexError : trace_error,
	                msg && *msg ? msg : "reportlib failed");
	return NULL;
}

/* --- Arguments ------------------------------------------------------------------- */

/* O& converter: None leaves the int64 default; an int sets it. */
static int ns_arg(PyObject *o, void *out)
{
	long long v;

	if (o == Py_None)
		return 1;
	v = PyLong_AsLongLong(o);
	if (v == -1 && PyErr_Occurred())
		return 0;
	*(int64_t *)out = v;
	return 1;
}

/* A thread, a window and options: the view most queries take. */
typedef struct {
	int64_t thread, from_ns, to_ns;
} view;

/* A view's thread and window into reportlib's options struct `o`. */
#define VIEW_INTO(o, v) ((o).thread = (v).thread, (o).from_ns = (v).from_ns, (o).to_ns = (v).to_ns)

/* Parses args and kwargs with `fmt` and the names `kw`: the first three
 * (thread or index, fromNs, toNs; None leaves -1, open, open) into *v,
 * up to four more into the pointers that follow `kw`. */
static int view_args(PyObject *args, PyObject *kwargs, view *v, const char *fmt,
                     char **kw, ...)
{
	void *p[4] = {NULL};
	va_list ap;

	v->thread = -1;
	v->from_ns = INT64_MIN;
	v->to_ns = INT64_MAX;
	va_start(ap, kw);
	for (size_t i = 3; kw[i] && i < 7; i++)
		p[i - 3] = va_arg(ap, void *);
	va_end(ap);
	return PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, ns_arg, &v->thread, ns_arg,
	                                   &v->from_ns, ns_arg, &v->to_ns, p[0], p[1], p[2], p[3]);
}

/* --- Opening ------------------------------------------------------------------- */

/* The tuple of the trace's processes, threads and series, made once. */
static int trace_fill(trace_obj *t)
{
	const tsr_trace_process *procs;
	const tsr_trace_thread *threads;
	const tsr_trace_series *series;
	size_t n_procs, n_series;
	const tsr_trace_info *info = tsr_trace_get_info(t->trace);

	if (tsr_trace_get_processes(&procs, &n_procs, t->trace) != TSR_OK ||
	    tsr_trace_get_threads(&threads, &t->n_threads, t->trace) != TSR_OK ||
	    tsr_trace_get_channels(&t->channels, &t->n_channels, t->trace) != TSR_OK ||
	    tsr_trace_get_series(&series, &n_series, t->trace) != TSR_OK) {
		fail(TSR_ERR_CORRUPT, tsr_trace_error(t->trace));
		return -1;
	}
	t->start_ns = info->start_ns;
	t->end_ns = info->end_ns;
	t->origin_wall_ns = info->origin_wall_ns;
	t->spans = info->events;
	t->complete = info->complete;
	t->processes = PyTuple_New((Py_ssize_t)n_procs);
	t->threads = PyTuple_New((Py_ssize_t)t->n_threads);
	t->series = PyTuple_New((Py_ssize_t)n_series);
	for (size_t i = 0; t->processes && i < n_procs; i++) {
		const tsr_trace_process *p = &procs[i];
		PyObject *meta = PyDict_New();

		for (size_t k = 0; meta && k < p->n_metadata; k++) {
			PyObject *key = text(p->metadata_keys[k]), *value = text(p->metadata_values[k]);

			if (!key || !value || PyDict_SetItem(meta, key, value) < 0)
				Py_CLEAR(meta);
			Py_XDECREF(key);
			Py_XDECREF(value);
		}
		put(&t->processes, (Py_ssize_t)i,
		    meta ? record(&process_type, "(NLNNNLLON)", text(p->path), (long long)p->pid,
		                  text(p->host), text(p->name), text(p->command_line),
		                  (long long)p->start_wall_ns, (long long)p->offset_ns,
		                  p->complete ? Py_True : Py_False, meta)
		         : NULL);
	}
	for (size_t i = 0; t->threads && i < t->n_threads; i++) {
		const tsr_trace_thread *th = &threads[i];
		int any = th->events > 0 || th->first_ns != th->last_ns;

		put(&t->threads, (Py_ssize_t)i,
		    record(&thread_type, "(nnLNKNN)", (Py_ssize_t)i, (Py_ssize_t)th->process,
		           (long long)th->tid, text(th->name), (unsigned long long)th->events,
		           maybe_ns(any, th->first_ns), maybe_ns(any, th->last_ns)));
	}
	for (size_t i = 0; t->series && i < n_series; i++)
		put(&t->series, (Py_ssize_t)i,
		    record(&series_type, "(nnNNN)", (Py_ssize_t)i, (Py_ssize_t)series[i].process,
		           text(series[i].graph), text(series[i].name), text(series[i].unit)));
	return t->processes && t->threads && t->series ? 0 : -1;
}

/* openTrace(*paths) -> Trace: .pvti files, Chrome trace-event JSON files
 * or directories of one job, merged onto one time axis. */
static PyObject *open_trace(PyObject *unused, PyObject *args)
{
	Py_ssize_t n = PyTuple_GET_SIZE(args);
	PyObject **bytes = calloc((size_t)n + 1, sizeof(*bytes));
	const char **paths = calloc((size_t)n + 1, sizeof(*paths));
	trace_obj *t = NULL;
	tsr_trace *trace = NULL;
	char msg[1024] = "";
	int rc;

	if (!bytes || !paths) {
		PyErr_NoMemory();
		goto done;
	}
	if (n == 0) {
		PyErr_SetString(PyExc_TypeError, "openTrace(*paths) wants at least one path");
		goto done;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		if (!PyUnicode_FSConverter(PyTuple_GET_ITEM(args, i), &bytes[i]))
			goto done;
		paths[i] = PyBytes_AS_STRING(bytes[i]);
	}
	Py_BEGIN_ALLOW_THREADS
	if ((rc = tsr_trace_open(&trace, paths, (size_t)n, NULL)) != TSR_OK)
		snprintf(msg, sizeof(msg), "%s", tsr_last_error());
	Py_END_ALLOW_THREADS
	if (rc != TSR_OK) {
		fail(TSR_ERR_CORRUPT, msg);
		goto done;
	}
	if (!(t = PyObject_New(trace_obj, &trace_type))) {
		tsr_trace_free(trace);
		goto done;
	}
	t->trace = trace;
	t->processes = t->threads = t->series = NULL;
	if (!(t->lock = PyThread_allocate_lock()))
		PyErr_NoMemory();
	if (!t->lock || trace_fill(t) < 0)
		Py_CLEAR(t);
done:
	for (Py_ssize_t i = 0; bytes && i < n; i++)
		Py_XDECREF(bytes[i]);
	free(bytes);
	free(paths);
	return (PyObject *)t;
}

static void trace_dealloc(PyObject *self)
{
	trace_obj *t = (trace_obj *)self;

	tsr_trace_free(t->trace);
	if (t->lock)
		PyThread_free_lock(t->lock);
	Py_XDECREF(t->processes);
	Py_XDECREF(t->threads);
	Py_XDECREF(t->series);
	PyObject_Free(self);
}

/* The name of channel `c`; the name of name id `id` (lock held). */
static PyObject *channel_text(trace_obj *t, uint32_t c)
{
	return text(c < t->n_channels ? t->channels[c].name : "?");
}

static PyObject *name_text(trace_obj *t, uint32_t id)
{
	return text(id == TSR_TRACE_NO_NAME ? NULL : tsr_trace_get_name(t->trace, id));
}

/* --- Statistics ---------------------------------------------------------------- */

/* labelStats(thread=None, fromNs=None, toNs=None, median=True) -> [LabelStat]:
 * spans starting in the window, largest total first. */
static PyObject *trace_label_stats(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"thread", "fromNs", "toNs", "median", NULL};
	trace_obj *t = (trace_obj *)self;
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *s = NULL;
	size_t n = 0;
	int median = 1, rc;
	char msg[512];
	view v;
	PyObject *list;

	if (!view_args(args, kwargs, &v, "|O&O&O&$p:labelStats", kw, &median))
		return NULL;
	VIEW_INTO(o, v);
	o.median = median;
	TRACE_CALL(t, rc, msg, tsr_trace_list_label_stats(&s, &n, t->trace, &o));
	if (rc != TSR_OK)
		return fail(rc, msg);
	tspy_acquire(t->lock);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++)
		put(&list, (Py_ssize_t)i,
		    record(&label_type, "(NNKKKdNOKK)", channel_text(t, s[i].channel),
		           name_text(t, s[i].name), (unsigned long long)s[i].count,
		           (unsigned long long)s[i].total_ns, (unsigned long long)s[i].self_ns,
		           s[i].mean_ns,
		           median ? PyLong_FromUnsignedLongLong(s[i].median_ns) : Py_NewRef(Py_None),
		           median && s[i].median_exact ? Py_True : Py_False,
		           (unsigned long long)s[i].min_ns, (unsigned long long)s[i].max_ns));
	PyThread_release_lock(t->lock);
	free(s);
	return list;
}

/* SpanTotals records of totals[0..n). */
static PyObject *span_totals(const tsr_trace_span_totals *totals, size_t n)
{
	PyObject *tuple = PyTuple_New((Py_ssize_t)n);

	for (size_t i = 0; tuple && i < n; i++) {
		const tsr_trace_span_totals *s = &totals[i];

		put(&tuple, (Py_ssize_t)i,
		    record(&span_totals_type, "(KKNN)", (unsigned long long)s->spans,
		           (unsigned long long)s->busy_ns, maybe_ns(s->spans > 0, s->first_ns),
		           maybe_ns(s->spans > 0, s->last_ns)));
	}
	return tuple;
}

/* totals(thread=None, fromNs=None, toNs=None) -> TraceTotals: per process,
 * thread and channel, as `tilescope trace` lists them. */
static PyObject *trace_totals(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"thread", "fromNs", "toNs", NULL};
	trace_obj *t = (trace_obj *)self;
	tsr_trace_totals_options o = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_totals *tot = NULL;
	PyObject *channels, *r = NULL;
	char msg[512];
	int rc;
	view v;

	if (!view_args(args, kwargs, &v, "|O&O&O&:totals", kw))
		return NULL;
	VIEW_INTO(o, v);
	TRACE_CALL(t, rc, msg, tsr_trace_totals_new(&tot, t->trace, &o));
	if (rc != TSR_OK)
		return fail(rc, msg);
	channels = PyDict_New();
	for (size_t c = 0; channels && c < tot->n_channels && c < t->n_channels; c++) {
		PyObject *ct;

		if (!tot->channels[c].spans)
			continue;
		ct = record(&channel_totals_type, "(KK)", (unsigned long long)tot->channels[c].spans,
		            (unsigned long long)tot->channels[c].self_ns);
		if (!ct || PyDict_SetItemString(channels, t->channels[c].name, ct) < 0)
			Py_CLEAR(channels);
		Py_XDECREF(ct);
	}
	if (channels)
		r = record(&totals_type, "(KKNNN)", (unsigned long long)tot->spans,
		           (unsigned long long)tot->self_ns, span_totals(tot->processes, tot->n_processes),
		           span_totals(tot->threads, tot->n_threads), channels);
	tsr_trace_totals_free(tot);
	return r;
}

/* --- Spans ------------------------------------------------------------------------ */

/* The spans of one thread in a window: reportlib's array, made into Span
 * records one at a time. */
typedef struct {
	PyObject_HEAD
	trace_obj *trace;
	tsr_trace_item *items;
	Py_ssize_t n;
	Py_ssize_t thread;
} span_list_obj;

/* spans(thread, fromNs=None, toNs=None, resolutionNs=0) -> SpanList: the
 * spans of `thread` in the window (each one at resolution 0; merged runs
 * and summaries at a coarser one, as tsr_trace_list_events), by depth
 * then start. */
static PyObject *trace_spans(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"thread", "fromNs", "toNs", "resolutionNs", NULL};
	trace_obj *t = (trace_obj *)self;
	unsigned long long resolution = 0;
	tsr_trace_item *items = NULL;
	span_list_obj *l;
	size_t n = 0;
	char msg[512];
	int rc;
	view v;

	if (!view_args(args, kwargs, &v, "O&|O&O&$K:spans", kw, &resolution))
		return NULL;
	if (v.thread < 0 || (size_t)v.thread >= t->n_threads)
		return PyErr_Format(PyExc_IndexError, "thread %lld: the trace has %zu thread(s)",
		                    (long long)v.thread, t->n_threads);
	TRACE_CALL(t, rc, msg, tsr_trace_list_events(&items, &n, t->trace, (size_t)v.thread,
	                                             v.from_ns, v.to_ns, resolution));
	if (rc != TSR_OK)
		return fail(rc, msg);
	if (!(l = PyObject_New(span_list_obj, &span_list_type))) {
		free(items);
		return NULL;
	}
	l->trace = (trace_obj *)Py_NewRef(self);
	l->items = items;
	l->n = (Py_ssize_t)n;
	l->thread = (Py_ssize_t)v.thread;
	return (PyObject *)l;
}

static void span_list_dealloc(PyObject *self)
{
	span_list_obj *l = (span_list_obj *)self;

	free(l->items);
	Py_DECREF(l->trace);
	PyObject_Free(self);
}

static Py_ssize_t span_list_len(PyObject *self)
{
	return ((span_list_obj *)self)->n;
}

/* Span i (0 <= i < n). */
static PyObject *span_at(span_list_obj *l, Py_ssize_t i)
{
	static const char *const kinds[] = {"event", "merged", "summary"};
	const tsr_trace_item *it = &l->items[i];
	PyObject *r;

	tspy_acquire(l->trace->lock);
	r = record(&span_type, "(nLLNNILLKKs)", l->thread, (long long)it->seq, (long long)it->parent,
	           name_text(l->trace, it->name), channel_text(l->trace, it->channel), it->depth,
	           (long long)it->start_ns, (long long)it->end_ns, (unsigned long long)it->count,
	           (unsigned long long)it->busy_ns, kinds[it->kind <= 2 ? it->kind : 2]);
	PyThread_release_lock(l->trace->lock);
	return r;
}

static PyObject *span_list_item(PyObject *self, Py_ssize_t i)
{
	span_list_obj *l = (span_list_obj *)self;

	if (i < 0 || i >= l->n)
		return PyErr_Format(PyExc_IndexError, "span %zd of %zd", i, l->n);
	return span_at(l, i);
}

/* l[i] (negative counts from the end) or l[a:b:c] (a list). */
static PyObject *span_list_subscript(PyObject *self, PyObject *key)
{
	span_list_obj *l = (span_list_obj *)self;
	Py_ssize_t start, stop, step, n;
	PyObject *list;

	if (!PySlice_Check(key)) {
		Py_ssize_t i = PyNumber_AsSsize_t(key, PyExc_IndexError);

		if (i == -1 && PyErr_Occurred())
			return NULL;
		return span_list_item(self, i < 0 ? i + l->n : i);
	}
	if (PySlice_Unpack(key, &start, &stop, &step) < 0)
		return NULL;
	n = PySlice_AdjustIndices(l->n, &start, &stop, step);
	list = PyList_New(n);
	for (Py_ssize_t k = 0; list && k < n; k++)
		put(&list, k, span_at(l, start + k * step));
	return list;
}

static PySequenceMethods span_list_seq = {.sq_length = span_list_len, .sq_item = span_list_item};
static PyMappingMethods span_list_map = {.mp_length = span_list_len,
                                         .mp_subscript = span_list_subscript};

static PyTypeObject span_list_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope.SpanList",
	.tp_basicsize = sizeof(span_list_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_SEQUENCE,
	.tp_doc = "The spans of a thread in a window: a lazy sequence of Span records.",
	.tp_dealloc = span_list_dealloc,
	.tp_as_sequence = &span_list_seq,
	.tp_as_mapping = &span_list_map,
};

/* eventMetadata(thread, seq) -> the JSON text attached to a span, or None. */
static PyObject *trace_event_metadata(PyObject *self, PyObject *args)
{
	trace_obj *t = (trace_obj *)self;
	Py_ssize_t thread;
	long long seq;
	char *json = NULL, msg[512];
	PyObject *r;
	int rc;

	if (!PyArg_ParseTuple(args, "nL:eventMetadata", &thread, &seq))
		return NULL;
	if (thread < 0)
		return fail(TSR_ERR_OUT_OF_RANGE, "a thread index is >= 0");
	TRACE_CALL(t, rc, msg, tsr_trace_dup_event_metadata(&json, t->trace, (size_t)thread, seq));
	if (rc != TSR_OK)
		return fail(rc, msg);
	r = text(json);
	free(json);
	return r;
}

/* instants(thread=None, fromNs=None, toNs=None, limit=0) -> [Instant], in
 * time order, the earliest `limit` (0: all). */
static PyObject *trace_instants(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"thread", "fromNs", "toNs", "limit", NULL};
	trace_obj *t = (trace_obj *)self;
	tsr_trace_instant *in = NULL;
	Py_ssize_t limit = 0;
	PyObject *list;
	size_t n = 0;
	char msg[512];
	int rc;
	view v;

	if (!view_args(args, kwargs, &v, "|O&O&O&$n:instants", kw, &limit))
		return NULL;
	TRACE_CALL(t, rc, msg, tsr_trace_list_instants(&in, &n, t->trace, v.thread, v.from_ns,
	                                               v.to_ns, limit > 0 ? (size_t)limit : 0));
	if (rc != TSR_OK)
		return fail(rc, msg);
	tspy_acquire(t->lock);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++)
		put(&list, (Py_ssize_t)i,
		    record(&instant_type, "(LnNNIL)", (long long)in[i].t_ns, (Py_ssize_t)in[i].thread,
		           channel_text(t, in[i].channel), name_text(t, in[i].name), in[i].depth,
		           (long long)in[i].parent));
	PyThread_release_lock(t->lock);
	free(in);
	return list;
}

/* --- Counters -------------------------------------------------------------------- */

/* The window of a counter or heatmap query (`tilescope trace`'s): the
 * whole trace, its end included, where v leaves it open. v->thread holds
 * the series or heatmap, which must be >= 0. */
static int counter_window(trace_obj *t, view *v)
{
	if (v->from_ns == INT64_MIN)
		v->from_ns = t->start_ns;
	if (v->to_ns == INT64_MAX)
		v->to_ns = t->end_ns + 1;
	if (v->to_ns <= v->from_ns)
		v->to_ns = v->from_ns + 1;
	if (v->thread >= 0)
		return 0;
	fail(TSR_ERR_OUT_OF_RANGE, "an index is >= 0");
	return -1;
}

/* counterBuckets(series, fromNs=None, toNs=None, bucketNs=0) -> [CounterBucket]:
 * the samples of series `series` (an index into Trace.series) in buckets
 * of bucketNs from fromNs, those holding a sample. The window defaults
 * to the whole trace (its end included), bucketNs 0 to the window: one
 * bucket with the samples, minimum and maximum `tilescope trace` shows. */
static PyObject *trace_counter_buckets(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"series", "fromNs", "toNs", "bucketNs", NULL};
	trace_obj *t = (trace_obj *)self;
	tsr_trace_counter_bucket *b = NULL;
	unsigned long long bucket = 0;
	PyObject *list;
	size_t n = 0;
	char msg[512];
	int rc;
	view v;

	if (!view_args(args, kwargs, &v, "O&|O&O&$K:counterBuckets", kw, &bucket) ||
	    counter_window(t, &v) < 0)
		return NULL;
	TRACE_CALL(t, rc, msg, tsr_trace_list_counter_buckets(
	                           &b, &n, NULL, t->trace, (size_t)v.thread, v.from_ns, v.to_ns,
	                           bucket ? bucket : (uint64_t)(v.to_ns - v.from_ns)));
	if (rc != TSR_OK)
		return fail(rc, msg);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++)
		put(&list, (Py_ssize_t)i,
		    record(&bucket_type, "(LLKdddd)", (long long)b[i].from_ns, (long long)b[i].to_ns,
		           (unsigned long long)b[i].count, b[i].min, b[i].max, b[i].first, b[i].last));
	free(b);
	return list;
}

/* heatmaps -> (TraceHeatmap, ...), read when first asked for. */
static PyObject *trace_get_heatmaps(PyObject *self, void *unused)
{
	trace_obj *t = (trace_obj *)self;
	const tsr_trace_heatmap *h = NULL;
	PyObject *tuple;
	size_t n = 0;
	char msg[512];
	int rc;

	TRACE_CALL(t, rc, msg, tsr_trace_get_heatmaps(&h, &n, t->trace));
	if (rc != TSR_OK)
		return fail(rc, msg);
	tspy_acquire(t->lock);
	tuple = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; tuple && i < n; i++) {
		PyObject *edges = PyTuple_New((Py_ssize_t)h[i].n_edges);

		for (size_t e = 0; edges && e < h[i].n_edges; e++)
			put(&edges, (Py_ssize_t)e, PyFloat_FromDouble(h[i].edges[e]));
		put(&tuple, (Py_ssize_t)i,
		    edges ? record(&heatmap_type, "(nnNNNKNNK)", (Py_ssize_t)i, (Py_ssize_t)h[i].process,
		                   text(h[i].name), text(h[i].unit), edges,
		                   (unsigned long long)h[i].samples, maybe_ns(h[i].samples > 0, h[i].first_ns),
		                   maybe_ns(h[i].samples > 0, h[i].last_ns),
		                   (unsigned long long)h[i].skipped)
		          : NULL);
	}
	PyThread_release_lock(t->lock);
	return tuple;
}

/* The counts of heatmap v->thread in *c, its buckets in *buckets (0: no
 * such heatmap); the lock held. */
static int heatmap_counts(trace_obj *t, const view *v, size_t columns, uint64_t **c,
                          size_t *buckets)
{
	const tsr_trace_heatmap *h;
	size_t n;
	int rc = tsr_trace_get_heatmaps(&h, &n, t->trace);

	if (rc != TSR_OK || (size_t)v->thread >= n)
		return rc != TSR_OK ? rc : TSR_ERR_OUT_OF_RANGE;
	*buckets = h[v->thread].n_edges + 1;
	return tsr_trace_list_heatmap_counts(c, t->trace, (size_t)v->thread, v->from_ns, v->to_ns,
	                                     columns);
}

/* heatmapCounts(heatmap, fromNs=None, toNs=None, columns=1) -> [[count per
 * bucket] per column]: the window (as counterBuckets') cut into `columns`
 * equal columns. */
static PyObject *trace_heatmap_counts(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"heatmap", "fromNs", "toNs", "columns", NULL};
	trace_obj *t = (trace_obj *)self;
	Py_ssize_t columns = 1;
	size_t buckets = 0;
	uint64_t *c = NULL;
	PyObject *list;
	char msg[512];
	int rc;
	view v;

	if (!view_args(args, kwargs, &v, "O&|O&O&$n:heatmapCounts", kw, &columns) ||
	    counter_window(t, &v) < 0)
		return NULL;
	if (columns < 1)
		return PyErr_Format(PyExc_ValueError, "columns must be at least 1");
	TRACE_CALL(t, rc, msg, heatmap_counts(t, &v, (size_t)columns, &c, &buckets));
	if (rc != TSR_OK)
		return fail(rc, buckets ? msg : "no such heatmap");
	list = PyList_New(columns);
	for (Py_ssize_t col = 0; list && col < columns; col++) {
		PyObject *row = PyList_New((Py_ssize_t)buckets);

		for (size_t b = 0; row && b < buckets; b++)
			put(&row, (Py_ssize_t)b, PyLong_FromUnsignedLongLong(c[(size_t)col * buckets + b]));
		put(&list, col, row);
	}
	free(c);
	return list;
}

/* --- Call tree ------------------------------------------------------------------- */

/* CallNode `i` of `tree` with its children (lock held). */
static PyObject *call_node(trace_obj *t, const tsr_trace_call_tree *tree, size_t i)
{
	const tsr_trace_call_node *nd = &tree->nodes[i];
	PyObject *kids = PyTuple_New((Py_ssize_t)nd->n_children);

	for (size_t k = 0; kids && k < nd->n_children; k++)
		put(&kids, (Py_ssize_t)k, call_node(t, tree, nd->first_child + k));
	return kids ? record(&call_node_type, "(NNKKKN)", channel_text(t, nd->channel),
	                     name_text(t, nd->name), (unsigned long long)nd->count,
	                     (unsigned long long)nd->inclusive_ns,
	                     (unsigned long long)nd->exclusive_ns, kids)
	            : NULL;
}

/* callTree(thread=None, fromNs=None, toNs=None) -> CallTree: one node per
 * path of labels, roots and children by inclusive time. */
static PyObject *trace_call_tree(PyObject *self, PyObject *args, PyObject *kwargs)
{
	static char *kw[] = {"thread", "fromNs", "toNs", NULL};
	trace_obj *t = (trace_obj *)self;
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	tsr_trace_call_tree *tree = NULL;
	PyObject *roots, *r = NULL;
	char msg[512];
	int rc;
	view v;

	if (!view_args(args, kwargs, &v, "|O&O&O&:callTree", kw))
		return NULL;
	VIEW_INTO(o, v);
	TRACE_CALL(t, rc, msg, tsr_trace_call_tree_new(&tree, t->trace, &o));
	if (rc != TSR_OK)
		return fail(rc, msg);
	tspy_acquire(t->lock);
	roots = PyTuple_New((Py_ssize_t)tree->n_roots);
	for (size_t i = 0; roots && i < tree->n_roots; i++)
		put(&roots, (Py_ssize_t)i, call_node(t, tree, i));
	PyThread_release_lock(t->lock);
	if (roots)
		r = record(&call_tree_type, "(KKN)", (unsigned long long)tree->spans,
		           (unsigned long long)tree->inclusive_ns, roots);
	tsr_trace_call_tree_free(tree);
	return r;
}

/* --- The type and the module -------------------------------------------------------- */

static PyObject *trace_get_channels(PyObject *self, void *unused)
{
	trace_obj *t = (trace_obj *)self;
	PyObject *tuple = PyTuple_New((Py_ssize_t)t->n_channels);

	for (size_t i = 0; tuple && i < t->n_channels; i++)
		put(&tuple, (Py_ssize_t)i, text(t->channels[i].name));
	return tuple;
}

static PyMethodDef trace_methods[] = {
	{"labelStats", (PyCFunction)(void (*)(void))trace_label_stats, METH_VARARGS | METH_KEYWORDS,
	 "labelStats(thread=None, fromNs=None, toNs=None, median=True) -> [LabelStat]"},
	{"totals", (PyCFunction)(void (*)(void))trace_totals, METH_VARARGS | METH_KEYWORDS,
	 "totals(thread=None, fromNs=None, toNs=None) -> TraceTotals"},
	{"spans", (PyCFunction)(void (*)(void))trace_spans, METH_VARARGS | METH_KEYWORDS,
	 "spans(thread, fromNs=None, toNs=None, resolutionNs=0) -> SpanList"},
	{"eventMetadata", trace_event_metadata, METH_VARARGS,
	 "eventMetadata(thread, seq) -> the span's JSON metadata, or None"},
	{"instants", (PyCFunction)(void (*)(void))trace_instants, METH_VARARGS | METH_KEYWORDS,
	 "instants(thread=None, fromNs=None, toNs=None, limit=0) -> [Instant]"},
	{"counterBuckets", (PyCFunction)(void (*)(void))trace_counter_buckets,
	 METH_VARARGS | METH_KEYWORDS,
	 "counterBuckets(series, fromNs=None, toNs=None, bucketNs=0) -> [CounterBucket]"},
	{"heatmapCounts", (PyCFunction)(void (*)(void))trace_heatmap_counts,
	 METH_VARARGS | METH_KEYWORDS,
	 "heatmapCounts(heatmap, fromNs=None, toNs=None, columns=1) -> [[count per bucket]]"},
	{"callTree", (PyCFunction)(void (*)(void))trace_call_tree, METH_VARARGS | METH_KEYWORDS,
	 "callTree(thread=None, fromNs=None, toNs=None) -> CallTree"},
	{0},
};

static PyMemberDef trace_members[] = {
	{"processes", T_OBJECT, offsetof(trace_obj, processes), READONLY, "TraceProcess per file"},
	{"threads", T_OBJECT, offsetof(trace_obj, threads), READONLY, "TraceThread per thread"},
	{"series", T_OBJECT, offsetof(trace_obj, series), READONLY, "TraceSeries per counter"},
	{"startNs", T_LONGLONG, offsetof(trace_obj, start_ns), READONLY, "earliest event"},
	{"endNs", T_LONGLONG, offsetof(trace_obj, end_ns), READONLY, "latest event"},
	{"originWallNs", T_LONGLONG, offsetof(trace_obj, origin_wall_ns), READONLY,
	 "time 0 in ns since 1970"},
	{"spanCount", T_ULONGLONG, offsetof(trace_obj, spans), READONLY, "spans of all threads"},
	{"complete", T_BOOL, offsetof(trace_obj, complete), READONLY, "every file closed cleanly"},
	{0},
};

static PyGetSetDef trace_getset[] = {
	{"channels", trace_get_channels, NULL, "channel names, merged across files", NULL},
	{"heatmaps", trace_get_heatmaps, NULL, "TraceHeatmap per heatmap", NULL},
	{0},
};

static PyTypeObject trace_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope.Trace",
	.tp_basicsize = sizeof(trace_obj),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One or more .pvti traces of one job on one time axis (openTrace).",
	.tp_dealloc = trace_dealloc,
	.tp_methods = trace_methods,
	.tp_members = trace_members,
	.tp_getset = trace_getset,
};

static PyMethodDef module_methods[] = {
	{"openTrace", open_trace, METH_VARARGS,
	 "openTrace(*paths) -> Trace: .pvti files, Chrome trace-event JSON or directories"},
	{0},
};

static struct PyModuleDef trace_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "tilescope._trace",
	.m_doc = "Reading .pvti traces through reportlib (tilescope.openTrace).",
	.m_size = -1,
	.m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__trace(void);
PyMODINIT_FUNC PyInit__trace(void)
{
	PyObject *m, *native = PyImport_ImportModule("tilescope._native");

	if (!native)
		return NULL;
	trace_error = PyObject_GetAttrString(native, "Error");
	Py_DECREF(native);
	if (!trace_error || PyType_Ready(&trace_type) < 0 || PyType_Ready(&span_list_type) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++)
		if (!records[i].type->tp_name &&
		    PyStructSequence_InitType2(records[i].type, &records[i].desc) < 0)
			return NULL;
	if (!(m = PyModule_Create(&trace_module)))
		return NULL;
	if (PyModule_AddObjectRef(m, "Trace", (PyObject *)&trace_type) < 0 ||
	    PyModule_AddObjectRef(m, "SpanList", (PyObject *)&span_list_type) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
