/*
 * The System Analyser's GtkApplication: a window per launch, the files of
 * the command line (one or several .pvti files or directories, shown on
 * one time axis) opened in it.
 */
#pragma once

#include <tilescope/tsd-app.h>

G_BEGIN_DECLS

/* The application's id, also its GSettings schema's
 * (desktop/schemas/org.tilescope.SystemAnalyser.gschema.xml). */
#define SA_SETTINGS_ID "org.tilescope.SystemAnalyser"

#define SA_TYPE_APPLICATION (sa_application_get_type())
G_DECLARE_FINAL_TYPE(SaApplication, sa_application, SA, APPLICATION, TsdApplication)

SaApplication *sa_application_new(void);

G_END_DECLS
