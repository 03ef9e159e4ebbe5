/*
 * The Graph Analyser's GtkApplication: a window per activation (the start
 * page) or per file opened, the style and about actions, and the
 * command line (--help and --version work without a display).
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_APPLICATION (ga_application_get_type())
G_DECLARE_FINAL_TYPE(GaApplication, ga_application, GA, APPLICATION, GtkApplication)

GaApplication *ga_application_new(void);

G_END_DECLS
