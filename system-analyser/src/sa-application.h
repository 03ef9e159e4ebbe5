/*
 * The System Analyser's GtkApplication: a window per launch, the files of
 * the command line (one or several .pvti files or directories, shown on
 * one time axis) opened in it.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SA_TYPE_APPLICATION (sa_application_get_type())
G_DECLARE_FINAL_TYPE(SaApplication, sa_application, SA, APPLICATION, GtkApplication)

SaApplication *sa_application_new(void);

G_END_DECLS
