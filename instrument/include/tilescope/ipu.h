/*
 * The whole public API of the Tilescope IPU Model runtime
 * (libtilescope-instrument). Include this one header.
 *
 * Conventions. Calls that can fail return TSI_OK or a negative
 * tsi_error_code and take their out-parameters first
 * (tsi_graph_new(&graph, target, 1)); graph-building calls that return an
 * object return NULL instead and record the error in the graph. Error
 * messages are never NULL: tsi_error_last(), tsi_graph_get_error() and
 * tsi_engine_error() return "" when there has been no failure (the
 * handle ones also for a NULL handle). Verbs: get_ borrowed, lookup_ may
 * find nothing (NULL, not an error), dup_ / list_ owned (free()),
 * _new / _free. The model's nouns follow Poplar's (tsi_graph_add_variable,
 * tsi_tensor_slice, tsi_prog_sequence ...).
 *
 * "None". An index that names nothing is TSI_NONE (-1) in signed fields
 * (tsi_lowered_program.compute_set ...) and (unsigned)TSI_NONE, spelled
 * TSI_NO_TILE, in unsigned tile fields. Debug context ids are 1-based as
 * debug.cbor and profile.pop store them, so their "none" is 0
 * (TSI_NO_DEBUG_CONTEXT).
 */
#pragma once

#include "debug.h"
#include "engine.h"
#include "graph.h"
#include <tilescope/log.h>
#include "program.h"
#include <tilescope/pvti.h>
#include "target.h"
#include "types.h"
#include "vertex.h"
