/*
 * The Memory view (ga-memory-view.h). The chart's items are tiles in the
 * chosen order: software order is tile number, physical order walks each
 * IPU's map row by row (ga-tile-layout.h), so `order` maps an item to its
 * tile and `item_of` back. Everything the chart shows comes from the
 * document's arrays, read off the main thread when the report loaded,
 * but for the category stacking's split of overlapped storage, read from
 * reportlib once per report on first use; changing the stacking, the
 * gaps or the order rebuilds the chart's data in a few milliseconds.
 * Selections go to the session as tile numbers, so every view sees them.
 *
 * Every stacking follows reportlib's two rules, so that a bar's total is
 * the tile's figure on every screen: with Include Gaps, the gaps
 * (tsr_tile_memory_get_gaps: up to the highest address used) are one
 * part of their own, and by category, overlapped storage is one part
 * counted after sharing (tsr_report_fill_sharing_by_tile), beside each
 * category's storage of its own; the categories' bytes before sharing
 * add up past what the tile holds.
 *
 * Comparing, a chart of B − A per tile (increases and decreases as
 * two colours, both drawn upwards as magnitudes: the chart kit's bars
 * start at 0) and report B's usual chart sit above A's, on the same tile
 * axis and zoom (rebuild_compare says how different tile counts go).
 *
 * The widgets are declared in ga-memory-view.ui; this file fills them.
 * The view is a GaView: the base follows the session's documents, shows
 * the empty page without one, and the template shows the comparison's
 * charts and headings through the base's "compare" and documents.
 */
#include "ga-memory-view.h"

#include "ga-format.h"
#include "ga-memory-selection.h"
#include "ga-tile-layout.h"

#include <tilescope/compare.h>
#include <tilescope/tsc-axis.h>
#include <tilescope/tsc-chart.h>
#include <tilescope/tsc-heatmap.h>
#include <tilescope/tsc-palette.h>
#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-widget.h>

#include <math.h>
#include <string.h>

enum { STACK_REGION = 0, STACK_CATEGORY, STACK_LIVENESS };

/* A report's figures for the category stacking: each category's bytes in
 * storage of its own on every tile, and every tile's sharing. */
typedef struct category_split {
	GaDocument *doc;              /* whose (not a ref: cleared with the view's documents) */
	uint64_t **own;               /* tsr_category_count() arrays of num_tiles */
	tsr_memory_sharing *sharing;  /* num_tiles */
	char *error;                  /* reportlib's message when reading failed, else NULL */
} category_split;

struct _GaMemoryView {
	GaView parent_instance;

	GaSession *session;         /* the base's (borrowed) */
	GaDocument *doc;            /* the base's document (borrowed), or NULL */
	GaDocument *compare;        /* the base's report B (borrowed), or NULL */
	gboolean syncing_range;     /* a zoom being copied between the charts */
	ga_tile_layout layout;
	guint n_tiles;
	guint *order;               /* item -> tile */
	guint *item_of;             /* tile -> item */
	category_split split[2];    /* of the document and of report B */
	gboolean syncing;           /* a selection being copied between chart and session */
	guint entry_timeout;        /* applies "Select tiles" a moment after typing stops */

	/* From the template (ga-memory-view.ui). */
	GtkDropDown *stack_by;
	GtkCheckButton *gaps;
	GtkCheckButton *max_line;
	GtkDropDown *ipu;
	GtkDropDown *order_by;
	GtkEntry *tiles_entry;
	GtkLabel *tiles_error;
	TscChart *chart;
	GtkLabel *chart_caption;
	char *caption;              /* the chart caption's text about the report */
	GtkWidget *bottom;          /* the tile maps and the selection */
	TscChart *diff_chart;       /* B - A per tile: increases and decreases */
	GtkLabel *diff_caption;
	TscChart *b_chart;          /* report B's usual chart */
	GtkWidget *legend;          /* a GtkFlowBox: colour and name of each component */
	GtkWidget *var_legend;      /* a GtkFlowBox: each graphed variable and its Remove */
	GArray *vars;               /* size_t: the graphed variables (tsr_report_get_variables) */
	GtkWidget *maps_scroll;     /* scrolls the maps when zoomed */
	GtkWidget *maps_ramp;       /* the maps' one colour scale, under them */
	GtkWidget *maps_ramp_bar;   /* its ramp (map_ramp as a CSS gradient) */
	GtkLabel *maps_ramp_top;    /* its top: the fullest tile's bytes */
	GtkWidget *maps;            /* a grid of the IPUs' tile maps, map_cols a row */
	guint map_cols;             /* ga_tile_layout_grid_columns for the pane's size */
	int map_split;              /* the maps' width the view chose (relayout_maps) */
	guint relayout_idle;        /* re-lays out the maps after a resize (relayout_maps) */
	double map_zoom;            /* 1: the maps fit the pane */
	double map_anchor[2];       /* scroll x and y to go to when zoomed maps get their size, or NAN */
	guint anchor_idle;          /* goes there (apply_map_anchor) */
	GPtrArray *heatmaps;        /* TscHeatmap per IPU */
	GaMemorySelection *selection;
};

G_DEFINE_FINAL_TYPE(GaMemoryView, ga_memory_view, GA_TYPE_VIEW)

/* --- Colours -------------------------------------------------------------------------- */

/* Region colours; a category's is its name's (tsc-palette.h), the same
 * in every chart and in compare mode. */
static const char *const region_colours[] = {"#3b7dd8", "#e5a50a", "#c01c28"};
static const char *const region_names[] = {"Interleaved", "Non-interleaved", "Overflowed"};

static GdkRGBA colour(const char *spec)
{
	GdkRGBA c;

	gdk_rgba_parse(&c, spec);
	return c;
}

/* Styles `widget` alone with the CSS `css` (a swatch's or the ramp's colours). */
static void style(GtkWidget *widget, const char *css)
{
	g_autoptr(GtkCssProvider) p = gtk_css_provider_new();

	gtk_css_provider_load_from_data(p, css, -1);
	gtk_style_context_add_provider(gtk_widget_get_style_context(widget), GTK_STYLE_PROVIDER(p),
	                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

/* The largest total of `doc`'s tiles, with gaps or not. */
static uint64_t fullest_tile(GaDocument *doc, gboolean gaps)
{
	size_t n;
	const tsr_tile_memory *tiles = ga_document_get_tiles(doc, &n);
	uint64_t top = 0;

	for (size_t t = 0; t < n; t++)
		top = MAX(top, tsr_tile_memory_get_bytes(&tiles[t], gaps));
	return top;
}

/* A line across `chart` at `bytes`, named "`what` 1.2 MB". */
static void add_limit(TscChart *chart, const char *what, uint64_t bytes)
{
	g_autofree char *text = tsc_format_bytes((double)bytes, NULL);
	g_autofree char *label = g_strdup_printf("%s %s", what, text);

	tsc_chart_add_limit(chart, (double)bytes, label, NULL);
}

/* --- Formatting -------------------------------------------------------------------------- */

/* "Tile 52 (IPU 0)" for item `item`. */
static char *item_label(guint item, gpointer data)
{
	GaMemoryView *self = data;
	guint tile = self->order && item < self->n_tiles ? self->order[item] : item;
	guint per = self->layout.tiles_per_ipu ? self->layout.tiles_per_ipu : 1;

	return g_strdup_printf("Tile %u (IPU %u)", tile, tile / per);
}

/* --- Legend and tile maps -------------------------------------------------------------------- */

/* The chart's components as colour swatches with their names. */
static void fill_legend(GaMemoryView *self, guint k, const GdkRGBA *colours,
                        const char *const *names)
{
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(self->legend)))
		gtk_flow_box_remove(GTK_FLOW_BOX(self->legend), child);
	for (guint i = 0; i < k; i++) {
		GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
		/* The colour is said by the chart's description, not the swatch. */
		GtkWidget *swatch = g_object_new(GTK_TYPE_DRAWING_AREA, "accessible-role",
		                                 GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
		GtkWidget *label = gtk_label_new(names[i]);
		g_autofree char *spec = gdk_rgba_to_string(&colours[i]);
		g_autofree char *css = g_strdup_printf("* { background-color: %s; border-radius: 2px; }",
		                                       spec);

		style(swatch, css);
		gtk_widget_set_size_request(swatch, 12, 12);
		gtk_widget_set_valign(swatch, GTK_ALIGN_CENTER);
		gtk_widget_add_css_class(label, "caption");
		gtk_box_append(GTK_BOX(box), swatch);
		gtk_box_append(GTK_BOX(box), label);
		gtk_flow_box_append(GTK_FLOW_BOX(self->legend), box);
		/* The legend's cell says its component (GTK 4.8: "GtkFlowBoxChild"). */
		gtk_accessible_update_property(GTK_ACCESSIBLE(gtk_widget_get_parent(box)),
		                               GTK_ACCESSIBLE_PROPERTY_LABEL, names[i], -1);
	}
}

/* The maps' ramp (viridis, dark to light), on every map and, once, under
 * them all: they share one scale. */
static const char *const map_ramp[] = {"#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"};

/* A tile map cell's name: "Tile 52". */
static char *cell_label(guint cell, gpointer data)
{
	GtkWidget *map = data;
	GaMemoryView *self = g_object_get_data(G_OBJECT(map), "ga-view");
	guint ipu = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(map), "ga-ipu"));
	guint tile = ga_tile_layout_tile_at(&self->layout, ipu, cell);

	if (tile == G_MAXUINT)
		return g_strdup("No tile");
	return g_strdup_printf("Tile %u (IPU %u)", tile, ipu);
}

static void on_map_selection(TscHeatmap *map, gpointer data);

/* Multiplies the maps' zoom by `factor` (0: back to 1), keeping what is
 * at the pane's centre there (GTK 4.8's scroll events carry no pointer
 * position). At 1 the maps share the pane; zoomed, each is that many
 * times its share and the pane scrolls. */
static void zoom_maps(GaMemoryView *self, double factor)
{
	guint n = self->heatmaps->len, cols = MAX(self->map_cols, 1), rows = (n + cols - 1) / cols;
	double w = gtk_widget_get_width(self->maps_scroll), h = gtk_widget_get_height(self->maps_scroll);
	GtkScrolledWindow *sw = GTK_SCROLLED_WINDOW(self->maps_scroll);
	double old = self->map_zoom, at[2] = {w / 2, h / 2};

	self->map_zoom = factor > 0 ? CLAMP(self->map_zoom * factor, 1, 16) : 1;
	for (int i = 0; i < 2 && self->map_zoom != old; i++)
		self->map_anchor[i] = (gtk_adjustment_get_value(i ? gtk_scrolled_window_get_vadjustment(sw)
		                                                  : gtk_scrolled_window_get_hadjustment(sw)) +
		                       at[i]) * self->map_zoom / old - at[i];
	for (guint i = 0; i < n; i++)
		gtk_widget_set_size_request(self->heatmaps->pdata[i],
		                            self->map_zoom > 1 ? (int)(self->map_zoom * w / cols) : -1,
		                            self->map_zoom > 1 ? (int)(self->map_zoom * h / rows) : -1);
}

/* Places the maps in the grid that gives them the largest cells in the
 * pane's present size (ga_tile_layout_grid_columns); run after a
 * resize, outside the allocation that changed the size. */
static gboolean relayout_maps(gpointer data)
{
	GaMemoryView *self = data;
	GtkLayoutManager *grid = gtk_widget_get_layout_manager(self->maps);
	GtkPaned *split = GTK_PANED(self->bottom);
	int title = 0, s = gtk_widget_get_scale_factor(self->maps);
	/* Until the split is dragged by hand, the maps get the width their
	 * best grid uses, of all but the selection's 360 px. */
	gboolean fit = self->layout.num_ipus > 1 && gtk_paned_get_position(split) == self->map_split;
	double w = fit ? gtk_widget_get_width(self->bottom) - 360 : gtk_widget_get_width(self->maps_scroll);
	guint cols, cell;

	self->relayout_idle = 0;
	if (!self->heatmaps->len || w <= 0)
		return G_SOURCE_REMOVE;
	/* A map's box: its title, 4 px, and the map's 4 px margins. */
	gtk_widget_measure(gtk_widget_get_prev_sibling(self->heatmaps->pdata[0]),
	                   GTK_ORIENTATION_VERTICAL, -1, NULL, &title, NULL, NULL);
	cols = ga_tile_layout_grid_columns(&self->layout, w * s,
	                                   gtk_widget_get_height(self->maps_scroll) * s, 8.0 * s,
	                                   (title + 12.0) * s, 12.0 * s, 8.0 * s, &cell);
	if (fit) {
		self->map_split = (int)(cols * (ceil((double)cell * self->layout.columns / s) + 8) +
		                        (cols - 1) * 12);
		gtk_paned_set_position(split, self->map_split);
	}
	if (cols == self->map_cols)
		return G_SOURCE_REMOVE;
	self->map_cols = cols;
	for (guint i = 0; i < self->heatmaps->len; i++) {
		GtkLayoutChild *child = gtk_layout_manager_get_layout_child(
		    grid, gtk_widget_get_parent(self->heatmaps->pdata[i]));

		gtk_grid_layout_child_set_column(GTK_GRID_LAYOUT_CHILD(child), (int)(i % cols));
		gtk_grid_layout_child_set_row(GTK_GRID_LAYOUT_CHILD(child), (int)(i / cols));
	}
	zoom_maps(self, 1);
	return G_SOURCE_REMOVE;
}

static void on_maps_resized(GtkAdjustment *adj, GParamSpec *pspec, gpointer data)
{
	GaMemoryView *self = data;

	(void)adj, (void)pspec;
	if (!self->relayout_idle)
		self->relayout_idle = g_idle_add(relayout_maps, self);
}

/* Scrolls a zoomed pane to keep the anchor in place, once the maps
 * have their new size (GtkViewport sets the scroll as it sizes them). */
static gboolean apply_map_anchor(gpointer data)
{
	GaMemoryView *self = data;
	GtkScrolledWindow *sw = GTK_SCROLLED_WINDOW(self->maps_scroll);

	self->anchor_idle = 0;
	for (int i = 0; i < 2; i++)
		if (!isnan(self->map_anchor[i]))
			gtk_adjustment_set_value(i ? gtk_scrolled_window_get_vadjustment(sw)
			                           : gtk_scrolled_window_get_hadjustment(sw),
			                         self->map_anchor[i]);
	self->map_anchor[0] = self->map_anchor[1] = NAN;
	return G_SOURCE_REMOVE;
}

static void on_maps_upper(GtkAdjustment *adj, GParamSpec *pspec, gpointer data)
{
	GaMemoryView *self = data;

	(void)adj, (void)pspec;
	if (!self->anchor_idle && !(isnan(self->map_anchor[0]) && isnan(self->map_anchor[1])))
		self->anchor_idle = g_idle_add(apply_map_anchor, self);
}

/* Ctrl+wheel over the maps zooms them (the wheel alone scrolls). */
static gboolean on_maps_scroll(GtkEventControllerScroll *scroll, double dx, double dy, gpointer data)
{
	(void)dx;
	if (!(gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(scroll)) &
	      GDK_CONTROL_MASK) || dy == 0)
		return FALSE;
	zoom_maps(data, dy < 0 ? 1.25 : 0.8);
	return TRUE;
}

/* +, - and Home on a map, as on the chart kit's zoomable plots. */
static gboolean on_maps_key(GtkEventControllerKey *key, guint keyval, guint keycode,
                            GdkModifierType mods, gpointer data)
{
	(void)key, (void)keycode, (void)mods;
	switch (keyval) {
	case GDK_KEY_plus: case GDK_KEY_equal: case GDK_KEY_KP_Add: zoom_maps(data, 1.25); return TRUE;
	case GDK_KEY_minus: case GDK_KEY_KP_Subtract: zoom_maps(data, 0.8); return TRUE;
	case GDK_KEY_Home: zoom_maps(data, 0); return TRUE;
	default: return FALSE;
	}
}

/* Each IPU's tile map, coloured by the tile's total (with gaps when they
 * are included), from 0 to the fullest tile of any IPU (one scale for all
 * maps, so IPUs compare). */
static void fill_maps(GaMemoryView *self, gboolean gaps)
{
	size_t n_tiles;
	const tsr_tile_memory *tiles = ga_document_get_tiles(self->doc, &n_tiles);
	guint cells = self->layout.rows * self->layout.columns;
	g_autofree double *values = g_new(double, cells ? cells : 1);
	double top = (double)fullest_tile(self->doc, gaps);
	GdkRGBA ramp[G_N_ELEMENTS(map_ramp)];
	g_autofree char *top_text = NULL, *scale = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(map_ramp); i++)
		ramp[i] = colour(map_ramp[i]);
	top_text = tsc_format_bytes(top, NULL);
	scale = g_strdup_printf("The tile maps' colour scale: 0 B to %s", top_text);
	gtk_label_set_text(self->maps_ramp_top, top_text);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->maps_ramp), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               scale, -1);
	if (self->heatmaps->len != self->layout.num_ipus) {
		tsd_widget_remove_children(self->maps);
		g_ptr_array_set_size(self->heatmaps, 0);
		/* Several IPUs' maps start with two thirds of the width, the
		 * selection the rest; relayout_maps then fits the split to
		 * their grid. */
		self->map_split = self->layout.num_ipus < 2 ? 420
		                  : gtk_widget_get_width(self->bottom) > 0
		                      ? gtk_widget_get_width(self->bottom) * 2 / 3
		                      : 700;
		gtk_paned_set_position(GTK_PANED(self->bottom), self->map_split);
		for (guint ipu = 0; ipu < self->layout.num_ipus; ipu++) {
			GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
			g_autofree char *title = g_strdup_printf("IPU %u", ipu);
			g_autofree char *acc = g_strdup_printf("Tile map, IPU %u", ipu);
			GtkWidget *label = gtk_label_new(title);
			GtkWidget *map = tsc_heatmap_new();

			gtk_label_set_xalign(GTK_LABEL(label), 0);
			gtk_widget_add_css_class(label, "heading");
			g_object_set_data(G_OBJECT(map), "ga-view", self);
			g_object_set_data(G_OBJECT(map), "ga-ipu", GUINT_TO_POINTER(ipu));
			tsc_heatmap_set_label(TSC_HEATMAP(map), acc);
			tsc_heatmap_set_value_format_func(TSC_HEATMAP(map), tsc_format_bytes, NULL, NULL);
			tsc_heatmap_set_ramp(TSC_HEATMAP(map), ramp, G_N_ELEMENTS(ramp));
			tsc_heatmap_set_legend_visible(TSC_HEATMAP(map), FALSE);
			tsc_heatmap_set_cell_label_func(TSC_HEATMAP(map), cell_label, map, NULL);
			gtk_widget_set_hexpand(map, TRUE);
			gtk_widget_set_vexpand(map, TRUE);
			g_signal_connect(map, "selection-changed", G_CALLBACK(on_map_selection), self);
			gtk_box_append(GTK_BOX(box), label);
			gtk_box_append(GTK_BOX(box), map);
			gtk_grid_attach(GTK_GRID(self->maps), box, (int)ipu, 0, 1, 1);
			g_ptr_array_add(self->heatmaps, map);
		}
		self->map_cols = self->layout.num_ipus;
		zoom_maps(self, 0);
		relayout_maps(self);
	}
	for (guint ipu = 0; ipu < self->layout.num_ipus; ipu++) {
		for (guint c = 0; c < cells; c++) {
			guint tile = ga_tile_layout_tile_at(&self->layout, ipu, c);

			values[c] = tile == G_MAXUINT || tile >= n_tiles
			                ? NAN
			                : (double)tsr_tile_memory_get_bytes(&tiles[tile], gaps);
		}
		tsc_heatmap_set_data(self->heatmaps->pdata[ipu], self->layout.rows,
		                     self->layout.columns, values);
		tsc_heatmap_set_range(self->heatmaps->pdata[ipu], 0, top);
	}
}

/* --- The Variables graph ------------------------------------------------------------------- */

/* Line colours that read over the stacks' colours in both themes. */
static const char *const var_colours[] = {"#813d9c", "#26a269", "#c061cb", "#0f8b8d",
                                          "#986a44", "#33c7de", "#8ff0a4", "#f66151"};

static void fill_variables(GaMemoryView *self);

static void on_var_remove(GtkButton *button, gpointer data)
{
	GaMemoryView *self = data;
	size_t v = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(button), "ga-var"));

	for (guint i = 0; i < self->vars->len; i++)
		if (g_array_index(self->vars, size_t, i) == v) {
			g_array_remove_index(self->vars, i);
			break;
		}
	fill_variables(self);
}

/* Variable `v` of `doc`'s report as a line on `chart`, whose n items
 * are the tiles in `order` (NULL: tile number); returns its figures along
 * that line ("S B on N tiles, most T B on tile K") or reportlib's
 * message. The caller frees it with g_free. */
static char *add_line(GaDocument *doc, size_t v, const guint *order, guint n, TscChart *chart,
                      const GdkRGBA *c)
{
	tsr_report *report = ga_document_get_report(doc);
	const tsr_variable *vars = NULL;
	size_t n_vars = 0;
	g_autofree uint64_t *by_tile = g_new0(uint64_t, n ? n : 1);
	g_autofree double *values = g_new0(double, n ? n : 1);
	g_autofree char *s = NULL, *t = NULL, *o = NULL;
	uint64_t sum = 0, top = 0;
	guint on = 0, top_tile = 0;

	if (tsr_report_get_variables(&vars, &n_vars, report) ||
	    tsr_report_fill_variable_by_tile(by_tile, n, report, v))
		return g_strdup(tsr_report_error(report));
	for (guint i = 0; i < n; i++) {
		guint tile = order ? order[i] : i;

		values[i] = (double)by_tile[tile];
		sum += by_tile[tile];
		on += by_tile[tile] > 0;
		if (by_tile[tile] > top) {
			top = by_tile[tile];
			top_tile = tile;
		}
	}
	tsc_chart_add_series(chart, vars[v].name, values, c, TSC_SERIES_LINE);
	s = ga_format_u64(sum), t = ga_format_u64(top), o = ga_format_u64(on);
	return g_strdup_printf("%s B on %s tiles, most %s B on tile %u", s, o, t, top_tile);
}

/* Each graphed variable's bytes by tile (reportlib's, in the chart's
 * item order) as a line over the chart, and its legend entry: colour,
 * name, its figures along that line and a Remove button. Comparing,
 * report B's variable of the same name is a line over B's chart (in B's
 * order, as rebuild_compare's), and the entry gives its figures too, or
 * says B has none. */
static void fill_variables(GaMemoryView *self)
{
	const tsr_variable *vars = NULL, *b_vars = NULL;
	size_t n_vars = 0, n_b_vars = 0, n_b = 0;
	GtkWidget *child;

	tsc_chart_clear_series(self->chart);
	tsc_chart_clear_series(self->b_chart);
	while ((child = gtk_widget_get_first_child(self->var_legend)))
		gtk_flow_box_remove(GTK_FLOW_BOX(self->var_legend), child);
	if (tsr_report_get_variables(&vars, &n_vars, ga_document_get_report(self->doc)))
		g_array_set_size(self->vars, 0);
	if (self->compare) {
		ga_document_get_tiles(self->compare, &n_b);
		tsr_report_get_variables(&b_vars, &n_b_vars, ga_document_get_report(self->compare));
	}
	for (guint k = 0; k < self->vars->len; k++) {
		size_t v = g_array_index(self->vars, size_t, k), w = 0;
		const char *spec = var_colours[k % G_N_ELEMENTS(var_colours)];
		GdkRGBA c = colour(spec);
		g_autofree char *figures = add_line(self->doc, v, self->order, self->n_tiles, self->chart, &c);
		g_autofree char *b = NULL, *text = NULL, *acc = NULL;
		GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4), *label, *remove;

		while (self->compare && w < n_b_vars && g_strcmp0(b_vars[w].name, vars[v].name) != 0)
			w++;
		if (self->compare && w < n_b_vars)
			b = add_line(self->compare, w, n_b == self->n_tiles ? self->order : NULL, (guint)n_b,
			             self->b_chart, &c);
		text = g_strdup_printf("%s: %s%s%s", vars[v].name, figures,
		                       b ? "; in B: " : self->compare ? "; absent in B" : "", b ? b : "");
		label = gtk_label_new(NULL);
		acc = g_markup_printf_escaped("<span foreground=\"%s\">━━</span> %s", spec, text);
		gtk_label_set_markup(GTK_LABEL(label), acc);
		gtk_label_set_wrap(GTK_LABEL(label), TRUE);
		gtk_widget_add_css_class(label, "caption");
		remove = gtk_button_new_from_icon_name("window-close-symbolic");
		gtk_widget_add_css_class(remove, "flat");
		g_object_set_data(G_OBJECT(remove), "ga-var", GSIZE_TO_POINTER(v));
		g_signal_connect(remove, "clicked", G_CALLBACK(on_var_remove), self);
		g_free(acc);
		acc = g_strdup_printf("Remove %s", vars[v].name);
		gtk_widget_set_tooltip_text(remove, acc);
		gtk_accessible_update_property(GTK_ACCESSIBLE(remove), GTK_ACCESSIBLE_PROPERTY_LABEL, acc,
		                               -1);
		gtk_box_append(GTK_BOX(box), label);
		gtk_box_append(GTK_BOX(box), remove);
		gtk_flow_box_append(GTK_FLOW_BOX(self->var_legend), box);
		gtk_accessible_update_property(GTK_ACCESSIBLE(gtk_widget_get_parent(box)),
		                               GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
	}
}

/* Adds variable `v` to the graph (once). */
static void add_variable(GaMemoryView *self, size_t v)
{
	for (guint i = 0; i < self->vars->len; i++)
		if (g_array_index(self->vars, size_t, i) == v)
			return;
	g_array_append_val(self->vars, v);
	fill_variables(self);
}

/* Shows `message` under the bar (NULL: hides it). */
static void show_error(GaMemoryView *self, GtkWidget *entry, const char *message)
{
	gtk_label_set_text(self->tiles_error, message ? message : "");
	gtk_widget_set_visible(GTK_WIDGET(self->tiles_error), message != NULL);
	if (message)
		gtk_widget_add_css_class(entry, "error");
	else
		gtk_widget_remove_css_class(entry, "error");
}

/* A name typed in "Variables graph": the variable of that name, else the
 * largest whose name holds the text (any case). */
static void on_var_entry(GtkEntry *entry, gpointer data)
{
	GaMemoryView *self = data;
	const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
	g_autofree char *want = g_utf8_casefold(text, -1);
	const tsr_variable *vars = NULL;
	size_t n = 0, best = G_MAXSIZE;

	if (!self->doc || !*text)
		return;
	tsr_report_get_variables(&vars, &n, ga_document_get_report(self->doc));
	for (size_t v = 0; v < n; v++) {
		g_autofree char *name = NULL;

		if (strcmp(vars[v].name, text) == 0) {
			best = v;
			break;
		}
		name = g_utf8_casefold(vars[v].name, -1);
		if (strstr(name, want) && (best == G_MAXSIZE || vars[v].bytes > vars[best].bytes))
			best = v;
	}
	if (best == G_MAXSIZE) {
		g_autofree char *m = g_strdup_printf("No variable's name holds “%s”", text);

		show_error(self, GTK_WIDGET(entry), m);
		return;
	}
	show_error(self, GTK_WIDGET(entry), NULL);
	gtk_editable_set_text(GTK_EDITABLE(entry), "");
	add_variable(self, best);
}

/* "Add Selected Variable": the session's (picked in the Variables table). */
static void on_add_selected(GtkButton *button, gpointer data)
{
	GaMemoryView *self = data;
	gint64 v = ga_session_get_variable(self->session);

	if (!self->doc)
		return;
	show_error(self, GTK_WIDGET(button),
	           v < 0 ? "No variable is selected: pick one in the Variables table" : NULL);
	if (v >= 0)
		add_variable(self, (size_t)v);
}

/* --- The chart's data ---------------------------------------------------------------------- */

static void category_split_clear(category_split *cs)
{
	for (size_t c = 0; cs->own && c < tsr_category_count(); c++)
		g_free(cs->own[c]);
	g_clear_pointer(&cs->own, g_free);
	g_clear_pointer(&cs->sharing, g_free);
	g_clear_pointer(&cs->error, g_free);
	cs->doc = NULL;
}

/* `doc`'s category split, read from reportlib on first use (zeros and
 * the message when the read fails). */
static const category_split *category_split_of(GaMemoryView *self, GaDocument *doc)
{
	tsr_report *report = ga_document_get_report(doc);
	size_t n, nc = tsr_category_count();
	category_split *cs;
	int rc;

	for (guint i = 0; i < G_N_ELEMENTS(self->split); i++)
		if (self->split[i].doc == doc)
			return &self->split[i];
	cs = self->split[0].doc ? &self->split[1] : &self->split[0];
	category_split_clear(cs);
	ga_document_get_tiles(doc, &n);
	cs->doc = doc;
	cs->own = g_new0(uint64_t *, nc ? nc : 1);
	cs->sharing = g_new0(tsr_memory_sharing, n ? n : 1);
	rc = tsr_report_fill_sharing_by_tile(cs->sharing, n, report);
	for (size_t c = 0; c < nc; c++) {
		cs->own[c] = g_new0(uint64_t, n ? n : 1);
		if (!rc)
			rc = tsr_report_fill_category_by_tile_overlap(cs->own[c], n, report, c, FALSE);
	}
	if (rc)
		cs->error = g_strdup(tsr_report_error(report));
	return cs;
}

/* The item order and its inverse for the chosen order. */
static void build_order(GaMemoryView *self)
{
	g_clear_pointer(&self->order, g_free);
	g_clear_pointer(&self->item_of, g_free);
	if (gtk_drop_down_get_selected(self->order_by) == 1) {
		self->order = ga_tile_layout_physical_order(&self->layout);
	} else {
		self->order = g_new(guint, self->n_tiles ? self->n_tiles : 1);
		for (guint t = 0; t < self->n_tiles; t++)
			self->order[t] = t;
	}
	self->item_of = g_new(guint, self->n_tiles ? self->n_tiles : 1);
	for (guint i = 0; i < self->n_tiles; i++)
		self->item_of[self->order[i]] = i;
}

/* The stacks' data as fill_stacks builds it: n items, k components so far. */
typedef struct stacks {
	double *values;       /* component c's value of item i at [c * n + i] */
	guint n, k;
	GPtrArray *names;     /* each component's name */
	GArray *colours;      /* GdkRGBA: each component's colour */
} stacks;

/* Appends a component named `name` (taken) in colour `c`; returns its
 * row of values for the caller to fill. */
static double *stacks_add(stacks *st, char *name, GdkRGBA c)
{
	g_ptr_array_add(st->names, name);
	g_array_append_val(st->colours, c);
	return &st->values[(size_t)st->k++ * st->n];
}

/* The overlapped storage's name, with the categories it holds, so that
 * a category left without storage of its own is still found in the
 * legend. */
static char *overlapped_name(GaDocument *doc, const category_split *cs, size_t n_tiles)
{
	g_autoptr(GString) shared = g_string_new(NULL);

	for (size_t c = 0; c < tsr_category_count(); c++) {
		const uint64_t *all = ga_document_get_category_by_tile(doc, c);
		gboolean any = FALSE;

		for (size_t t = 0; all && !any && t < n_tiles; t++)
			any = all[t] > cs->own[c][t];
		if (any)
			g_string_append_printf(shared, "%s%s", shared->len ? ", " : "",
			                       tsr_category_label(c));
	}
	return shared->len ? g_strdup_printf("Overlapped storage of %s (after sharing)", shared->str)
	                   : g_strdup("Overlapped storage");
}

/* The stacks of `doc`'s tiles in `order` (n items) into `chart`:
 * regions, categories (each one's storage of its own, then overlapped
 * storage after sharing) or liveness, with gaps as their own component
 * when they are included, so that a bar is the tile's total (with gaps
 * or not) in every stacking; the components' names and colours are
 * appended to `names` and `colours`. `other` (may be NULL): the report
 * compared with, whose categories count too, so both charts of a
 * comparison have the same components in the same colours. Returns the
 * components' count. */
static guint fill_stacks(GaMemoryView *self, GaDocument *doc, GaDocument *other,
                         const guint *order, guint n, TscChart *chart, GPtrArray *names,
                         GArray *colours)
{
	guint mode = gtk_drop_down_get_selected(self->stack_by);
	size_t n_doc_tiles;
	const tsr_tile_memory *tiles = ga_document_get_tiles(doc, &n_doc_tiles);
	g_autofree double *values = g_new0(
	    double, (tsr_category_count() + TSR_REGION_COUNT + 1) * (size_t)(n ? n : 1));
	stacks st = {values, n, 0, names, colours};
	double *row, *other_row;

	if (mode == STACK_REGION) {
		for (guint r = 0; r < TSR_REGION_COUNT; r++) {
			row = stacks_add(&st, g_strdup(region_names[r]), colour(region_colours[r]));
			for (guint i = 0; i < n; i++)
				row[i] = (double)tiles[order[i]].region[r];
		}
	} else if (mode == STACK_LIVENESS) {
		const uint64_t *always = ga_document_get_always_live_by_tile(doc);

		row = stacks_add(&st, g_strdup("Always live"), colour("#c061cb"));
		other_row = stacks_add(&st, g_strdup("Not always live"), colour("#2ec27e"));
		for (guint i = 0; i < n; i++) {
			uint64_t a = always ? always[order[i]] : 0, total = tiles[order[i]].total;

			row[i] = (double)a;
			other_row[i] = (double)(total > a ? total - a : 0);
		}
	} else {
		const category_split *cs = category_split_of(self, doc);
		const category_split *os = other ? category_split_of(self, other) : NULL;
		size_t n_other = 0;

		if (other)
			ga_document_get_tiles(other, &n_other);
		/* Each category's storage of its own, when either report has
		 * some, then the overlapped storage after sharing: they add up
		 * to the tile's total. */
		for (size_t c = 0; c < tsr_category_count(); c++) {
			gboolean any = FALSE;

			for (size_t t = 0; !any && t < MIN(n, n_doc_tiles); t++)
				any = cs->own[c][t] != 0;
			for (size_t t = 0; !any && os && t < n_other; t++)
				any = os->own[c][t] != 0;
			if (!any)
				continue;
			row = stacks_add(&st, g_strdup(tsr_category_label(c)),
			                 *tsc_palette_colour(tsr_category_name(c), FALSE));
			for (guint i = 0; i < n; i++)
				row[i] = order[i] < n_doc_tiles ? (double)cs->own[c][order[i]] : 0;
		}
		row = stacks_add(&st, overlapped_name(doc, cs, n_doc_tiles), colour("#5e5c64"));
		for (guint i = 0; i < n; i++)
			row[i] = order[i] < n_doc_tiles ? (double)cs->sharing[order[i]].after_overlapping : 0;
	}
	/* The one gaps rule, a part of its own in every stacking. */
	if (gtk_check_button_get_active(self->gaps)) {
		row = stacks_add(&st, g_strdup("Gaps"), colour("#9a9996"));
		for (guint i = 0; i < n; i++)
			row[i] = order[i] < n_doc_tiles ? (double)tsr_tile_memory_get_gaps(&tiles[order[i]]) : 0;
	}
	g_ptr_array_add(names, NULL);
	tsc_chart_set_stacks(chart, n, st.k, values, (const GdkRGBA *)colours->data,
	                     (const char *const *)names->pdata);
	return st.k;
}
static void rebuild_compare(GaMemoryView *self);

/* Fills the chart from the document (and, comparing, the charts of
 * report B and of the difference). */
static void rebuild_chart(GaMemoryView *self)
{
	const tsr_target *target = tsr_report_get_target(ga_document_get_report(self->doc));
	gboolean gaps = gtk_check_button_get_active(self->gaps);
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GArray) colours = g_array_new(FALSE, FALSE, sizeof(GdkRGBA));
	guint k;

	k = fill_stacks(self, self->doc, self->compare, self->order, self->n_tiles, self->chart,
	                names, colours);
	fill_legend(self, k, (const GdkRGBA *)colours->data, (const char *const *)names->pdata);
	/* The caption, and what could not be read for the category stacking. */
	{
		guint mode = gtk_drop_down_get_selected(self->stack_by);
		const category_split *cs =
		    mode == STACK_CATEGORY ? category_split_of(self, self->doc) : NULL;
		g_autofree char *text =
		    cs && cs->error ? g_strdup_printf("%s. The overlapped storage could not be split: %s",
		                                      self->caption ? self->caption : "", cs->error)
		                    : g_strdup(self->caption ? self->caption : "");

		gtk_label_set_text(self->chart_caption, text);
	}
	fill_maps(self, gaps);
	/* The tile's capacity; without it the y axis fits the data. */
	tsc_chart_clear_limits(self->chart);
	if (gtk_check_button_get_active(self->max_line))
		add_limit(self->chart, "Max memory", target->bytes_per_tile);
	rebuild_compare(self);
	fill_variables(self); /* after B's chart has its items */
}

/* --- Comparing ---------------------------------------------------------------------------- */

/* The difference's colours come from the verdict reportlib gives a
 * made-up delta of the same memory total moving each way (less memory
 * is better, green; more is worse, red), so the chart, the compare
 * Summary and `tilescope diff` cannot disagree on which way is better.
 * The colours are style.css's .compare-better and .compare-worse: the
 * theme's success and error colours. */
static GdkRGBA verdict_colour(const char *metric, uint64_t base, uint64_t new_value,
                              tsr_verdict *verdict)
{
	tsr_delta d = {.metric = metric, .unit = TSR_UNIT_BYTES, .in_base = TRUE, .in_new = TRUE,
	               .base = base, .new_value = new_value,
	               .change = (int64_t)new_value - (int64_t)base};

	*verdict = tsr_delta_get_verdict(&d, NULL);
	return colour(*verdict == TSR_VERDICT_BETTER  ? "#2ec27e"
	              : *verdict == TSR_VERDICT_WORSE ? "#e01b24"
	                                              : "#9a9996");
}

/* Fills `chart` with the difference of n_items tiles on an axis
 * diverging around zero: values[i] the increase of item i and
 * values[n_items + i] its decrease (both >= 0), stacked up and down;
 * `gaps` says which memory total the bars are (the verdict and legend
 * of memory.total_including_gaps or memory.total). */
static void set_difference(TscChart *chart, guint n_items, const double *values, gboolean gaps)
{
	const char *metric = gaps ? "memory.total_including_gaps" : "memory.total";
	tsr_verdict up, down;
	GdkRGBA colours[2] = {verdict_colour(metric, 1, 2, &up), verdict_colour(metric, 2, 1, &down)};
	g_autofree char *up_name = g_strdup_printf("Increase (B > A), %s", tsr_verdict_get_name(up));
	g_autofree char *down_name =
	    g_strdup_printf("Decrease (B < A), %s", tsr_verdict_get_name(down));
	const char *names[] = {up_name, down_name, NULL};

	tsc_chart_set_below(chart, 1);
	tsc_chart_set_stacks(chart, n_items, 2, values, colours, names);
	/* A difference has no capacity: whatever limits it had go. */
	tsc_chart_clear_limits(chart);
}

/* The largest total `chart` draws (0 for no items). */
static double top_of(TscChart *chart)
{
	double top = 0;

	for (guint i = 0; i < tsc_chart_get_n_items(chart); i++)
		top = MAX(top, tsc_chart_get_total(chart, i));
	return top;
}

/* Whether a capacity line at `cap` bytes informs on the charts `a` and
 * `b`: when the fullest bar drawn is at least a third of it, so bars
 * fill a third of the axis or more; below that the line would squash
 * them to the bottom. When it does not, *note is a sentence for the
 * caption saying that it is left out and why (the caller frees it). */
static gboolean cap_informative(TscChart *a, TscChart *b, uint64_t cap, char **note)
{
	double top = MAX(top_of(a), top_of(b));
	g_autofree char *cap_text = NULL, *top_text = NULL;

	*note = NULL;
	if (cap == 0 || top * 3 >= (double)cap)
		return TRUE;
	cap_text = tsc_format_bytes((double)cap, NULL);
	top_text = tsc_format_bytes(top, NULL);
	*note = g_strdup_printf("The max memory line (%s) is left out: the fullest tile drawn, %s, "
	                        "is under a third of it, and the line would squash the bars.",
	                        cap_text, top_text);
	return FALSE;
}

/* Comparing: report B's chart and the difference chart. Both follow A's
 * tile order when the reports have as many tiles, so one item is one tile
 * in all three charts; with different counts they go by tile number up
 * to the larger count, a tile missing from one report counting as 0
 * bytes there, and the caption says so. */
static void rebuild_compare(GaMemoryView *self)
{
	gboolean gaps = gtk_check_button_get_active(self->gaps);
	size_t na, nb;
	const tsr_tile_memory *ta, *tb;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GArray) colours = g_array_new(FALSE, FALSE, sizeof(GdkRGBA));
	g_autofree guint *identity = NULL;
	g_autofree double *values = NULL;
	const guint *order;
	g_autofree char *cap_note = NULL;
	uint64_t cap_a, cap_b;
	gboolean show_cap;
	g_autoptr(GString) caption = g_string_new(NULL);
	guint n, moved[2] = {0, 0}, most_tile[2] = {0, 0};
	uint64_t most[2] = {0, 0};                /* the largest increase [0] and decrease [1] */

	gtk_paned_set_position(ga_view_get_paned(GA_VIEW(self)), self->compare ? 620 : 380);
	/* A and B as tall as each other, so that one data range gives both
	 * the same y ticks. */
	gtk_widget_set_vexpand(GTK_WIDGET(self->chart), self->compare == NULL);
	gtk_widget_set_size_request(GTK_WIDGET(self->chart), -1, self->compare ? 170 : 220);
	if (!self->compare)
		return;
	ta = ga_document_get_tiles(self->doc, &na);
	tb = ga_document_get_tiles(self->compare, &nb);
	n = (guint)MAX(na, nb);
	cap_a = tsr_report_get_target(ga_document_get_report(self->doc))->bytes_per_tile;
	cap_b = tsr_report_get_target(ga_document_get_report(self->compare))->bytes_per_tile;
	identity = g_new(guint, n ? n : 1);
	for (guint i = 0; i < n; i++)
		identity[i] = i;
	order = na == nb ? self->order : identity;
	fill_stacks(self, self->compare, self->doc, order, (guint)nb, self->b_chart, names,
	            colours);
	/* The capacity line only where it informs (cap_informative); A's
	 * from rebuild_chart goes with it. */
	show_cap = gtk_check_button_get_active(self->max_line) &&
	           cap_informative(self->chart, self->b_chart, MAX(cap_a, cap_b), &cap_note);
	if (!show_cap)
		tsc_chart_clear_limits(self->chart);
	/* One y scale for A and B: the capacity line on both, or else a line
	 * at the fuller report's fullest tile. */
	tsc_chart_clear_limits(self->b_chart);
	if (show_cap) {
		add_limit(self->b_chart, "Max memory", cap_b);
		if (cap_b != cap_a)
			add_limit(self->chart, "B's max memory", cap_b);
	} else {
		uint64_t top = MAX(fullest_tile(self->doc, gaps), fullest_tile(self->compare, gaps));

		add_limit(self->b_chart, "Fullest tile of A and B", top);
		add_limit(self->chart, "Fullest tile of A and B", top);
	}
	values = g_new0(double, 2 * (size_t)(n ? n : 1));
	for (guint i = 0; i < n; i++) {
		guint tile = order[i];
		int64_t a = tile < na ? (int64_t)tsr_tile_memory_get_bytes(&ta[tile], gaps) : 0;
		int64_t b = tile < nb ? (int64_t)tsr_tile_memory_get_bytes(&tb[tile], gaps) : 0;
		int way = b < a; /* 0: grew (or the same), 1: shrank */
		uint64_t d = (uint64_t)(b < a ? a - b : b - a);

		values[(size_t)way * n + i] = (double)d;
		moved[way] += d > 0;
		if (d > most[way]) {
			most[way] = d;
			most_tile[way] = tile;
		}
	}
	set_difference(self->diff_chart, n, values, gaps);
	g_string_append_printf(caption, "B − A per tile, %s gaps: ", gaps ? "including" : "excluding");
	for (int way = 0; way < 2; way++) {
		g_autofree char *v = ga_format_u64(most[way]);

		if (most[way])
			g_string_append_printf(caption, "%slargest %s%s B on tile %u", way ? "; " : "",
			                       way ? "decrease -" : "increase +", v, most_tile[way]);
		else
			g_string_append(caption, way ? "; no tile shrank" : "no tile grew");
	}
	{
		g_autofree char *g = ga_format_u64(moved[0]);
		g_autofree char *sh = ga_format_u64(moved[1]);
		g_autofree char *u = ga_format_u64(n - moved[0] - moved[1]);

		g_string_append_printf(caption, "; %s tiles grew (red), %s shrank (green), %s unchanged.",
		                       g, sh, u);
	}
	if (na != nb) {
		g_autofree char *sa = ga_format_u64(na);
		g_autofree char *sb = ga_format_u64(nb);

		g_string_append_printf(caption,
		                       " A has %s tiles and B %s: tiles %zu to %zu are only in %s (0 B "
		                       "in the other); the charts go by tile number.",
		                       sa, sb, MIN(na, nb), MAX(na, nb) - 1, na > nb ? "A" : "B");
	}
	if (cap_note)
		g_string_append_printf(caption, " %s", cap_note);
	gtk_label_set_text(self->diff_caption, caption->str);
}

/* One chart zoomed or panned: the others of a comparison follow. */
static void on_range_changed(TscChart *chart, gpointer data)
{
	GaMemoryView *self = data;
	TscChart *charts[] = {self->chart, self->b_chart, self->diff_chart};
	double start = tsc_chart_get_visible_start(chart), end = tsc_chart_get_visible_end(chart);

	if (self->syncing_range || !self->compare)
		return;
	self->syncing_range = TRUE;
	for (size_t i = 0; i < G_N_ELEMENTS(charts); i++)
		if (charts[i] != chart &&
		    tsc_chart_get_n_items(charts[i]) == tsc_chart_get_n_items(chart))
			tsc_chart_set_visible_range(charts[i], start, end);
	self->syncing_range = FALSE;
}

/* Shows the IPU chosen (all: every item). */
static void apply_ipu(GaMemoryView *self)
{
	guint sel = gtk_drop_down_get_selected(self->ipu);
	guint per = self->layout.tiles_per_ipu;

	if (sel == 0 || sel == GTK_INVALID_LIST_POSITION || !per)
		tsc_chart_show_all(self->chart);
	else /* both orders keep each IPU's tiles together */
		tsc_chart_set_visible_range(self->chart, (double)(sel - 1) * per, (double)sel * per);
}

/* The IPU drop-down bound to the session's "ipu" both ways: its item 0
 * is every IPU (-1), item i IPU i - 1. The session's IPU chosen
 * elsewhere (Back to a place with another IPU shown) selects its item
 * when the list has it. Nothing moves without a document. */
static gboolean ipu_to_item(GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
	GaMemoryView *self = data;
	int ipu = g_value_get_int(from);
	guint want = ipu < 0 ? 0 : (guint)ipu + 1;

	(void)binding;
	if (!self->doc || want >= g_list_model_get_n_items(gtk_drop_down_get_model(self->ipu)))
		return FALSE;
	g_value_set_uint(to, want);
	return TRUE;
}

static gboolean item_to_ipu(GBinding *binding, const GValue *from, GValue *to, gpointer data)
{
	GaMemoryView *self = data;
	guint sel = g_value_get_uint(from);

	(void)binding;
	if (!self->doc)
		return FALSE;
	g_value_set_int(to, sel == 0 || sel == GTK_INVALID_LIST_POSITION || !self->layout.tiles_per_ipu
	                        ? -1
	                        : (int)sel - 1);
	return TRUE;
}

/* --- Selection ------------------------------------------------------------------------------- */

/* Chart items -> session tiles. */
static void on_chart_selection(TscChart *chart, gpointer data)
{
	GaMemoryView *self = data;
	GtkBitset *items = tsc_chart_get_selection(chart);
	g_autoptr(GtkBitset) tiles = gtk_bitset_new_empty();
	GtkBitsetIter it;
	guint item;

	if (self->syncing)
		return;
	for (gboolean ok = gtk_bitset_iter_init_first(&it, items, &item); ok;
	     ok = gtk_bitset_iter_next(&it, &item))
		if (item < self->n_tiles)
			gtk_bitset_add(tiles, self->order[item]);
	self->syncing = TRUE;
	ga_session_set_selected_tiles(self->session, tiles);
	self->syncing = FALSE;
}

/* Tile map cells -> session tiles (the other IPUs' selections kept). */
static void on_map_selection(TscHeatmap *map, gpointer data)
{
	GaMemoryView *self = data;
	guint ipu = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(map), "ga-ipu"));
	guint per = self->layout.tiles_per_ipu;
	g_autoptr(GtkBitset) tiles = gtk_bitset_copy(ga_session_get_selected_tiles(self->session));
	GtkBitset *cells = tsc_heatmap_get_selection(map);
	GtkBitsetIter it;
	guint cell;

	if (self->syncing)
		return;
	gtk_bitset_remove_range(tiles, ipu * per, per);
	for (gboolean ok = gtk_bitset_iter_init_first(&it, cells, &cell); ok;
	     ok = gtk_bitset_iter_next(&it, &cell)) {
		guint tile = ga_tile_layout_tile_at(&self->layout, ipu, cell);

		if (tile != G_MAXUINT)
			gtk_bitset_add(tiles, tile);
	}
	self->syncing = TRUE;
	ga_session_set_selected_tiles(self->session, tiles);
	self->syncing = FALSE;
}

/* Session tiles -> chart items, the entry and the selection panel. */
static void on_session_tiles(GaSession *session, GParamSpec *pspec, gpointer data)
{
	GaMemoryView *self = data;
	GtkBitset *tiles = ga_session_get_selected_tiles(session);
	g_autoptr(GtkBitset) items = gtk_bitset_new_empty();
	g_autofree char *list = ga_format_tile_list(tiles);
	GtkBitsetIter it;
	guint tile;

	(void)pspec;
	if (!self->doc)
		return;
	for (gboolean ok = gtk_bitset_iter_init_first(&it, tiles, &tile); ok;
	     ok = gtk_bitset_iter_next(&it, &tile))
		if (tile < self->n_tiles)
			gtk_bitset_add(items, self->item_of[tile]);
	if (!self->syncing) {
		self->syncing = TRUE;
		tsc_chart_set_selection(self->chart, items);
		for (guint ipu = 0; ipu < self->heatmaps->len; ipu++) {
			g_autoptr(GtkBitset) cells = gtk_bitset_new_empty();
			guint per = self->layout.tiles_per_ipu;

			for (gboolean ok = gtk_bitset_iter_init_first(&it, tiles, &tile); ok;
			     ok = gtk_bitset_iter_next(&it, &tile))
				if (tile / per == ipu)
					gtk_bitset_add(cells, ga_tile_layout_cell(&self->layout, tile));
			tsc_heatmap_set_selection(self->heatmaps->pdata[ipu], cells);
		}
		self->syncing = FALSE;
	}
	if (!gtk_widget_has_focus(GTK_WIDGET(self->tiles_entry)) &&
	    g_strcmp0(gtk_editable_get_text(GTK_EDITABLE(self->tiles_entry)), list) != 0) {
		gboolean was = self->syncing;

		self->syncing = TRUE; /* not typing: no timeout */
		gtk_editable_set_text(GTK_EDITABLE(self->tiles_entry), list);
		self->syncing = was;
	}
	ga_memory_selection_set_tiles(self->selection, tiles);
}

/* "Select tiles": a list and ranges, checked against the tiles; applied
 * on Enter, and a moment after typing stops (so a list read from the
 * clipboard or written by an assistive tool takes effect too). */
static void on_tiles_entry(GtkEntry *entry, gpointer data)
{
	GaMemoryView *self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GtkBitset) tiles =
	    ga_parse_tile_list(gtk_editable_get_text(GTK_EDITABLE(entry)), self->n_tiles, &error);

	show_error(self, GTK_WIDGET(entry), tiles ? NULL : error->message);
	if (tiles)
		ga_session_set_selected_tiles(self->session, tiles);
}

static gboolean apply_tiles_entry(gpointer data)
{
	GaMemoryView *self = data;

	self->entry_timeout = 0;
	on_tiles_entry(self->tiles_entry, self);
	return G_SOURCE_REMOVE;
}

/* Typing in "Select tiles" (not the view writing the selection there). */
static void on_tiles_changed(GtkEditable *editable, gpointer data)
{
	GaMemoryView *self = data;

	(void)editable;
	if (self->syncing)
		return;
	if (self->entry_timeout)
		g_source_remove(self->entry_timeout);
	self->entry_timeout = g_timeout_add(500, apply_tiles_entry, self);
}

/* --- Following the session ----------------------------------------------------------------- */

static void fill_ipu_list(GaMemoryView *self, guint num_ipus)
{
	GtkStringList *list = gtk_string_list_new(NULL);

	gtk_string_list_append(list, "All IPUs");
	for (guint i = 0; i < num_ipus; i++) {
		g_autofree char *s = g_strdup_printf("IPU %u", i);

		gtk_string_list_append(list, s);
	}
	gtk_drop_down_set_model(self->ipu, G_LIST_MODEL(list));
	g_object_unref(list);
	gtk_drop_down_set_selected(self->ipu, 0);
	gtk_widget_set_sensitive(GTK_WIDGET(self->ipu), num_ipus > 1);
}

static void on_stack_changed(GObject *object, GParamSpec *pspec, gpointer data);
static void on_session_tiles(GaSession *session, GParamSpec *pspec, gpointer data);

/* The heading over report `letter`'s chart when comparing: "A — title". */
static char *heading(gpointer view, const char *letter, GaDocument *doc)
{
	(void)view;
	return doc ? g_strdup_printf("%s — %s", letter, ga_document_get_title(doc)) : g_strdup("");
}

/* The base's documents changed (GaView::document_changed). */
static void on_document(GaView *view)
{
	GaMemoryView *self = GA_MEMORY_VIEW(view);
	GaDocument *doc = ga_view_get_document(view);
	const tsr_target *target;
	g_autofree char *cap = NULL, *n = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(self->split); i++)
		category_split_clear(&self->split[i]);
	if (self->doc != doc)
		g_array_set_size(self->vars, 0); /* indexes of another report */
	self->doc = doc;
	self->compare = ga_view_get_compare_document(view);
	if (!doc)
		return;
	target = tsr_report_get_target(ga_document_get_report(doc));
	self->n_tiles = target->num_tiles;
	ga_tile_layout_init(&self->layout, target->num_ipus, target->tiles_per_ipu);
	build_order(self);
	fill_ipu_list(self, target->num_ipus);
	/* The capacity line starts on when a tile is past half its memory:
	 * below that it only flattens the data. */
	g_signal_handlers_block_by_func(self->max_line, on_stack_changed, self);
	gtk_check_button_set_active(self->max_line, fullest_tile(doc, TRUE) * 2 > target->bytes_per_tile);
	g_signal_handlers_unblock_by_func(self->max_line, on_stack_changed, self);
	cap = tsc_format_bytes((double)target->bytes_per_tile, NULL);
	n = ga_format_u64(target->num_tiles);
	g_free(self->caption);
	self->caption = g_strdup_printf(
	    "%s tiles on %u IPU%s, %s each%s", n, target->num_ipus, target->num_ipus == 1 ? "" : "s",
	    cap,
	    tsr_report_get_info(ga_document_get_report(doc))->lowered_vars
	        ? ""
	        : ". Liveness counts the user's variables only: the report was written without "
	          "autoReport.outputLoweredVars");
	rebuild_chart(self);
	ga_memory_selection_set_document(self->selection, doc, &self->layout);
	on_session_tiles(self->session, NULL, self);
}

static void on_stack_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
	GaMemoryView *self = data;

	(void)object;
	(void)pspec;
	if (self->doc)
		rebuild_chart(self);
}

static void on_order_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
	GaMemoryView *self = data;

	(void)object;
	(void)pspec;
	if (!self->doc)
		return;
	build_order(self);
	rebuild_chart(self);
	apply_ipu(self);
	on_session_tiles(self->session, NULL, self);
}

static void on_ipu_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
	GaMemoryView *self = data;

	(void)object;
	(void)pspec;
	if (self->doc)
		apply_ipu(self);
}

/* --- The class ---------------------------------------------------------------------------------- */

/* What needs the session: what the selected tiles hold, and the
 * session's tiles followed, its IPU bound; before the base follows the
 * session's documents (which calls on_document). */
static void ga_memory_view_constructed(GObject *object)
{
	GaMemoryView *self = GA_MEMORY_VIEW(object);
	GtkPaned *paned = ga_view_get_paned(GA_VIEW(self));

	self->session = ga_view_get_session(GA_VIEW(self));
	self->selection = ga_memory_selection_new(self->session);
	gtk_paned_set_end_child(GTK_PANED(self->bottom), GTK_WIDGET(self->selection));
	g_signal_connect_object(self->session, "notify::selected-tiles", G_CALLBACK(on_session_tiles),
	                        self, 0);
	g_object_bind_property_full(self->session, "ipu", self->ipu, "selected",
	                            G_BINDING_BIDIRECTIONAL, ipu_to_item, item_to_ipu, self, NULL);
	/* The chart above the tile maps and the selection; both take a
	 * share of a change of the window's height. The split keeps the
	 * margins of the bar above it, so that its share is of the same
	 * height as the hand-built view's (GtkPaned scales its position). */
	g_object_set(paned, "orientation", GTK_ORIENTATION_VERTICAL, "margin-start", 12, "margin-end",
	             12, "margin-bottom", 12, "position", 380, "resize-end-child", TRUE, NULL);
	G_OBJECT_CLASS(ga_memory_view_parent_class)->constructed(object);
}

static void ga_memory_view_dispose(GObject *object)
{
	GaMemoryView *self = GA_MEMORY_VIEW(object);

	g_clear_handle_id(&self->entry_timeout, g_source_remove);
	g_clear_handle_id(&self->anchor_idle, g_source_remove);
	g_clear_handle_id(&self->relayout_idle, g_source_remove);
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_MEMORY_VIEW);
	G_OBJECT_CLASS(ga_memory_view_parent_class)->dispose(object);
}

static void ga_memory_view_finalize(GObject *object)
{
	GaMemoryView *self = GA_MEMORY_VIEW(object);

	for (guint i = 0; i < G_N_ELEMENTS(self->split); i++)
		category_split_clear(&self->split[i]);
	g_free(self->caption);
	g_free(self->order);
	g_free(self->item_of);
	if (self->heatmaps)
		g_ptr_array_unref(self->heatmaps);
	g_array_unref(self->vars);
	G_OBJECT_CLASS(ga_memory_view_parent_class)->finalize(object);
}

static void ga_memory_view_class_init(GaMemoryViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = ga_memory_view_constructed;
	object_class->dispose = ga_memory_view_dispose;
	object_class->finalize = ga_memory_view_finalize;
	GA_VIEW_CLASS(klass)->document_changed = on_document;
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GENERIC);
	gtk_widget_class_set_css_name(widget_class, "memoryview");

	g_type_ensure(TSC_TYPE_CHART);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-memory-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, stack_by);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, gaps);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, max_line);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, ipu);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, order_by);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, tiles_entry);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, tiles_error);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, bottom);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, diff_chart);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, diff_caption);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, b_chart);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, chart);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, chart_caption);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, legend);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, maps);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, maps_scroll);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, maps_ramp);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, maps_ramp_bar);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, maps_ramp_top);
	gtk_widget_class_bind_template_callback(widget_class, on_maps_scroll);
	gtk_widget_class_bind_template_callback(widget_class, on_maps_key);
	gtk_widget_class_bind_template_callback(widget_class, on_maps_upper);
	gtk_widget_class_bind_template_callback(widget_class, on_maps_resized);
	gtk_widget_class_bind_template_child(widget_class, GaMemoryView, var_legend);
	gtk_widget_class_bind_template_callback(widget_class, on_var_entry);
	gtk_widget_class_bind_template_callback(widget_class, on_add_selected);
	gtk_widget_class_bind_template_callback(widget_class, on_stack_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_order_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_ipu_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_tiles_entry);
	gtk_widget_class_bind_template_callback(widget_class, on_tiles_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_chart_selection);
	gtk_widget_class_bind_template_callback(widget_class, on_range_changed);
	gtk_widget_class_bind_template_callback(widget_class, heading);
}

static void ga_memory_view_init(GaMemoryView *self)
{
	static const char *const labels[] = {"Memory difference by tile (B − A)",
	                                     "Memory by tile, report B", "Memory by tile"};
	g_autofree char *stops = NULL, *css = NULL;

	gtk_widget_init_template(GTK_WIDGET(self));
	TscChart *charts[] = {self->diff_chart, self->b_chart, self->chart};
	GtkDropDown *dropdowns[] = {self->stack_by, self->ipu, self->order_by};

	/* What GtkBuilder cannot say: a drop-down's name (its label's, the
	 * widget before it in the bar) on its button, and the charts' names
	 * and formats. */
	for (size_t i = 0; i < G_N_ELEMENTS(dropdowns); i++)
		tsd_a11y_name_dropdown(dropdowns[i], gtk_label_get_text(GTK_LABEL(
		                                         gtk_widget_get_prev_sibling(GTK_WIDGET(dropdowns[i])))));
	for (size_t i = 0; i < G_N_ELEMENTS(charts); i++) {
		tsc_chart_set_label(charts[i], labels[i]);
		tsc_chart_set_value_format_func(charts[i], tsc_format_bytes, NULL, NULL);
		tsc_chart_set_item_label_func(charts[i], item_label, self, NULL);
		/* The variables' lines on their own scale (a few hundred bytes
		 * beside 200 KB stacks): tsc_chart_set_series_right. */
		tsc_chart_set_series_right(charts[i], TRUE);
	}
	self->heatmaps = g_ptr_array_new();
	stops = g_strjoinv(", ", (char **)map_ramp);
	css = g_strdup_printf("* { background-image: linear-gradient(to right, %s); }", stops);
	style(self->maps_ramp_bar, css);
	self->vars = g_array_new(FALSE, FALSE, sizeof(size_t));
	self->map_zoom = 1;
	self->map_anchor[0] = self->map_anchor[1] = NAN;
}

GtkWidget *ga_memory_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_MEMORY_VIEW, "session", session, NULL);
}
