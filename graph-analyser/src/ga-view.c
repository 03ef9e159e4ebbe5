/*
 * The views' base (ga-view.h). It keeps its own refs to the document and
 * report B, taken when the session says "document" (which it says after
 * "compare-document", so both are new then), so that a view's
 * document_changed and its bindings read the pair the view shows even
 * while the session is part way through a change.
 */
#include "ga-view.h"

typedef struct {
	GaSession *session;
	GaDocument *document;         /* refs, or NULL */
	GaDocument *compare_document;
	/* From the template (ga-view.ui). */
	GtkStack *stack;
	GtkBox *content_box;
	GtkPaned *paned;
	GtkWidget *bar;               /* children of content_box, or NULL */
	GtkWidget *compare_page;
	GtkSpinner *spinner;
	GtkLabel *loading_label;
	GtkLabel *empty_title;
	GtkLabel *empty_reason;
	gboolean stale;               /* the session's pair waits for the view to be shown */
} GaViewPrivate;

static void ga_view_buildable_init(GtkBuildableIface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE(GaView, ga_view, GTK_TYPE_WIDGET,
                                 G_ADD_PRIVATE(GaView)
                                 G_IMPLEMENT_INTERFACE(GTK_TYPE_BUILDABLE, ga_view_buildable_init))

enum {
	PROP_0,
	PROP_SESSION,
	PROP_DOCUMENT,
	PROP_COMPARE_DOCUMENT,
	PROP_COMPARE,
	N_PROPS
};
static GParamSpec *props[N_PROPS];

static GtkBuildableIface *parent_buildable;

/* A subclass template's children: the content, or type "details" the
 * details pane, "bar" the bar, "compare" the compare page. The base's own
 * template adds its stack before the stack is bound, and goes to
 * GtkWidget's handling as any child would. */
static void ga_view_add_child(GtkBuildable *buildable, GtkBuilder *builder, GObject *child,
                              const char *type)
{
	GaView *self = GA_VIEW(buildable);
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	if (priv->paned && GTK_IS_WIDGET(child)) {
		if (g_strcmp0(type, "details") == 0)
			ga_view_set_details(self, GTK_WIDGET(child));
		else if (g_strcmp0(type, "bar") == 0)
			ga_view_set_bar(self, GTK_WIDGET(child));
		else if (g_strcmp0(type, "compare") == 0)
			ga_view_set_compare_page(self, GTK_WIDGET(child));
		else
			ga_view_set_content(self, GTK_WIDGET(child));
		return;
	}
	parent_buildable->add_child(buildable, builder, child, type);
}

static void ga_view_buildable_init(GtkBuildableIface *iface)
{
	parent_buildable = g_type_interface_peek_parent(iface);
	iface->add_child = ga_view_add_child;
}

/* Comparing, a view's compare page stands in for its bar, content and
 * details. */
static void show_compare_page(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);
	gboolean page = priv->compare_page && priv->compare_document;

	if (priv->bar)
		gtk_widget_set_visible(priv->bar, !page);
	gtk_widget_set_visible(GTK_WIDGET(priv->paned), !page);
	if (priv->compare_page)
		gtk_widget_set_visible(priv->compare_page, page);
}

/* The session's document changed: the pair taken, the state set, the
 * view told. */
static void on_document(GaSession *session, GParamSpec *pspec, gpointer data)
{
	GaView *self = data;
	GaViewPrivate *priv = ga_view_get_instance_private(self);
	GaDocument *doc = ga_session_get_document(session);
	GaDocument *compare = ga_session_get_compare_document(session);
	gboolean was_compare = priv->compare_document != NULL;

	(void)pspec;
	/* A page its stack hides takes the new pair when shown (ga_view_map):
	 * opening a report costs the shown view's work only. It lets go of
	 * the old pair at once, the view told of none, so that neither the
	 * base nor what the view built from it keeps a closed report open. */
	priv->stale = !gtk_widget_get_child_visible(GTK_WIDGET(self));
	if (priv->stale && !priv->document)
		return;
	if (priv->stale)
		doc = compare = NULL;
	g_clear_pointer(&priv->document, ga_document_unref);
	g_clear_pointer(&priv->compare_document, ga_document_unref);
	priv->document = doc ? ga_document_ref(doc) : NULL;
	priv->compare_document = doc && compare ? ga_document_ref(compare) : NULL;
	g_object_freeze_notify(G_OBJECT(self));
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_COMPARE_DOCUMENT]);
	if (was_compare != (priv->compare_document != NULL))
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_COMPARE]);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_DOCUMENT]);
	g_object_thaw_notify(G_OBJECT(self));
	show_compare_page(self);
	if (doc)
		ga_view_show_content(self);
	else
		ga_view_show_empty(self, "Open a report (Ctrl+O) to see it here.");
	if (GA_VIEW_GET_CLASS(self)->document_changed)
		GA_VIEW_GET_CLASS(self)->document_changed(self);
}

static void ga_view_map(GtkWidget *widget)
{
	GaViewPrivate *priv = ga_view_get_instance_private(GA_VIEW(widget));

	if (priv->stale)
		on_document(priv->session, NULL, widget);
	GTK_WIDGET_CLASS(ga_view_parent_class)->map(widget);
}

static void ga_view_constructed(GObject *object)
{
	GaView *self = GA_VIEW(object);
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	G_OBJECT_CLASS(ga_view_parent_class)->constructed(object);
	if (GA_VIEW_GET_CLASS(self)->template_type == G_OBJECT_TYPE(self))
		gtk_widget_init_template(GTK_WIDGET(self));
	g_return_if_fail(priv->session != NULL);
	g_signal_connect(priv->session, "notify::document", G_CALLBACK(on_document), self);
	on_document(priv->session, NULL, self);
}

static void ga_view_dispose(GObject *object)
{
	GaView *self = GA_VIEW(object);
	GaViewPrivate *priv = ga_view_get_instance_private(self);
	GtkWidget *child;

	if (priv->session)
		g_signal_handlers_disconnect_by_data(priv->session, self);
	g_clear_object(&priv->session);
	if (GA_VIEW_GET_CLASS(self)->template_type == G_OBJECT_TYPE(self))
		gtk_widget_dispose_template(GTK_WIDGET(self), G_OBJECT_TYPE(self));
	/* The base's own template is not disposed of with
	 * gtk_widget_dispose_template: GTK 4.8's walks the template of the
	 * instance's class, so under a subclass with a template of its own
	 * it looks for the subclass's children among the base's and aborts
	 * (checked with test-ga-view). The stack is the one child. */
	while ((child = gtk_widget_get_first_child(GTK_WIDGET(self))))
		gtk_widget_unparent(child);
	priv->stack = NULL;
	priv->content_box = NULL;
	priv->paned = NULL;
	priv->bar = priv->compare_page = NULL;
	priv->spinner = NULL;
	priv->loading_label = priv->empty_title = priv->empty_reason = NULL;
	G_OBJECT_CLASS(ga_view_parent_class)->dispose(object);
}

static void ga_view_finalize(GObject *object)
{
	GaViewPrivate *priv = ga_view_get_instance_private(GA_VIEW(object));

	g_clear_pointer(&priv->document, ga_document_unref);
	g_clear_pointer(&priv->compare_document, ga_document_unref);
	G_OBJECT_CLASS(ga_view_parent_class)->finalize(object);
}

static void ga_view_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	GaView *self = GA_VIEW(object);
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	switch (id) {
	case PROP_SESSION:
		g_value_set_object(value, priv->session);
		break;
	case PROP_DOCUMENT:
		g_value_set_boxed(value, priv->document);
		break;
	case PROP_COMPARE_DOCUMENT:
		g_value_set_boxed(value, priv->compare_document);
		break;
	case PROP_COMPARE:
		g_value_set_boolean(value, priv->compare_document != NULL);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_view_set_property(GObject *object, guint id, const GValue *value,
                                 GParamSpec *pspec)
{
	GaViewPrivate *priv = ga_view_get_instance_private(GA_VIEW(object));

	switch (id) {
	case PROP_SESSION:
		priv->session = g_value_dup_object(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_view_class_init(GaViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = ga_view_constructed;
	object_class->dispose = ga_view_dispose;
	object_class->finalize = ga_view_finalize;
	object_class->get_property = ga_view_get_property;
	object_class->set_property = ga_view_set_property;
	widget_class->map = ga_view_map;
	props[PROP_SESSION] =
	    g_param_spec_object("session", NULL, NULL, GA_TYPE_SESSION,
	                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
	props[PROP_DOCUMENT] = g_param_spec_boxed("document", NULL, NULL, GA_TYPE_DOCUMENT,
	                                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	props[PROP_COMPARE_DOCUMENT] =
	    g_param_spec_boxed("compare-document", NULL, NULL, GA_TYPE_DOCUMENT,
	                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	props[PROP_COMPARE] = g_param_spec_boolean("compare", NULL, NULL, FALSE,
	                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, props);

	gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
	/* A group, as the GtkBox every view was: a generic widget is named
	 * by its type name for a screen reader (GTK 4.8). */
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-view.ui");
	gtk_widget_class_bind_template_child_private(widget_class, GaView, stack);
	gtk_widget_class_bind_template_child_private(widget_class, GaView, content_box);
	gtk_widget_class_bind_template_child_private(widget_class, GaView, paned);
	gtk_widget_class_bind_template_child_private(widget_class, GaView, spinner);
	gtk_widget_class_bind_template_child_private(widget_class, GaView, loading_label);
	gtk_widget_class_bind_template_child_private(widget_class, GaView, empty_title);
	gtk_widget_class_bind_template_child_private(widget_class, GaView, empty_reason);
}

static void ga_view_init(GaView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

void ga_view_class_set_template(GaViewClass *klass, const char *resource)
{
	gtk_widget_class_set_template_from_resource(GTK_WIDGET_CLASS(klass), resource);
	klass->template_type = G_TYPE_FROM_CLASS(klass);
}

GaSession *ga_view_get_session(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return priv->session;
}

GaDocument *ga_view_get_document(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return priv->document;
}

GaDocument *ga_view_get_compare_document(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return priv->compare_document;
}

gboolean ga_view_get_compare(GaView *self)
{
	return ga_view_get_compare_document(self) != NULL;
}

/* Shows page `name`; the spinner turns only while it is seen. */
static void show(GaView *self, const char *name)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	gtk_spinner_set_spinning(priv->spinner, g_strcmp0(name, "loading") == 0);
	gtk_stack_set_visible_child_name(priv->stack, name);
}

void ga_view_show_content(GaView *self)
{
	show(self, "content");
}

void ga_view_show_loading(GaView *self, const char *what)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	gtk_label_set_text(priv->loading_label, what && *what ? what : "Loading…");
	show(self, "loading");
}

void ga_view_show_empty(GaView *self, const char *reason)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	/* Hidden rather than empty: GTK 4.8 names an empty label by its
	 * type for a screen reader. */
	gtk_label_set_text(priv->empty_reason, reason ? reason : "");
	gtk_widget_set_visible(GTK_WIDGET(priv->empty_reason), reason && *reason);
	show(self, "empty");
}

void ga_view_set_empty_title(GaView *self, const char *title)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	gtk_label_set_text(priv->empty_title, title);
}

const char *ga_view_get_state(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return gtk_stack_get_visible_child_name(priv->stack);
}

void ga_view_set_content(GaView *self, GtkWidget *content)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	gtk_paned_set_start_child(priv->paned, content);
}

GtkWidget *ga_view_get_content(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return gtk_paned_get_start_child(priv->paned);
}

void ga_view_set_details(GaView *self, GtkWidget *details)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	gtk_paned_set_end_child(priv->paned, details);
}

GtkWidget *ga_view_get_details(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return gtk_paned_get_end_child(priv->paned);
}

GtkPaned *ga_view_get_paned(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return priv->paned;
}

/* Puts `widget` (or nothing) in place of `*slot` in the content's box,
 * first (the bar) or last (the compare page). */
static void set_slot(GaView *self, GtkWidget **slot, GtkWidget *widget, gboolean first)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	if (*slot)
		gtk_box_remove(priv->content_box, *slot);
	*slot = widget;
	if (!widget)
		return;
	if (first)
		gtk_box_prepend(priv->content_box, widget);
	else
		gtk_box_append(priv->content_box, widget);
	show_compare_page(self);
}

void ga_view_set_bar(GaView *self, GtkWidget *bar)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	set_slot(self, &priv->bar, bar, TRUE);
}

GtkWidget *ga_view_get_bar(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return priv->bar;
}

void ga_view_set_compare_page(GaView *self, GtkWidget *page)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	if (page)
		gtk_widget_set_vexpand(page, TRUE);
	set_slot(self, &priv->compare_page, page, FALSE);
}

GtkWidget *ga_view_get_compare_page(GaView *self)
{
	GaViewPrivate *priv = ga_view_get_instance_private(self);

	return priv->compare_page;
}
