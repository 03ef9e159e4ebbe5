/*
 * tilescope-system-analyser: the System Analyser desktop app (see
 * sa-application.c).
 */
#include "sa-application.h"

int main(int argc, char **argv)
{
	g_autoptr(SaApplication) app = sa_application_new();

	g_set_application_name("System Analyser");
	return g_application_run(G_APPLICATION(app), argc, argv);
}
