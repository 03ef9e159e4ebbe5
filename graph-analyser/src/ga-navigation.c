/*
 * Back and Forward through the jumps between views (ga-navigation.h). A
 * place is the visible view and a copy of the session's selections; the
 * history is two stacks of places, the one before the current place and
 * the ones after it (filled by going back, emptied by a new jump).
 */
#include "ga-navigation.h"

/* Places kept behind the current one; older ones are forgotten. */
#define HISTORY_MAX 100

typedef struct place {
	char *view;
	GtkBitset *tiles;
	int ipu;
	gint64 variable, program, run, step;
} place;

struct _GaNavigation {
	GObject parent_instance;
	GaSession *session;           /* a ref */
	GtkStack *views;              /* weak: the window owns it */
	GQueue back;                  /* place *, most recent at the head */
	GQueue forward;               /* place *, the next at the head */
};

G_DEFINE_FINAL_TYPE(GaNavigation, ga_navigation, G_TYPE_OBJECT)

enum { PROP_0, PROP_CAN_GO_BACK, PROP_CAN_GO_FORWARD, N_PROPS };
static GParamSpec *props[N_PROPS];

static void place_free(place *p)
{
	if (!p)
		return;
	g_free(p->view);
	g_clear_pointer(&p->tiles, gtk_bitset_unref);
	g_free(p);
}

/* Where the user is now. */
static place *capture(GaNavigation *self)
{
	place *p = g_new0(place, 1);

	p->view = g_strdup(self->views ? gtk_stack_get_visible_child_name(self->views) : NULL);
	p->tiles = gtk_bitset_copy(ga_session_get_selected_tiles(self->session));
	p->ipu = ga_session_get_ipu(self->session);
	p->variable = ga_session_get_variable(self->session);
	p->program = ga_session_get_program(self->session);
	ga_session_get_step(self->session, &p->run, &p->step);
	return p;
}

/* Shows `view` (when the stack has it), then sets the selections `sets`
 * names. The view is shown first so that one following a selection
 * (the Program Tree revealing its row) does so while it is mapped. */
static void apply(GaNavigation *self, const char *view, guint sets, GtkBitset *tiles, int ipu,
                  gint64 variable, gint64 program, gint64 run, gint64 step)
{
	if (view && self->views && gtk_stack_get_child_by_name(self->views, view))
		gtk_stack_set_visible_child_name(self->views, view);
	if ((sets & GA_JUMP_TILES) && tiles)
		ga_session_set_selected_tiles(self->session, tiles);
	if (sets & GA_JUMP_IPU)
		ga_session_set_ipu(self->session, ipu);
	if (sets & GA_JUMP_VARIABLE)
		ga_session_set_variable(self->session, variable);
	if (sets & GA_JUMP_PROGRAM)
		ga_session_set_program(self->session, program);
	if (sets & GA_JUMP_STEP)
		ga_session_set_step(self->session, run, step);
}

static void apply_place(GaNavigation *self, const place *p)
{
	apply(self, p->view,
	      GA_JUMP_TILES | GA_JUMP_IPU | GA_JUMP_VARIABLE | GA_JUMP_PROGRAM | GA_JUMP_STEP,
	      p->tiles, p->ipu, p->variable, p->program, p->run, p->step);
}

static void notify_both(GaNavigation *self)
{
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CAN_GO_BACK]);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CAN_GO_FORWARD]);
}

void ga_navigation_jump(GaNavigation *self, const ga_jump *jump)
{
	g_return_if_fail(GA_IS_NAVIGATION(self));
	g_return_if_fail(jump != NULL);
	if (!ga_session_get_document(self->session))
		return;
	g_queue_push_head(&self->back, capture(self));
	while (self->back.length > HISTORY_MAX)
		place_free(g_queue_pop_tail(&self->back));
	g_queue_clear_full(&self->forward, (GDestroyNotify)place_free);
	apply(self, jump->view, jump->sets, jump->tiles, jump->ipu, jump->variable, jump->program,
	      jump->run, jump->step);
	notify_both(self);
}

gboolean ga_navigation_jump_from(GtkWidget *widget, const ga_jump *jump)
{
	GaNavigation *self = ga_navigation_lookup(widget);

	if (!self)
		return FALSE;
	ga_navigation_jump(self, jump);
	return TRUE;
}

gboolean ga_navigation_can_go_back(GaNavigation *self)
{
	return self->back.length > 0;
}

gboolean ga_navigation_can_go_forward(GaNavigation *self)
{
	return self->forward.length > 0;
}

/* Moves one place from `from` to the current place, the current place
 * onto `to`. */
static void go(GaNavigation *self, GQueue *from, GQueue *to)
{
	place *p = g_queue_pop_head(from);

	if (!p)
		return;
	g_queue_push_head(to, capture(self));
	apply_place(self, p);
	place_free(p);
	notify_both(self);
}

void ga_navigation_go_back(GaNavigation *self)
{
	go(self, &self->back, &self->forward);
}

void ga_navigation_go_forward(GaNavigation *self)
{
	go(self, &self->forward, &self->back);
}

void ga_navigation_clear(GaNavigation *self)
{
	if (!self->back.length && !self->forward.length)
		return;
	g_queue_clear_full(&self->back, (GDestroyNotify)place_free);
	g_queue_clear_full(&self->forward, (GDestroyNotify)place_free);
	notify_both(self);
}

static void on_document(GObject *session, GParamSpec *pspec, gpointer data)
{
	(void)session;
	(void)pspec;
	ga_navigation_clear(GA_NAVIGATION(data));
}

GaNavigation *ga_navigation_lookup(GtkWidget *widget)
{
	GtkRoot *root = widget ? gtk_widget_get_root(widget) : NULL;

	return root ? g_object_get_data(G_OBJECT(root), "ga-navigation") : NULL;
}

/* --- The class ------------------------------------------------------------------------- */

static void ga_navigation_get_property(GObject *object, guint id, GValue *value,
                                       GParamSpec *pspec)
{
	GaNavigation *self = GA_NAVIGATION(object);

	switch (id) {
	case PROP_CAN_GO_BACK:
		g_value_set_boolean(value, ga_navigation_can_go_back(self));
		break;
	case PROP_CAN_GO_FORWARD:
		g_value_set_boolean(value, ga_navigation_can_go_forward(self));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_navigation_dispose(GObject *object)
{
	GaNavigation *self = GA_NAVIGATION(object);

	if (self->session)
		g_signal_handlers_disconnect_by_data(self->session, self);
	g_clear_object(&self->session);
	g_clear_weak_pointer(&self->views);
	g_queue_clear_full(&self->back, (GDestroyNotify)place_free);
	g_queue_clear_full(&self->forward, (GDestroyNotify)place_free);
	G_OBJECT_CLASS(ga_navigation_parent_class)->dispose(object);
}

static void ga_navigation_class_init(GaNavigationClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->get_property = ga_navigation_get_property;
	object_class->dispose = ga_navigation_dispose;
	props[PROP_CAN_GO_BACK] = g_param_spec_boolean("can-go-back", NULL, NULL, FALSE,
	                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	props[PROP_CAN_GO_FORWARD] = g_param_spec_boolean("can-go-forward", NULL, NULL, FALSE,
	                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, props);
}

static void ga_navigation_init(GaNavigation *self)
{
	g_queue_init(&self->back);
	g_queue_init(&self->forward);
}

GaNavigation *ga_navigation_new(GtkWidget *window, GaSession *session, GtkStack *views)
{
	GaNavigation *self = g_object_new(GA_TYPE_NAVIGATION, NULL);

	self->session = g_object_ref(session);
	g_set_weak_pointer(&self->views, views);
	g_signal_connect(session, "notify::document", G_CALLBACK(on_document), self);
	/* The window holds a ref: views look it up from their widgets. */
	g_object_set_data_full(G_OBJECT(window), "ga-navigation", g_object_ref(self),
	                       g_object_unref);
	return self;
}
