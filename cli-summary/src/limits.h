/*
 * The JSON limits file of `tilescope diff`: its keys go through the
 * options they stand for (tsr_compare_limits_set_option, compare.h), so
 * the file and the command line accept the same values.
 */
#pragma once

#include "tilescope/compare.h"

#include <stddef.h>

/*
 * Reads a JSON limits file: {"max_memory_increase": "2%",
 * "max_cycles_increase": 1, "max_tile_memory": "600KB", "fail_on_oom":
 * true, "categories": {"vertexCode": "5%"}, "metrics":
 * {"cycles.vertex_type.Dot": "10%"}}. Numbers mean what they mean on the
 * command line (percent); unknown keys, wrong types and bad values are
 * errors naming the file and the key. Returns 0, or -1 with err set.
 */
int cli_limits_load(tsr_compare_limits *limits, const char *path, char *err, size_t err_size);
