/*
 * The Flame Graph tab (sa-flame-view.h). The layout (each node's left
 * edge and width as fractions of the window's inclusive time) is worked
 * out once per tree; a frame draws the nodes at least a pixel wide, so
 * its cost is bounded by the pixels, not the paths.
 */
#include "sa-flame-view.h"

#include "sa-format.h"

#include "sa-timeline.h"

#include <math.h>
#include <tilescope/tsc-palette.h>
#include <tilescope/tsd-app.h>
#include <tilescope/tsd-name.h>

#define ROW_H 20        /* px: one depth */
#define HEADER_H 22     /* px: the line above the frames */
#define MIN_FRAME_PX 1.0

struct _SaFlameView {
	GtkWidget parent_instance;
	SaDocument *doc;
	sa_call_tree *ct;
	double *x0, *w;          /* per node: left edge and width, fractions of the total */
	guint depth;             /* rows: the deepest node + 1 */
	size_t selected, hover;  /* node indexes, or TSR_TRACE_NO_NODE */
	char *description;
};

G_DEFINE_FINAL_TYPE(SaFlameView, sa_flame_view, GTK_TYPE_WIDGET)

/* --- Layout ---------------------------------------------------------------------- */

static void lay_out(SaFlameView *self)
{
	const tsr_trace_call_tree *t = self->ct->tree;
	double total = t->inclusive_ns ? (double)t->inclusive_ns : 1.0, x = 0;

	self->x0 = g_new0(double, t->n_nodes ? t->n_nodes : 1);
	self->w = g_new0(double, t->n_nodes ? t->n_nodes : 1);
	self->depth = 0;
	for (size_t r = 0; r < t->n_roots; r++) {
		self->x0[r] = x;
		self->w[r] = (double)t->nodes[r].inclusive_ns / total;
		x += self->w[r];
	}
	/* Breadth first: a node's parent is placed before it. */
	for (size_t i = 0; i < t->n_nodes; i++) {
		const tsr_trace_call_node *nd = &t->nodes[i];
		double cx = self->x0[i];

		self->depth = MAX(self->depth, nd->depth + 1);
		for (size_t k = 0; k < nd->n_children; k++) {
			size_t c = nd->first_child + k;

			self->x0[c] = cx;
			self->w[c] = (double)t->nodes[c].inclusive_ns / total;
			cx += self->w[c];
		}
	}
}

/* --- Text --------------------------------------------------------------------------- */

/* A node's name cut for display (tsd_name_cut: a trace may hold 16 KiB
 * names, which Pango would shape whole for every frame drawn). */
static char *node_name(SaFlameView *self, size_t i)
{
	return tsd_name_cut(tsr_trace_get_name(sa_document_get_trace(self->doc),
	                                       self->ct->tree->nodes[i].name));
}

/* "Run program 1 (epoch): 196 ms inclusive (98.4 %), 196 ms exclusive, 1 span". */
static char *describe_node(SaFlameView *self, size_t i)
{
	const tsr_trace_call_node *nd = &self->ct->tree->nodes[i];
	g_autofree char *incl = sa_format_duration((double)nd->inclusive_ns);
	g_autofree char *excl = sa_format_duration((double)nd->exclusive_ns);
	g_autofree char *count = sa_format_count(nd->count);
	g_autofree char *name = node_name(self, i);

	return g_strdup_printf("%s: %s inclusive (%.1f %%), %s exclusive, %s span%s",
	                       name, incl, 100.0 * self->w[i], excl, count,
	                       nd->count == 1 ? "" : "s");
}

static void update_description(SaFlameView *self)
{
	GString *d = g_string_new(NULL);

	if (!self->ct) {
		g_string_append(d, "No call tree");
	} else {
		g_autofree char *window = sa_call_tree_describe_window(
		    sa_document_get_trace(self->doc), self->ct->from_ns, self->ct->to_ns);
		g_autofree char *paths = sa_format_count(self->ct->tree->n_nodes);
		g_autofree char *total = sa_format_duration((double)self->ct->tree->inclusive_ns);
		g_autofree char *exact = sa_format_ns_exact(self->ct->tree->inclusive_ns);

		g_string_append_printf(d, "%s: %s paths, %s (%s) in the outermost spans", window,
		                       paths, total, exact);
		if (self->selected != TSR_TRACE_NO_NODE) {
			g_autofree char *sel = describe_node(self, self->selected);

			g_string_append_printf(d, "; selected %s", sel);
		}
	}
	if (g_strcmp0(d->str, self->description) != 0) {
		g_free(self->description);
		self->description = g_strdup(d->str);
		gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
		                               self->description, -1);
	}
	g_string_free(d, TRUE);
}

/* --- Drawing ------------------------------------------------------------------------ */

static void frame_rect(SaFlameView *self, size_t i, int width, graphene_rect_t *r)
{
	double x = self->x0[i] * width, w = MAX(self->w[i] * width, 1.0);

	graphene_rect_init(r, (float)x, (float)(HEADER_H + self->ct->tree->nodes[i].depth * ROW_H),
	                   (float)w, ROW_H - 1);
}

static void sa_flame_view_snapshot(GtkWidget *widget, GtkSnapshot *s)
{
	SaFlameView *self = SA_FLAME_VIEW(widget);
	int width = gtk_widget_get_width(widget);
	gboolean dark = tsd_widget_is_dark(GTK_WIDGET(self));
	PangoLayout *layout;
	GdkRGBA fg;

	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	layout = gtk_widget_create_pango_layout(widget, NULL);
	pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
	if (self->description) {
		pango_layout_set_text(layout, self->description, -1);
		pango_layout_set_width(layout, (width - 8) * PANGO_SCALE);
		gtk_snapshot_save(s);
		gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT(4, 2));
		gtk_snapshot_append_layout(s, layout, &fg);
		gtk_snapshot_restore(s);
	}
	if (!self->ct || width <= 0) {
		g_object_unref(layout);
		return;
	}
	for (size_t i = 0; i < self->ct->tree->n_nodes; i++) {
		graphene_rect_t r;
		GdkRGBA c;

		if (self->w[i] * width < MIN_FRAME_PX)
			continue;
		frame_rect(self, i, width, &r);
		/* The timeline's colour of the name (one rule, tsc-palette.h). */
		c = sa_timeline_name_colour(sa_document_get_trace(self->doc),
		                            self->ct->tree->nodes[i].name, dark);
		gtk_snapshot_append_color(s, &c, &r);
		if (r.size.width > 24) {
			GdkRGBA text = tsc_palette_ink(&c);
			g_autofree char *name = node_name(self, i);

			pango_layout_set_text(layout, name, -1);
			pango_layout_set_width(layout, (int)((r.size.width - 6) * PANGO_SCALE));
			gtk_snapshot_save(s);
			gtk_snapshot_push_clip(s, &r);
			gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT(r.origin.x + 3, r.origin.y + 1));
			gtk_snapshot_append_layout(s, layout, &text);
			gtk_snapshot_pop(s);
			gtk_snapshot_restore(s);
		}
	}
	if (self->hover != TSR_TRACE_NO_NODE) {
		graphene_rect_t r;
		GdkRGBA c = {0.2f, 0.45f, 0.9f, 1};

		frame_rect(self, self->hover, width, &r);
		sa_timeline_draw_frame(s, &r, 0, 1, &c);
	}
	if (self->selected != TSR_TRACE_NO_NODE) {
		graphene_rect_t r;
		GdkRGBA c = dark ? (GdkRGBA){1, 1, 1, 1} : (GdkRGBA){0, 0, 0, 1};

		frame_rect(self, self->selected, width, &r);
		sa_timeline_draw_frame(s, &r, 0, 2, &c);
	}
	g_object_unref(layout);
}

/* --- Hit testing and input ------------------------------------------------------------ */

/* The frame under (x, y), or TSR_TRACE_NO_NODE. */
static size_t node_at(SaFlameView *self, double x, double y)
{
	int width = gtk_widget_get_width(GTK_WIDGET(self));
	double f;
	guint depth;
	size_t lo, n;

	if (!self->ct || y < HEADER_H || width <= 0)
		return TSR_TRACE_NO_NODE;
	depth = (guint)((y - HEADER_H) / ROW_H);
	f = x / width;
	/* Down from the roots: the child holding f at each depth. */
	lo = 0;
	n = self->ct->tree->n_roots;
	for (guint d = 0;; d++) {
		size_t hit = TSR_TRACE_NO_NODE;

		for (size_t k = lo; k < lo + n; k++) {
			if (f >= self->x0[k] && f < self->x0[k] + MAX(self->w[k], 1.0 / width)) {
				hit = k;
				break;
			}
		}
		if (hit == TSR_TRACE_NO_NODE || d == depth)
			return hit;
		lo = self->ct->tree->nodes[hit].first_child;
		n = self->ct->tree->nodes[hit].n_children;
	}
}

/* Selects node `index` of the tree (TSR_TRACE_NO_NODE: none). */
static void select_node(SaFlameView *self, size_t index)
{
	if (!self->ct || index >= self->ct->tree->n_nodes)
		index = TSR_TRACE_NO_NODE;
	self->selected = index;
	update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void on_pressed(GtkGestureClick *g, int n_press, double x, double y, gpointer data)
{
	SaFlameView *self = data;

	gtk_widget_grab_focus(GTK_WIDGET(self));
	select_node(self, node_at(self, x, y));
}

static void on_motion(GtkEventControllerMotion *ctl, double x, double y, gpointer data)
{
	SaFlameView *self = data;
	size_t h = node_at(self, x, y);

	if (h != self->hover) {
		self->hover = h;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void on_leave(GtkEventControllerMotion *ctl, gpointer data)
{
	SaFlameView *self = data;

	self->hover = TSR_TRACE_NO_NODE;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                 GtkTooltip *tooltip)
{
	SaFlameView *self = SA_FLAME_VIEW(widget);
	size_t i = keyboard ? self->selected : node_at(self, x, y);
	g_autofree char *text = NULL;

	if (i == TSR_TRACE_NO_NODE)
		return FALSE;
	text = describe_node(self, i);
	gtk_tooltip_set_text(tooltip, text);
	return TRUE;
}

static gboolean on_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
	SaFlameView *self = data;
	const tsr_trace_call_tree *t;
	size_t sel = self->selected, first, n;

	if (!self->ct || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) || !self->ct->tree->n_nodes)
		return FALSE;
	t = self->ct->tree;
	if (sel == TSR_TRACE_NO_NODE) {
		if (keyval == GDK_KEY_Escape)
			return FALSE;
		select_node(self, 0);
		return TRUE;
	}
	/* The selected node's siblings: nodes[first .. first + n). */
	if (t->nodes[sel].parent == TSR_TRACE_NO_NODE) {
		first = 0;
		n = t->n_roots;
	} else {
		first = t->nodes[t->nodes[sel].parent].first_child;
		n = t->nodes[t->nodes[sel].parent].n_children;
	}
	switch (keyval) {
	case GDK_KEY_Left: case GDK_KEY_KP_Left:
		select_node(self, sel > first ? sel - 1 : sel);
		return TRUE;
	case GDK_KEY_Right: case GDK_KEY_KP_Right:
		select_node(self, sel + 1 < first + n ? sel + 1 : sel);
		return TRUE;
	case GDK_KEY_Up: case GDK_KEY_KP_Up:
		if (t->nodes[sel].parent != TSR_TRACE_NO_NODE)
			select_node(self, t->nodes[sel].parent);
		return TRUE;
	case GDK_KEY_Down: case GDK_KEY_KP_Down:
		if (t->nodes[sel].n_children)
			select_node(self, t->nodes[sel].first_child);
		return TRUE;
	case GDK_KEY_Home:
		select_node(self, 0);
		return TRUE;
	case GDK_KEY_Escape:
		select_node(self, TSR_TRACE_NO_NODE);
		return TRUE;
	default:
		return FALSE;
	}
}

/* --- Public and GObject ------------------------------------------------------------------ */

enum { PROP_0, PROP_CALL_TREE, N_PROPS };
static GParamSpec *props[N_PROPS];

/* Shows `ct` (a reference is taken; NULL: nothing): property "call-tree",
 * which sa-window.ui binds to the Call Tree tab's. */
static void set_tree(SaFlameView *self, sa_call_tree *ct)
{
	if (self->ct == ct)
		return;
	g_clear_pointer(&self->ct, sa_call_tree_unref);
	g_clear_pointer(&self->doc, sa_document_unref);
	g_clear_pointer(&self->x0, g_free);
	g_clear_pointer(&self->w, g_free);
	self->selected = self->hover = TSR_TRACE_NO_NODE;
	self->depth = 0;
	if (ct) {
		self->ct = sa_call_tree_ref(ct);
		self->doc = sa_document_ref(ct->doc);
		lay_out(self);
	}
	update_description(self);
	gtk_widget_queue_resize(GTK_WIDGET(self));
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CALL_TREE]);
}

static void sa_flame_view_get_property(GObject *object, guint id, GValue *value,
                                       GParamSpec *pspec)
{
	if (id == PROP_CALL_TREE)
		g_value_set_boxed(value, SA_FLAME_VIEW(object)->ct);
	else
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void sa_flame_view_set_property(GObject *object, guint id, const GValue *value,
                                       GParamSpec *pspec)
{
	if (id == PROP_CALL_TREE)
		set_tree(SA_FLAME_VIEW(object), g_value_get_boxed(value));
	else
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void sa_flame_view_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                  int *minimum, int *natural, int *min_baseline,
                                  int *nat_baseline)
{
	SaFlameView *self = SA_FLAME_VIEW(widget);

	if (orientation == GTK_ORIENTATION_HORIZONTAL) {
		*minimum = 200;
		*natural = 800;
	} else {
		*minimum = *natural = HEADER_H + (int)MAX(self->depth, 1) * ROW_H + 4;
	}
	*min_baseline = *nat_baseline = -1;
}

static void sa_flame_view_dispose(GObject *object)
{
	set_tree(SA_FLAME_VIEW(object), NULL);
	G_OBJECT_CLASS(sa_flame_view_parent_class)->dispose(object);
}

static void sa_flame_view_finalize(GObject *object)
{
	g_free(SA_FLAME_VIEW(object)->description);
	G_OBJECT_CLASS(sa_flame_view_parent_class)->finalize(object);
}

static void sa_flame_view_class_init(SaFlameViewClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = sa_flame_view_dispose;
	G_OBJECT_CLASS(klass)->finalize = sa_flame_view_finalize;
	G_OBJECT_CLASS(klass)->get_property = sa_flame_view_get_property;
	G_OBJECT_CLASS(klass)->set_property = sa_flame_view_set_property;
	/* What the Call Tree tab shows (sa-window.ui binds the two). */
	props[PROP_CALL_TREE] =
	    g_param_spec_boxed("call-tree", NULL, NULL, SA_TYPE_CALL_TREE,
	                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(G_OBJECT_CLASS(klass), N_PROPS, props);
	widget_class->snapshot = sa_flame_view_snapshot;
	widget_class->measure = sa_flame_view_measure;
	widget_class->query_tooltip = on_query_tooltip;
	gtk_widget_class_set_css_name(widget_class, "flamegraph");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-flame-view.ui");
	gtk_widget_class_bind_template_callback(widget_class, on_pressed);
	gtk_widget_class_bind_template_callback(widget_class, on_motion);
	gtk_widget_class_bind_template_callback(widget_class, on_leave);
	gtk_widget_class_bind_template_callback(widget_class, on_key);
}

static void sa_flame_view_init(SaFlameView *self)
{
	self->selected = self->hover = TSR_TRACE_NO_NODE;
	gtk_widget_init_template(GTK_WIDGET(self));
	update_description(self);
}

GtkWidget *sa_flame_view_new(void)
{
	return g_object_new(SA_TYPE_FLAME_VIEW, NULL);
}
