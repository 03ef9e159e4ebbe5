/*
 * The views' base (sa-view.h): the session property and one coalesced
 * update per change of what a view watches.
 */
#include "sa-view.h"

#include <string.h>

typedef struct {
	SaSession *session;
	guint update_idle;   /* the coalesced update, or 0 */
} SaViewPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(SaView, sa_view, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_SESSION, N_PROPS };
static GParamSpec *props[N_PROPS];

static gboolean update_now(gpointer data)
{
	SaView *self = data;
	SaViewPrivate *priv = sa_view_get_instance_private(self);

	priv->update_idle = 0;
	if (priv->session && SA_VIEW_GET_CLASS(self)->update)
		SA_VIEW_GET_CLASS(self)->update(self, priv->session);
	return G_SOURCE_REMOVE;
}

/* The session property `name` changed: whether the view watches it. */
static gboolean watches(SaView *self, const char *name)
{
	sa_view_watch w = SA_VIEW_GET_CLASS(self)->watch;

	return ((w & SA_VIEW_WATCH_DOCUMENT) && strcmp(name, "document") == 0) ||
	       ((w & SA_VIEW_WATCH_WINDOW) && g_str_has_prefix(name, "window-")) ||
	       ((w & SA_VIEW_WATCH_SELECTION) && strcmp(name, "selected-span") == 0) ||
	       ((w & SA_VIEW_WATCH_VIEW) && g_str_has_prefix(name, "view-"));
}

static void on_session_notify(SaSession *session, GParamSpec *pspec, gpointer data)
{
	SaViewPrivate *priv = sa_view_get_instance_private(SA_VIEW(data));

	if (!priv->update_idle && watches(SA_VIEW(data), g_param_spec_get_name(pspec)))
		priv->update_idle = g_idle_add(update_now, data);
}

SaSession *sa_view_get_session(SaView *self)
{
	g_return_val_if_fail(SA_IS_VIEW(self), NULL);
	return ((SaViewPrivate *)sa_view_get_instance_private(self))->session;
}

void sa_view_set_session(SaView *self, SaSession *session)
{
	SaViewPrivate *priv;

	g_return_if_fail(SA_IS_VIEW(self));
	priv = sa_view_get_instance_private(self);
	if (priv->session == session)
		return;
	if (priv->session)
		g_signal_handlers_disconnect_by_data(priv->session, self);
	g_clear_handle_id(&priv->update_idle, g_source_remove);
	g_set_object(&priv->session, session);
	if (session && SA_VIEW_GET_CLASS(self)->watch)
		g_signal_connect(session, "notify", G_CALLBACK(on_session_notify), self);
	if (SA_VIEW_GET_CLASS(self)->update)
		SA_VIEW_GET_CLASS(self)->update(self, session);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SESSION]);
}

static void sa_view_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	if (id == PROP_SESSION)
		g_value_set_object(value, sa_view_get_session(SA_VIEW(object)));
	else
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void sa_view_set_property(GObject *object, guint id, const GValue *value,
                                 GParamSpec *pspec)
{
	if (id == PROP_SESSION)
		sa_view_set_session(SA_VIEW(object), g_value_get_object(value));
	else
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void sa_view_dispose(GObject *object)
{
	SaViewPrivate *priv = sa_view_get_instance_private(SA_VIEW(object));

	/* No update: a subclass's widgets are gone by now. */
	if (priv->session)
		g_signal_handlers_disconnect_by_data(priv->session, object);
	g_clear_handle_id(&priv->update_idle, g_source_remove);
	g_clear_object(&priv->session);
	G_OBJECT_CLASS(sa_view_parent_class)->dispose(object);
}

static void sa_view_class_init(SaViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = sa_view_dispose;
	object_class->get_property = sa_view_get_property;
	object_class->set_property = sa_view_set_property;
	props[PROP_SESSION] = g_param_spec_object("session", NULL, NULL, SA_TYPE_SESSION,
	                                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                              G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, props);
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name); a view that is a figure says what it is. */
	gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GENERIC);
}

static void sa_view_init(SaView *self)
{
}
