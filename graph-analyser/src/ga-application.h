/*
 * The Graph Analyser's GtkApplication: a window per activation (the start
 * page) or per file opened, the style and about actions, and the
 * command line (--help and --version work without a display).
 */
#pragma once

#include <tilescope/tsd-app.h>

G_BEGIN_DECLS

/* The application's id, also its GSettings schema's
 * (desktop/schemas/org.tilescope.GraphAnalyser.gschema.xml). */
#define GA_SETTINGS_ID "org.tilescope.GraphAnalyser"

#define GA_TYPE_APPLICATION (ga_application_get_type())
G_DECLARE_FINAL_TYPE(GaApplication, ga_application, GA, APPLICATION, TsdApplication)

GaApplication *ga_application_new(void);

G_END_DECLS
