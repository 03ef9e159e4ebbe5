#!/usr/bin/env bash
# Renders the Execution Trace's Flame and BSP modes (which the view does
# not remember, so scripts/screenshots.sh shows only Flat) to PNG, in the
# light and the dark style, at scale 1 and 2, under Xvfb, by pressing the
# modes' mnemonics (Alt+M: Flame, Alt+B: BSP) with xdotool:
#   <OUT_DIR>/trace-<flame|bsp>-<light|dark>-<1x|2x>.png
# usage: scripts/screenshots-trace-modes.sh [REPORT] [OUT_DIR]
#   REPORT   default sample-reports/tut5_ml
#   OUT_DIR  default docs/screenshots
# Needs what scripts/screenshots.sh needs, and xdotool.
set -eu
. "$(dirname "$0")/screenshot-lib.sh"
report=${1:-sample-reports/tut5_ml}
screenshot_setup "${2:-docs/screenshots}"
app=$(screenshot_app graph-analyser/tilescope-graph-analyser)
for mode in flame:alt+m bsp:alt+b; do
	screenshot_take "trace-${mode%%:*}" "xdotool key ${mode#*:}; sleep 0.5" \
		"$app" --view=trace "$report"
done
