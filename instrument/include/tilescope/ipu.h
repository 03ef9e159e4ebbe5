/*
 * The whole public API of the Tilescope IPU Model runtime
 * (libtilescope-instrument). Include this one header.
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
