/*
 * The view-state object (ga-session.h) and the tile-list syntax of the
 * "Select tiles" entry.
 */
#include "ga-session.h"

#include <errno.h>
#include <stdlib.h>

struct _GaSession {
	GObject parent_instance;
	GaDocument *document;
	GaDocument *compare_document;
	GtkBitset *selected_tiles;
	int ipu;
	gint64 variable;
	gint64 program;
	gint64 run, step;
	GaHistory *history;
};

G_DEFINE_FINAL_TYPE(GaSession, ga_session, G_TYPE_OBJECT)

enum {
	PROP_0,
	PROP_DOCUMENT,
	PROP_COMPARE_DOCUMENT,
	PROP_SELECTED_TILES,
	PROP_IPU,
	PROP_VARIABLE,
	PROP_PROGRAM,
	PROP_RUN,
	PROP_STEP,
	PROP_HISTORY,
	N_PROPS
};
static GParamSpec *props[N_PROPS];

static void ga_session_finalize(GObject *object)
{
	GaSession *self = GA_SESSION(object);

	g_clear_pointer(&self->document, ga_document_unref);
	g_clear_pointer(&self->compare_document, ga_document_unref);
	g_clear_pointer(&self->selected_tiles, gtk_bitset_unref);
	g_clear_pointer(&self->history, ga_history_unref);
	G_OBJECT_CLASS(ga_session_parent_class)->finalize(object);
}

static void ga_session_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	GaSession *self = GA_SESSION(object);

	switch (id) {
	case PROP_DOCUMENT:
		g_value_set_boxed(value, self->document);
		break;
	case PROP_SELECTED_TILES:
		g_value_set_boxed(value, self->selected_tiles);
		break;
	case PROP_IPU:
		g_value_set_int(value, self->ipu);
		break;
	case PROP_COMPARE_DOCUMENT:
		g_value_set_boxed(value, self->compare_document);
		break;
	case PROP_VARIABLE:
		g_value_set_int64(value, self->variable);
		break;
	case PROP_PROGRAM:
		g_value_set_int64(value, self->program);
		break;
	case PROP_RUN:
		g_value_set_int64(value, self->run);
		break;
	case PROP_STEP:
		g_value_set_int64(value, self->step);
		break;
	case PROP_HISTORY:
		g_value_set_boxed(value, self->history);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_session_set_property(GObject *object, guint id, const GValue *value,
                                    GParamSpec *pspec)
{
	GaSession *self = GA_SESSION(object);

	switch (id) {
	case PROP_DOCUMENT:
		ga_session_set_document(self, g_value_get_boxed(value));
		break;
	case PROP_SELECTED_TILES:
		ga_session_set_selected_tiles(self, g_value_get_boxed(value));
		break;
	case PROP_IPU:
		ga_session_set_ipu(self, g_value_get_int(value));
		break;
	case PROP_VARIABLE:
		ga_session_set_variable(self, g_value_get_int64(value));
		break;
	case PROP_PROGRAM:
		ga_session_set_program(self, g_value_get_int64(value));
		break;
	case PROP_STEP:
		ga_session_set_step(self, self->run, g_value_get_int64(value));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_session_class_init(GaSessionClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->finalize = ga_session_finalize;
	object_class->get_property = ga_session_get_property;
	object_class->set_property = ga_session_set_property;
	props[PROP_DOCUMENT] = g_param_spec_boxed("document", NULL, NULL, GA_TYPE_DOCUMENT,
	                                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                              G_PARAM_STATIC_STRINGS);
	props[PROP_SELECTED_TILES] =
	    g_param_spec_boxed("selected-tiles", NULL, NULL, GTK_TYPE_BITSET,
	                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
	props[PROP_IPU] = g_param_spec_int("ipu", NULL, NULL, -1, G_MAXINT, -1,
	                                   G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                       G_PARAM_STATIC_STRINGS);
	props[PROP_VARIABLE] = g_param_spec_int64("variable", NULL, NULL, -1, G_MAXINT64, -1,
	                                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                              G_PARAM_STATIC_STRINGS);
	props[PROP_COMPARE_DOCUMENT] =
	    g_param_spec_boxed("compare-document", NULL, NULL, GA_TYPE_DOCUMENT,
	                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	props[PROP_PROGRAM] = g_param_spec_int64("program", NULL, NULL, -1, G_MAXINT64, -1,
	                                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                             G_PARAM_STATIC_STRINGS);
	props[PROP_RUN] = g_param_spec_int64("run", NULL, NULL, -1, G_MAXINT64, -1,
	                                     G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	props[PROP_STEP] = g_param_spec_int64("step", NULL, NULL, -1, G_MAXINT64, -1,
	                                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                          G_PARAM_STATIC_STRINGS);
	props[PROP_HISTORY] = g_param_spec_boxed("history", NULL, NULL, GA_TYPE_HISTORY,
	                                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, props);
}

static void ga_session_init(GaSession *self)
{
	self->selected_tiles = gtk_bitset_new_empty();
	self->ipu = -1;
	self->variable = -1;
	self->program = -1;
	self->run = -1;
	self->step = -1;
}

GaSession *ga_session_new(void)
{
	return g_object_new(GA_TYPE_SESSION, NULL);
}

GaDocument *ga_session_get_document(GaSession *self)
{
	return self->document;
}

void ga_session_set_document(GaSession *self, GaDocument *doc)
{
	ga_session_set_documents(self, doc, NULL);
}

void ga_session_set_documents(GaSession *self, GaDocument *doc, GaDocument *compare)
{
	g_autoptr(GtkBitset) none = gtk_bitset_new_empty();

	if (self->document == doc && self->compare_document == compare)
		return;
	g_clear_pointer(&self->document, ga_document_unref);
	self->document = doc ? ga_document_ref(doc) : NULL;
	ga_session_set_selected_tiles(self, none);
	ga_session_set_ipu(self, -1);
	ga_session_set_variable(self, -1);
	ga_session_set_program(self, -1);
	ga_session_set_step(self, -1, -1);
	if (self->compare_document != compare) {
		g_clear_pointer(&self->compare_document, ga_document_unref);
		self->compare_document = compare ? ga_document_ref(compare) : NULL;
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_COMPARE_DOCUMENT]);
	}
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_DOCUMENT]);
}

GaHistory *ga_session_get_history(GaSession *self)
{
	return self->history;
}

void ga_session_set_history(GaSession *self, GaHistory *history)
{
	if (self->history == history)
		return;
	g_clear_pointer(&self->history, ga_history_unref);
	self->history = history ? ga_history_ref(history) : NULL;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_HISTORY]);
}

GaDocument *ga_session_get_compare_document(GaSession *self)
{
	return self->compare_document;
}

GtkBitset *ga_session_get_selected_tiles(GaSession *self)
{
	return self->selected_tiles;
}

/* Whether two bitsets hold the same members. */
static gboolean bitset_equal(GtkBitset *a, GtkBitset *b)
{
	g_autoptr(GtkBitset) diff = gtk_bitset_copy(a);

	if (gtk_bitset_get_size(a) != gtk_bitset_get_size(b))
		return FALSE;
	gtk_bitset_difference(diff, b);
	return gtk_bitset_is_empty(diff);
}

void ga_session_set_selected_tiles(GaSession *self, GtkBitset *tiles)
{
	if (!tiles || bitset_equal(self->selected_tiles, tiles))
		return;
	gtk_bitset_unref(self->selected_tiles);
	self->selected_tiles = gtk_bitset_copy(tiles);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SELECTED_TILES]);
}

int ga_session_get_ipu(GaSession *self)
{
	return self->ipu;
}

void ga_session_set_ipu(GaSession *self, int ipu)
{
	if (self->ipu == ipu)
		return;
	self->ipu = ipu;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_IPU]);
}

gint64 ga_session_get_variable(GaSession *self)
{
	return self->variable;
}

void ga_session_set_variable(GaSession *self, gint64 variable)
{
	if (self->variable == variable)
		return;
	self->variable = variable;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_VARIABLE]);
}

gint64 ga_session_get_program(GaSession *self)
{
	return self->program;
}

void ga_session_set_program(GaSession *self, gint64 program)
{
	if (self->program == program)
		return;
	self->program = program;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PROGRAM]);
}

void ga_session_get_step(GaSession *self, gint64 *run, gint64 *step)
{
	if (run)
		*run = self->run;
	if (step)
		*step = self->step;
}

void ga_session_set_step(GaSession *self, gint64 run, gint64 step)
{
	if (self->run == run && self->step == step)
		return;
	self->run = run;
	self->step = step;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_RUN]);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_STEP]);
}

/* --- Tile lists ---------------------------------------------------------------- */

/* Reads an unsigned number at *p (skipping blanks); FALSE when there is none. */
static gboolean read_number(const char **p, guint64 *out)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (**p < '0' || **p > '9')
		return FALSE;
	errno = 0;
	*out = g_ascii_strtoull(*p, &end, 10);
	if (errno)
		return FALSE;
	*p = end;
	while (**p == ' ' || **p == '\t')
		(*p)++;
	return TRUE;
}

GtkBitset *ga_parse_tile_list(const char *text, guint num_tiles, GError **error)
{
	g_autoptr(GtkBitset) set = gtk_bitset_new_empty();
	const char *p = text ? text : "";

	while (*p) {
		guint64 lo, hi;

		if (*p == ',' || *p == ' ') {
			p++;
			continue;
		}
		if (!read_number(&p, &lo)) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			            "'%.20s' is not a tile number or range (write 0-15, 52)", p);
			return NULL;
		}
		hi = lo;
		if (*p == '-') {
			p++;
			if (!read_number(&p, &hi) || hi < lo) {
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				            "the range starting at %" G_GUINT64_FORMAT
				            " has no end after it (write %" G_GUINT64_FORMAT "-N)",
				            lo, lo);
				return NULL;
			}
		}
		if (hi >= num_tiles) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			            "tile %" G_GUINT64_FORMAT " is past the last tile, %u", hi,
			            num_tiles ? num_tiles - 1 : 0);
			return NULL;
		}
		gtk_bitset_add_range_closed(set, (guint)lo, (guint)hi);
		if (*p && *p != ',') {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			            "expected a comma before '%.20s'", p);
			return NULL;
		}
	}
	return g_steal_pointer(&set);
}

/* Appends "lo" or "lo-hi", after a comma when the list has items. */
static void append_range(GString *s, guint lo, guint hi)
{
	if (s->len)
		g_string_append(s, ", ");
	if (lo == hi)
		g_string_append_printf(s, "%u", lo);
	else
		g_string_append_printf(s, "%u-%u", lo, hi);
}

char *ga_format_tile_list(GtkBitset *tiles)
{
	GString *s = g_string_new(NULL);
	GtkBitsetIter it;
	guint v;

	if (gtk_bitset_iter_init_first(&it, tiles, &v)) {
		guint lo = v, hi = v;

		while (gtk_bitset_iter_next(&it, &v)) {
			if (v == hi + 1) {
				hi = v;
				continue;
			}
			append_range(s, lo, hi);
			lo = hi = v;
		}
		append_range(s, lo, hi);
	}
	return g_string_free(s, FALSE);
}
