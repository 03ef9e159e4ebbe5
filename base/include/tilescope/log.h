/*
 * Poplar-style logging: POPLAR_LOG_LEVEL (OFF, ERR, WARN, INFO, DEBUG,
 * TRACE; default OFF) and POPLAR_LOG_DEST (stdout, stderr or a file name;
 * default stderr), read once on first use. Lines look like
 *   PO:ENGINE   12345.12345 I: Compiling graph
 * The runtime logs through these; models may too.
 */
#pragma once

#include <tilescope/error.h>

#include <stdbool.h>

TSB_BEGIN_DECLS

typedef enum tsi_log_level {
	TSI_LOG_TRACE = 0,
	TSI_LOG_DEBUG,
	TSI_LOG_INFO,
	TSI_LOG_WARN,
	TSI_LOG_ERR,
	TSI_LOG_OFF
} tsi_log_level;

/* Parses a POPLAR_LOG_LEVEL value (any case). Returns TSI_OK or
 * TSI_ERR_INVALID_ARGUMENT. */
TSI_API int tsi_log_level_parse(tsi_log_level *out, const char *text);
/* True when a message at `level` would be written. */
TSI_API bool tsi_log_enabled(tsi_log_level level);
/* Writes one line from `component` ("ENGINE", "GRAPH", ...) at `level`. */
TSI_API void tsi_log(tsi_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes one warning line from `component` on stderr whatever
 * POPLAR_LOG_LEVEL and POPLAR_LOG_DEST say: for what the user asked for
 * and is not getting (a PVTI_OPTIONS that cannot be read still traces,
 * with the defaults), which must not pass unseen when logging is off. */
TSI_API void tsi_log_always(const char *component, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Re-reads POPLAR_LOG_LEVEL and POPLAR_LOG_DEST (for tests and for models
 * that change them at run time). An unknown level is reported once on
 * stderr and treated as OFF. */
TSI_API void tsi_log_reconfigure(void);

TSB_END_DECLS
