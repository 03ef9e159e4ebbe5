/*
 * The thread-local "last error" for calls that have no handle to keep a
 * message in (engine and device creation, the tracer), shared by the
 * runtime and libtilescope-pvti (tilescope/error.h).
 */
#define TSI_BUILDING_LIBRARY 1
#include "tilescope/error.h"

#include <stdio.h>

static _Thread_local char last_error[1024];

/* Formats the message for `code` into the thread-local buffer; returns code. */
TSI_API int tsi_set_errorv(int code, const char *fmt, va_list ap)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	return code;
}

TSI_API int tsi_set_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tsi_set_errorv(code, fmt, ap);
	va_end(ap);
	return code;
}

TSI_API const char *tsi_error_last(void)
{
	return last_error;
}
