/*
 * The Graph Analyser's views, in the sidebar's order (ga-views.h).
 */
#include "ga-views.h"

#include "ga-history-view.h"
#include "ga-insights-view.h"
#include "ga-liveness-view.h"
#include "ga-memory-view.h"
#include "ga-operations-view.h"
#include "ga-program-view.h"
#include "ga-summary-view.h"
#include "ga-trace-view.h"

static const ga_view_info views[] = {
	{"summary", "Summary", ga_summary_view_new},
	{"insights", "Insights", ga_insights_view_new},
	{"memory", "Memory", ga_memory_view_new},
	{"liveness", "Liveness", ga_liveness_view_new},
	{"programs", "Program Tree", ga_program_view_new},
	{"operations", "Operations", ga_operations_view_new},
	{"trace", "Execution Trace", ga_trace_view_new},
	{"history", "History", ga_history_view_new},
};

const ga_view_info *ga_views(size_t *n)
{
	*n = G_N_ELEMENTS(views);
	return views;
}
