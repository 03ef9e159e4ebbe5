/*
 * tilescope-graph-analyser: the Graph Analyser desktop app (see
 * ga-application.c).
 */
#include "ga-application.h"

int main(int argc, char **argv)
{
	g_autoptr(GaApplication) app = ga_application_new();

	g_set_application_name("Graph Analyser");
	return g_application_run(G_APPLICATION(app), argc, argv);
}
