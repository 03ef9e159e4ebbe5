/*
 * Helpers of the chart kit's widget tests (ck-test.h).
 */
#include "ck-test.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void ck_assert_close_impl(double a, double b, double tol, const char *expr, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %s = %g, expected %g (within %g)\n", file, line, expr, a, b, tol);
		_fail(file, line);
	}
}

void ck_init(void)
{
	if (!gtk_init_check()) {
		fprintf(stderr, "chartkit tests need a display: run them under xvfb-run\n");
		exit(1);
	}
}

void ck_iterate(void)
{
	for (int i = 0; i < 100 && g_main_context_pending(NULL); i++)
		g_main_context_iteration(NULL, FALSE);
}

GtkWidget *ck_window_new(GtkWidget *child, int width, int height)
{
	GtkWidget *win = gtk_window_new();

	gtk_window_set_default_size(GTK_WINDOW(win), width, height);
	gtk_window_set_child(GTK_WINDOW(win), child);
	gtk_window_present(GTK_WINDOW(win));
	for (int i = 0; i < 2000 && gtk_widget_get_width(child) != width; i++)
		g_main_context_iteration(NULL, TRUE);
	ck_iterate();
	return win;
}

GskRenderNode *ck_snapshot(GtkWidget *w)
{
	GtkSnapshot *s = gtk_snapshot_new();

	gtk_widget_snapshot_child(gtk_widget_get_parent(w), w, s);
	return gtk_snapshot_free_to_node(s);
}

/* Calls `fn` on every node of the tree. */
static void walk(GskRenderNode *node, void (*fn)(GskRenderNode *, gpointer), gpointer data)
{
	guint i;

	if (!node)
		return;
	fn(node, data);
	switch (gsk_render_node_get_node_type(node)) {
	case GSK_CONTAINER_NODE:
		for (i = 0; i < gsk_container_node_get_n_children(node); i++)
			walk(gsk_container_node_get_child(node, i), fn, data);
		break;
	case GSK_TRANSFORM_NODE:
		walk(gsk_transform_node_get_child(node), fn, data);
		break;
	case GSK_CLIP_NODE:
		walk(gsk_clip_node_get_child(node), fn, data);
		break;
	case GSK_ROUNDED_CLIP_NODE:
		walk(gsk_rounded_clip_node_get_child(node), fn, data);
		break;
	case GSK_OPACITY_NODE:
		walk(gsk_opacity_node_get_child(node), fn, data);
		break;
	case GSK_DEBUG_NODE:
		walk(gsk_debug_node_get_child(node), fn, data);
		break;
	case GSK_COLOR_MATRIX_NODE:
		walk(gsk_color_matrix_node_get_child(node), fn, data);
		break;
	case GSK_SHADOW_NODE:
		walk(gsk_shadow_node_get_child(node), fn, data);
		break;
	default:
		break;
	}
}

typedef struct {
	const GdkRGBA *colour;
	guint n;
	int w, h;
} Count;

static void count_colour(GskRenderNode *node, gpointer data)
{
	Count *c = data;

	if (gsk_render_node_get_node_type(node) == GSK_COLOR_NODE &&
	    (!c->colour || gdk_rgba_equal(gsk_color_node_get_color(node), c->colour)))
		c->n++;
}

guint ck_count_colour_nodes(GskRenderNode *node, const GdkRGBA *colour)
{
	Count c = { colour, 0, 0, 0 };

	walk(node, count_colour, &c);
	return c.n;
}

static void count_texture(GskRenderNode *node, gpointer data)
{
	Count *c = data;

	if (gsk_render_node_get_node_type(node) != GSK_TEXTURE_NODE)
		return;
	if (c->n++ == 0) {
		GdkTexture *t = gsk_texture_node_get_texture(node);

		c->w = gdk_texture_get_width(t);
		c->h = gdk_texture_get_height(t);
	}
}

guint ck_count_textures(GskRenderNode *node, int *w, int *h)
{
	Count c = { NULL, 0, 0, 0 };

	walk(node, count_texture, &c);
	if (w)
		*w = c.w;
	if (h)
		*h = c.h;
	return c.n;
}

GdkTexture *ck_render(GskRenderNode *node, int scale)
{
	GskRenderer *r = gsk_cairo_renderer_new();
	GskRenderNode *scaled;
	GskTransform *tr;
	graphene_rect_t b;
	GdkTexture *t;

	g_assert_true(gsk_renderer_realize(r, NULL, NULL));
	gsk_render_node_get_bounds(node, &b);
	tr = gsk_transform_scale(NULL, (float)scale, (float)scale);
	tr = gsk_transform_translate(tr, &GRAPHENE_POINT_INIT(-b.origin.x, -b.origin.y));
	scaled = tr ? gsk_transform_node_new(node, tr) : gsk_render_node_ref(node);
	gsk_transform_unref(tr);
	t = gsk_renderer_render_texture(r, scaled,
		&GRAPHENE_RECT_INIT(0, 0, ceilf(b.size.width * scale), ceilf(b.size.height * scale)));
	gsk_render_node_unref(scaled);
	gsk_renderer_unrealize(r);
	g_object_unref(r);
	return t;
}

double ck_pixel_variance(GdkTexture *t)
{
	int w = gdk_texture_get_width(t), h = gdk_texture_get_height(t), i;
	guchar *px = g_malloc((gsize)w * h * 4);
	double sum = 0, sum2 = 0, n = (double)w * h;

	gdk_texture_download(t, px, (gsize)w * 4);
	for (i = 0; i < w * h; i++) {
		/* Premultiplied BGRA (cairo's format): alpha-weighted luminance. */
		double y = 0.114 * px[4 * i] + 0.587 * px[4 * i + 1] + 0.299 * px[4 * i + 2];

		sum += y;
		sum2 += y * y;
	}
	g_free(px);
	return sum2 / n - (sum / n) * (sum / n);
}

char *ck_mkdtemp(void)
{
	GError *error = NULL;
	char *dir = g_dir_make_tmp("tsc-chartkit-XXXXXX", &error);

	g_assert_no_error(error);
	return dir;
}

void ck_rmtree(const char *path)
{
	GDir *d = g_dir_open(path, 0, NULL);
	const char *name;

	if (!d)
		return;
	while ((name = g_dir_read_name(d))) {
		char *p = g_build_filename(path, name, NULL);

		if (g_file_test(p, G_FILE_TEST_IS_DIR))
			ck_rmtree(p);
		else
			g_unlink(p);
		g_free(p);
	}
	g_dir_close(d);
	g_rmdir(path);
}
