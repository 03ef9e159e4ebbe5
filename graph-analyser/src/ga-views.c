/*
 * The Graph Analyser's views, in the sidebar's order (ga-views.h).
 */
#include "ga-views.h"

#include "ga-memory-view.h"

static const ga_view_info views[] = {
	{"memory", "Memory", ga_memory_view_new},
};

const ga_view_info *ga_views(size_t *n)
{
	*n = G_N_ELEMENTS(views);
	return views;
}
