#!/usr/bin/env bash
# Renders the System Analyser on a sample trace to PNG, in the light and
# the dark style, at scale 1 and 2, under Xvfb, with a range marked by
# Shift+drag (so the Statistics tab shows a window), searching (the Call
# Tree of the hit), the Flame Graph, and the Compare tab (--compare of the
# trace and a two-epoch run of tutorial 5 made here):
#   docs/screenshots/system[-search|-flame|-compare]-<light|dark>-<1x|2x>.png
# usage: scripts/screenshots-system.sh [TRACE] [OUT_DIR]
#   TRACE    default sample-reports/tut5_ml/tut5_ml.pvti
#   OUT_DIR  default docs/screenshots
# scripts/screenshots.sh runs it after the Graph Analyser's. Needs a build
# with the GUI (build-screens/, or $TILESCOPE_SCREENS_BUILD), xvfb-run,
# xdotool and ImageMagick (scripts/deps.sh installs them).
set -eu
. "$(dirname "$0")/screenshot-lib.sh"
trace=${1:-sample-reports/tut5_ml/tut5_ml.pvti}
screenshot_setup "${2:-docs/screenshots}"
app=$(screenshot_app system-analyser/tilescope-system-analyser)
# Shift+drag over the last third of the timeline (the window is at the top
# left: the plot starts 205 px in, its first row, under the zoom bar
# and the overview, about 150 px down).
screenshot_take system '
	y=$((160 * s))
	xdotool mousemove $((850 * s)) $y keydown shift mousedown 1 \
		mousemove $((1000 * s)) $y mousemove $((1240 * s)) $y mouseup 1 keyup shift' \
	"$app" "$trace"
# Compare: tutorial 5's trace (A) against a two-epoch run of the example
# (B, made here), the Compare tab shown (--compare selects it).
example=$(screenshot_app instrument/examples/tut5_ml)
bdir=$(mktemp -d)
trap 'rm -rf "$bdir"' EXIT
PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$bdir\"}" "$example" --synthetic --epochs 2 \
	>/dev/null
mv "$bdir"/*.pvti "$bdir/two_epochs.pvti"
screenshot_take system-compare ':' "$app" --compare "$trace" "$bdir/two_epochs.pvti"
# The search bar on its second hit with the Call Tree of that span, and
# the Flame Graph of the whole trace with a frame selected (keyboard only).
screenshot_take system-search '
	xdotool key ctrl+f; sleep 0.5
	xdotool type --delay 30 "run program"; sleep 1
	xdotool key Return; sleep 1
	xdotool key alt+2' \
	"$app" "$trace"
screenshot_take system-flame '
	xdotool key alt+3; sleep 0.5
	xdotool mousemove $((300 * s)) $((330 * s)) click 1; sleep 0.5' \
	"$app" "$trace"
