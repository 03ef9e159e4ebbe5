/*
 * tilescope._native.Report: one reportlib handle and one call per item
 * (a tile, a liveness step, a program ...), so that pva.py's sequences
 * fetch on demand. Each method holds the report's lock (native.h); the
 * long ones (summary, query) also let go of the GIL.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

int tspy_lock(tspy_report *r)
{
	tspy_acquire(r->lock);
	if (r->report)
		return 0;
	PyThread_release_lock(r->lock);
	PyErr_SetString(tspy_error, "the report is closed");
	return -1;
}

void tspy_unlock(tspy_report *r)
{
	PyThread_release_lock(r->lock);
}

/* Raises the handle's message for `rc` (TSR_ERR_OUT_OF_RANGE as
 * IndexError, so that Python's sequence protocol sees the end), unlocks,
 * returns NULL. */
static PyObject *fail(tspy_report *r, int rc)
{
	if (rc == TSR_ERR_OUT_OF_RANGE)
		PyErr_SetString(PyExc_IndexError, tsr_report_error(r->report));
	else
		tspy_raise(tsr_report_error(r->report));
	tspy_unlock(r);
	return NULL;
}

/* Unlocks and hands back `o`. */
static PyObject *done(tspy_report *r, PyObject *o)
{
	tspy_unlock(r);
	return o;
}

/* Raises IndexError unless i < n (the unsigned form catches negatives). */
static int check_index(Py_ssize_t i, size_t n)
{
	if ((size_t)i < n)
		return 0;
	PyErr_SetString(PyExc_IndexError, "index out of range");
	return -1;
}

/* The index `arg` into *i, then the report's lock; -1 with an error set. */
static int lock_index(tspy_report *r, PyObject *arg, Py_ssize_t *i)
{
	*i = PyLong_AsSsize_t(arg);
	return (*i == -1 && PyErr_Occurred()) || tspy_lock(r) ? -1 : 0;
}

/* A list of Python ints from `n` uint64 values. */
static PyObject *u64_list(const uint64_t *v, size_t n)
{
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		PyObject *x = PyLong_FromUnsignedLongLong(v[i]);
		if (!x) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, x);
	}
	return l;
}

static void report_dealloc(tspy_report *r)
{
	tsr_report_free(r->report);
	free(r->always_live);
	free(r->categories);
	if (r->lock)
		PyThread_free_lock(r->lock);
	PyObject_Free(r);
}

/* close(): frees the handle now (again: nothing); later calls raise
 * Error. */
static PyObject *m_close(tspy_report *r, PyObject *unused)
{
	if (tspy_lock(r))
		PyErr_Clear();
	else {
		tsr_report_free(r->report);
		r->report = NULL;
		tspy_unlock(r);
	}
	Py_RETURN_NONE;
}

static PyObject *m_target(tspy_report *r, PyObject *unused)
{
	if (tspy_lock(r))
		return NULL;
	const tsr_target *t = tsr_report_get_target(r->report);
	return done(r, Py_BuildValue("{s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:K,s:K,s:K,s:K}", "type",
	                             t->type, "name", t->name, "arch", t->version_name, "numIPUs",
	                             t->num_ipus, "tilesPerIpu", t->tiles_per_ipu, "numTiles",
	                             t->num_tiles, "numReplicas", t->replication_factor,
	                             "numWorkerContexts", t->num_worker_contexts, "bytesPerTile",
	                             (unsigned long long)t->bytes_per_tile, "bytesPerIPU",
	                             (unsigned long long)t->bytes_per_ipu, "totalMemory",
	                             (unsigned long long)t->total_memory, "clockFrequency",
	                             (unsigned long long)t->clock_frequency));
}

static PyObject *m_info(tspy_report *r, PyObject *unused)
{
	if (tspy_lock(r))
		return NULL;
	const tsr_report_info *i = tsr_report_get_info(r->report);
	const tsr_graph_counts *c = tsr_report_get_counts(r->report);
	return done(r, Py_BuildValue("{s:s,s:z,s:s,s:K,s:K,s:K,s:K,s:n,s:n,s:n,s:n,s:n,s:n}",
	                             "version", i->tilescope_version, "debugPath",
	                             tsr_report_get_debug_info_path(r->report), "profiler",
	                             i->profiler_name, "numVertices",
	                             (unsigned long long)c->vertices, "numEdges",
	                             (unsigned long long)c->edges, "numVariables",
	                             (unsigned long long)c->variables, "numComputeSets",
	                             (unsigned long long)c->compute_sets, "programs", c->programs,
	                             "computeSets", (Py_ssize_t)c->compute_sets, "variables",
	                             c->listed_variables, "livenessSteps",
	                             c->liveness_steps, "operations", c->debug_contexts, "runs",
	                             c->runs));
}

/* Reads r->always_live (`categories` false) or r->categories on first
 * use. */
static int load_by_tile(tspy_report *r, bool categories)
{
	uint64_t **out = categories ? &r->categories : &r->always_live;
	if (*out)
		return TSR_OK;
	size_t tiles = tsr_report_get_target(r->report)->num_tiles;
	size_t nc = categories ? tsr_category_count() : 1;
	uint64_t *v = calloc(tiles * nc + 1, sizeof(*v));
	if (!v)
		return TSR_ERR_NO_MEMORY;
	int rc = categories ? TSR_OK : tsr_report_fill_always_live_by_tile(v, tiles, r->report);
	for (size_t c = 0; categories && rc == TSR_OK && c < nc; c++)
		rc = tsr_report_fill_category_by_tile(v + c * tiles, tiles, r->report, c);
	if (rc != TSR_OK)
		free(v);
	else
		*out = v;
	return rc;
}

/* The tile memory of tile `arg` into *m (and its index into *i), after
 * loading the always-live bytes (`load` 1) or the categories' (2);
 * locked on success. */
static int get_tile(const tsr_tile_memory **m, Py_ssize_t *i, tspy_report *r, PyObject *arg,
                    int load)
{
	size_t n;
	if (lock_index(r, arg, i))
		return -1;
	int rc = tsr_report_get_tile_memory(m, &n, r->report);
	if (rc == TSR_OK && load)
		rc = load_by_tile(r, load == 2);
	if (rc != TSR_OK)
		return fail(r, rc), -1;
	if (check_index(*i, n))
		return done(r, NULL), -1;
	*m += *i;
	return 0;
}

/* tile(i) -> (including gaps, excluding gaps, region bytes, region bytes
 * including gaps), regions in vocabulary() order. */
static PyObject *m_tile(tspy_report *r, PyObject *arg)
{
	const tsr_tile_memory *m;
	Py_ssize_t i;
	if (get_tile(&m, &i, r, arg, 0))
		return NULL;
	PyObject *regions = u64_list(m->region, TSR_REGION_COUNT);
	PyObject *gaps = u64_list(m->region_including_gaps, TSR_REGION_COUNT);
	return done(r, regions && gaps ? Py_BuildValue("(KKNN)",
	                                               (unsigned long long)m->total_including_gaps,
	                                               (unsigned long long)m->total, regions, gaps)
	                               : (Py_XDECREF(regions), Py_XDECREF(gaps), NULL));
}

/* tile_always_live(i) -> the always-live bytes of tile i. */
static PyObject *m_tile_always_live(tspy_report *r, PyObject *arg)
{
	const tsr_tile_memory *m;
	Py_ssize_t i;
	if (get_tile(&m, &i, r, arg, 1))
		return NULL;
	return done(r, PyLong_FromUnsignedLongLong(r->always_live[i]));
}

/* tile_categories(i) -> each category's bytes on tile i, in vocabulary()
 * order. */
static PyObject *m_tile_categories(tspy_report *r, PyObject *arg)
{
	const tsr_tile_memory *m;
	Py_ssize_t i;
	if (get_tile(&m, &i, r, arg, 2))
		return NULL;
	size_t nc = tsr_category_count(), n = tsr_report_get_target(r->report)->num_tiles;
	PyObject *l = PyList_New((Py_ssize_t)nc);
	for (size_t c = 0; l && c < nc; c++) {
		PyObject *x = PyLong_FromUnsignedLongLong(r->categories[c * n + (size_t)i]);
		if (!x) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)c, x);
	}
	return done(r, l);
}

/* memory_totals(ipu) -> tsr_memory_totals as a dict (ipu -1: all). */
static PyObject *m_memory_totals(tspy_report *r, PyObject *arg)
{
	int ipu = PyLong_AsLong(arg);
	if (ipu == -1 && PyErr_Occurred())
		return NULL;
	if (tspy_lock(r))
		return NULL;
	tsr_memory_totals t;
	int rc = tsr_report_fill_memory_totals(&t, r->report, ipu);
	if (rc != TSR_OK)
		return fail(r, rc);
	return done(r, Py_BuildValue("{s:K,s:K,s:K,s:I,s:K,s:I,s:K,s:K}", "capacity",
	                             (unsigned long long)t.capacity, "excludingGaps",
	                             (unsigned long long)t.total, "includingGaps",
	                             (unsigned long long)t.total_including_gaps, "maxTile",
	                             t.max_tile, "maxMemory", (unsigned long long)t.max_tile_bytes,
	                             "maxTileExcludingGaps", t.max_tile_excluding_gaps,
	                             "maxMemoryExcludingGaps",
	                             (unsigned long long)t.max_tile_excluding_gaps_bytes,
	                             "minMemory", (unsigned long long)t.min_tile_bytes));
}

/* liveness_step(i) -> (program, parent, depth, not-always-live bytes) */
static PyObject *m_liveness_step(tspy_report *r, PyObject *arg)
{
	Py_ssize_t i;
	if (lock_index(r, arg, &i))
		return NULL;
	const tsr_liveness_step *s;
	size_t n;
	int rc = tsr_report_get_liveness_steps(&s, &n, r->report);
	if (rc != TSR_OK)
		return fail(r, rc);
	if (check_index(i, n))
		return done(r, NULL);
	return done(r, Py_BuildValue("(ILIK)", s[i].program, (long long)s[i].parent, s[i].depth,
	                             (unsigned long long)s[i].not_always_live));
}

/* live_variables(step) -> indexes of the variables live at `step`
 * (always-live ones included), largest first. */
static PyObject *m_live_variables(tspy_report *r, PyObject *arg)
{
	Py_ssize_t step;
	if (lock_index(r, arg, &step))
		return NULL;
	size_t *v = NULL, n = 0;
	int rc = step < 0 ? TSR_ERR_OUT_OF_RANGE
	                  : tsr_report_list_live_variables(&v, &n, r->report, (size_t)step);
	if (rc != TSR_OK)
		return fail(r, rc);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		PyObject *x = PyLong_FromSize_t(v[i]);
		if (!x) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, x);
	}
	free(v);
	return done(r, l);
}

/* liveness_by(step, per_ipu) -> not-always-live bytes at `step` by tile
 * (or by IPU). */
static PyObject *m_liveness_by(tspy_report *r, PyObject *args)
{
	Py_ssize_t step;
	int per_ipu;
	if (!PyArg_ParseTuple(args, "np:liveness_by", &step, &per_ipu))
		return NULL;
	if (tspy_lock(r))
		return NULL;
	const tsr_target *t = tsr_report_get_target(r->report);
	size_t n = per_ipu ? t->num_ipus : t->num_tiles;
	uint64_t *v = calloc(n + 1, sizeof(*v));
	if (!v)
		return done(r, PyErr_NoMemory());
	int rc = step < 0 ? TSR_ERR_OUT_OF_RANGE
	         : per_ipu ? tsr_report_fill_liveness_by_ipu(v, n, r->report, (size_t)step)
	                   : tsr_report_fill_liveness_by_tile(v, n, r->report, (size_t)step);
	PyObject *l = rc == TSR_OK ? u64_list(v, n) : NULL;
	free(v);
	return rc == TSR_OK ? done(r, l) : fail(r, rc);
}

/* liveness() -> (always-live bytes, peak step, peak bytes) */
static PyObject *m_liveness(tspy_report *r, PyObject *unused)
{
	if (tspy_lock(r))
		return NULL;
	size_t step = 0;
	uint64_t bytes = 0;
	int rc = tsr_report_get_peak_liveness(&step, &bytes, r->report);
	if (rc != TSR_OK && rc != TSR_ERR_NO_DATA)
		return fail(r, rc);
	return done(r, Py_BuildValue("(KnK)",
	                             (unsigned long long)tsr_report_get_always_live_bytes(r->report),
	                             rc == TSR_OK ? (Py_ssize_t)step : -1, (unsigned long long)bytes));
}

/* variable(i) -> (id, name, category, data type, shape, bytes, tiles,
 * always live, live from, live to, debug context) */
static PyObject *m_variable(tspy_report *r, PyObject *arg)
{
	Py_ssize_t i;
	if (lock_index(r, arg, &i))
		return NULL;
	const tsr_variable *v;
	size_t n;
	int rc = tsr_report_get_variables(&v, &n, r->report);
	if (rc != TSR_OK)
		return fail(r, rc);
	if (check_index(i, n))
		return done(r, NULL);
	v += i;
	return done(r, Py_BuildValue("(IzszzKIOLLL)", v->id, v->name,
	                             tsr_category_name(v->mem_category), v->data_type_name, v->shape,
	                             (unsigned long long)v->bytes, v->tiles,
	                             v->always_live ? Py_True : Py_False, (long long)v->live_from,
	                             (long long)v->live_to, (long long)v->debug_context));
}

/* program(i) -> (type, name, children, compute set, exchange, exchange
 * kind, function, sync, repeat count, code bytes, debug context) */
static PyObject *m_program(tspy_report *r, PyObject *arg)
{
	Py_ssize_t i;
	if (lock_index(r, arg, &i))
		return NULL;
	const tsr_program *p;
	size_t n;
	int rc = tsr_report_get_programs(&p, &n, r->report);
	if (rc != TSR_OK)
		return fail(r, rc);
	if (check_index(i, n))
		return done(r, NULL);
	p += i;
	PyObject *kids = PyTuple_New((Py_ssize_t)p->n_children);
	for (size_t k = 0; kids && k < p->n_children; k++) {
		PyObject *x = PyLong_FromUnsignedLong(p->children[k]);
		if (!x) {
			Py_CLEAR(kids);
			break;
		}
		PyTuple_SET_ITEM(kids, (Py_ssize_t)k, x);
	}
	if (!kids)
		return done(r, NULL);
	return done(r, Py_BuildValue("(zzNLLzLzKKL)", tsr_program_type_name(p->program_type),
	                             p->name, kids, (long long)p->compute_set,
	                             (long long)p->exchange,
	                             p->exchange < 0 ? NULL : tsr_exchange_kind_name(p->exchange_kind),
	                             (long long)p->function, tsr_sync_type_name(p->sync),
	                             (unsigned long long)p->repeat_count,
	                             (unsigned long long)p->code_bytes, (long long)p->debug_context));
}

/* cycle_estimate(program) -> the slowest tile's cycles, or None for a
 * program without a per-tile estimate. */
static PyObject *m_cycle_estimate(tspy_report *r, PyObject *arg)
{
	Py_ssize_t i;
	if (lock_index(r, arg, &i))
		return NULL;
	tsr_cycle_estimate e;
	int rc = i < 0 ? TSR_ERR_OUT_OF_RANGE
	               : tsr_report_fill_program_cycle_estimate(&e, r->report, (size_t)i);
	if (rc == TSR_ERR_NO_DATA)
		return done(r, Py_NewRef(Py_None));
	return rc == TSR_OK ? done(r, PyLong_FromUnsignedLongLong(e.cycles)) : fail(r, rc);
}

/* compute_set(i) -> (name, tiles, vertices, cycles, cycles summed over
 * tiles, active cycles, active summed, flops, debug context) */
static PyObject *m_compute_set(tspy_report *r, PyObject *arg)
{
	Py_ssize_t i;
	if (lock_index(r, arg, &i))
		return NULL;
	const tsr_compute_set *c;
	size_t n;
	int rc = tsr_report_get_compute_sets(&c, &n, r->report);
	if (rc != TSR_OK)
		return fail(r, rc);
	if (check_index(i, n))
		return done(r, NULL);
	c += i;
	return done(r, Py_BuildValue("(zIKKKKKKL)", c->name, c->tiles,
	                             (unsigned long long)c->vertices, (unsigned long long)c->cycles,
	                             (unsigned long long)c->cycles_sum,
	                             (unsigned long long)c->active_cycles,
	                             (unsigned long long)c->active_cycles_sum,
	                             (unsigned long long)c->flops, (long long)c->debug_context));
}

/* operations() -> every debug context as (id, parent, name, layer, api,
 * software layer, variable bytes, vertex bytes, compute sets, variables,
 * programs), in id order. */
static PyObject *m_operations(tspy_report *r, PyObject *unused)
{
	if (tspy_lock(r))
		return NULL;
	tsr_operation *ops = NULL;
	size_t n = 0;
	int rc = tsr_report_list_operations(&ops, &n, r->report, -1);
	if (rc != TSR_OK)
		return fail(r, rc);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++) {
		const tsr_operation *o = &ops[i];
		PyObject *t = Py_BuildValue("(IIzzzzKKnnn)", o->id, o->parent, o->name, o->layer, o->api,
		                            tsr_operation_get_software_layer(o),
		                            (unsigned long long)o->variable_bytes,
		                            (unsigned long long)o->vertex_bytes, o->compute_sets,
		                            o->variables, o->programs);
		if (!t) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, t);
	}
	free(ops);
	return done(r, l);
}

/* run(i) -> (engine program, its name or None, cycles, steps) */
static PyObject *m_run(tspy_report *r, PyObject *arg)
{
	Py_ssize_t i;
	if (lock_index(r, arg, &i))
		return NULL;
	const tsr_run *runs;
	size_t n;
	int rc = tsr_report_get_runs(&runs, &n, r->report);
	if (rc != TSR_OK)
		return fail(r, rc);
	if (check_index(i, n))
		return done(r, NULL);
	return done(r, Py_BuildValue("(IzKn)", runs[i].program,
	                             tsr_report_lookup_engine_program_name(r->report, runs[i].program),
	                             (unsigned long long)runs[i].cycles, runs[i].n_steps));
}

/* step(run, i) -> (type, program, compute set, exchange, exchange kind,
 * sync, cycles from, cycles to, cycles) */
static PyObject *m_step(tspy_report *r, PyObject *args)
{
	Py_ssize_t run, i;
	if (!PyArg_ParseTuple(args, "nn:step", &run, &i))
		return NULL;
	if (tspy_lock(r))
		return NULL;
	const tsr_step *s;
	const tsr_program *p;
	size_t n, n_p;
	int rc = run < 0 ? TSR_ERR_OUT_OF_RANGE
	                 : tsr_report_get_steps(&s, &n, r->report, (size_t)run);
	if (rc == TSR_OK)
		rc = tsr_report_get_programs(&p, &n_p, r->report);
	if (rc != TSR_OK)
		return fail(r, rc);
	if (check_index(i, n))
		return done(r, NULL);
	s += i;
	/* The kind of exchange is the program's (report.h: "id within the
	 * kind the type implies"). */
	const char *kind = s->exchange >= 0 && s->program < n_p
	                       ? tsr_exchange_kind_name(p[s->program].exchange_kind) : NULL;
	return done(r, Py_BuildValue("(sILLzzKKK)", tsr_step_type_name(s->type), s->program,
	                             (long long)s->compute_set, (long long)s->exchange, kind,
	                             tsr_sync_type_name(s->sync), (unsigned long long)s->cycles_from,
	                             (unsigned long long)s->cycles_to, (unsigned long long)s->cycles));
}

/* cycles_by_tile(kind, id) -> cycles on each tile of compute set `id`
 * (kind None) or of exchange `id` of `kind` ("internal" ...). */
static PyObject *m_cycles_by_tile(tspy_report *r, PyObject *args)
{
	const char *kind;
	Py_ssize_t id;
	if (!PyArg_ParseTuple(args, "zn:cycles_by_tile", &kind, &id))
		return NULL;
	if (tspy_lock(r))
		return NULL;
	size_t n = tsr_report_get_target(r->report)->num_tiles;
	uint64_t *v = calloc(n + 1, sizeof(*v));
	if (!v)
		return done(r, PyErr_NoMemory());
	int rc = TSR_ERR_OUT_OF_RANGE, k = 0;
	while (kind && k < TSR_EXCHANGE_KIND_COUNT && strcmp(kind, tsr_exchange_kind_name(k)))
		k++;
	if (id >= 0 && !kind)
		rc = tsr_report_fill_compute_set_cycles_by_tile(v, n, r->report, (size_t)id, false);
	else if (id >= 0 && k < TSR_EXCHANGE_KIND_COUNT)
		rc = tsr_report_fill_exchange_cycles_by_tile(v, n, r->report, k, (size_t)id);
	PyObject *l = rc == TSR_OK ? u64_list(v, n) : NULL;
	free(v);
	return rc == TSR_OK ? done(r, l) : fail(r, rc);
}

/* summary_json(run) -> the text `tilescope summary --json` prints, for
 * run `run` (-1: the last kept). */
static PyObject *m_summary_json(tspy_report *r, PyObject *arg)
{
	tsr_summary_options opts = TSR_SUMMARY_OPTIONS_INIT;
	opts.run = PyLong_AsLongLong(arg);
	if (opts.run == -1 && PyErr_Occurred())
		return NULL;
	if (tspy_lock(r))
		return NULL;
	char *json = NULL;
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = tsr_summary_dup_json(&json, r->report, &opts);
	Py_END_ALLOW_THREADS
	if (rc != TSR_OK)
		return fail(r, rc);
	PyObject *s = PyUnicode_FromString(json);
	free(json);
	return done(r, s);
}

/* What a query gathers: the column names, then the rows. Filled with the
 * GIL held again (PyGILState) from reportlib's callbacks. */
typedef struct query_rows {
	PyObject *columns, *rows;
} query_rows;

static int query_columns_cb(void *user_data, size_t n, const char *const *names)
{
	query_rows *q = user_data;
	PyGILState_STATE g = PyGILState_Ensure();
	q->columns = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; q->columns && i < n; i++) {
		PyObject *s = PyUnicode_DecodeUTF8(names[i], (Py_ssize_t)strlen(names[i]), "replace");
		if (!s) {
			Py_CLEAR(q->columns);
			break;
		}
		PyTuple_SET_ITEM(q->columns, (Py_ssize_t)i, s);
	}
	PyGILState_Release(g);
	return q->columns ? 0 : 1;
}

static int query_row_cb(void *user_data, size_t n, const char *const *names,
                        const tsr_value *values)
{
	query_rows *q = user_data;
	PyGILState_STATE g = PyGILState_Ensure();
	PyObject *row = PyTuple_New((Py_ssize_t)n);
	for (size_t i = 0; row && i < n; i++) {
		const tsr_value *v = &values[i];
		PyObject *x = v->type == TSR_VALUE_INTEGER ? PyLong_FromLongLong(v->integer)
		              : v->type == TSR_VALUE_REAL  ? PyFloat_FromDouble(v->real)
		              : v->type == TSR_VALUE_TEXT
		                  ? PyUnicode_DecodeUTF8(v->data, (Py_ssize_t)v->size, "replace")
		              : v->type == TSR_VALUE_BLOB
		                  ? PyBytes_FromStringAndSize(v->data, (Py_ssize_t)v->size)
		                  : Py_NewRef(Py_None);
		if (!x) {
			Py_CLEAR(row);
			break;
		}
		PyTuple_SET_ITEM(row, (Py_ssize_t)i, x);
	}
	int stop = !row || PyList_Append(q->rows, row) < 0;
	Py_XDECREF(row);
	PyGILState_Release(g);
	return stop;
}

/* query(sql) -> (column names, rows): tsr_report_query, the read-only
 * guard `tilescope sql` runs through. */
static PyObject *m_query(tspy_report *r, PyObject *args)
{
	const char *sql;
	if (!PyArg_ParseTuple(args, "s:query", &sql))
		return NULL;
	query_rows q = {NULL, PyList_New(0)};
	if (!q.rows || tspy_lock(r)) {
		Py_XDECREF(q.rows);
		return NULL;
	}
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = tsr_report_query(r->report, sql, query_columns_cb, query_row_cb, &q);
	Py_END_ALLOW_THREADS
	PyObject *out = NULL;
	if (rc < 0)
		tspy_raise(tsr_report_error(r->report));
	else if (rc == 0)
		out = Py_BuildValue("(OO)", q.columns ? q.columns : Py_None, q.rows);
	/* rc > 0: a callback stopped on a Python error, which is set. */
	Py_XDECREF(q.columns);
	Py_DECREF(q.rows);
	return done(r, out);
}

static PyMethodDef report_methods[] = {
	{"close", (PyCFunction)m_close, METH_NOARGS, "frees the handle"},
	{"target", (PyCFunction)m_target, METH_NOARGS, NULL},
	{"info", (PyCFunction)m_info, METH_NOARGS, NULL},
	{"tile", (PyCFunction)m_tile, METH_O, NULL},
	{"tile_always_live", (PyCFunction)m_tile_always_live, METH_O, NULL},
	{"tile_categories", (PyCFunction)m_tile_categories, METH_O, NULL},
	{"memory_totals", (PyCFunction)m_memory_totals, METH_O, NULL},
	{"liveness_step", (PyCFunction)m_liveness_step, METH_O, NULL},
	{"live_variables", (PyCFunction)m_live_variables, METH_O, NULL},
	{"liveness_by", (PyCFunction)m_liveness_by, METH_VARARGS, NULL},
	{"liveness", (PyCFunction)m_liveness, METH_NOARGS, NULL},
	{"variable", (PyCFunction)m_variable, METH_O, NULL},
	{"program", (PyCFunction)m_program, METH_O, NULL},
	{"cycle_estimate", (PyCFunction)m_cycle_estimate, METH_O, NULL},
	{"compute_set", (PyCFunction)m_compute_set, METH_O, NULL},
	{"operations", (PyCFunction)m_operations, METH_NOARGS, NULL},
	{"run", (PyCFunction)m_run, METH_O, NULL},
	{"step", (PyCFunction)m_step, METH_VARARGS, NULL},
	{"cycles_by_tile", (PyCFunction)m_cycles_by_tile, METH_VARARGS, NULL},
	{"summary_json", (PyCFunction)m_summary_json, METH_O, NULL},
	{"query", (PyCFunction)m_query, METH_VARARGS, NULL},
	{NULL, NULL, 0, NULL},
};

PyTypeObject tspy_report_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tilescope._native.Report",
	.tp_basicsize = sizeof(tspy_report),
	.tp_dealloc = (destructor)report_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A reportlib handle (tilescope.pva.Report wraps it).",
	.tp_methods = report_methods,
};
