#!/usr/bin/env bash
# Renders every view of the Graph Analyser on a sample report to PNG, in
# the light and the dark style, at scale 1 and 2, under Xvfb:
#   docs/screenshots/<view>-<light|dark>-<1x|2x>.png
# and compare mode (`--view=NAME A B`) of the Summary, Memory and Liveness
# views on the two tutorial 7 sizes, and of Operations on tutorials 4 and
# 5 (tutorial 7 has no operations):
#   docs/screenshots/compare-<view>-<light|dark>-<1x|2x>.png
# and the History view on a history store of those two sizes
# (history-<light|dark>-<1x|2x>.png).
# usage: scripts/screenshots.sh [REPORT] [OUT_DIR]
#   REPORT   default sample-reports/tut5_ml
#   OUT_DIR  default docs/screenshots
# COMPARE_A and COMPARE_B change the compared pair (default
# sample-reports/tut7_mk1 and sample-reports/tut7_mk1_small). Then it runs
# screenshots-trace-modes.sh (trace-flame-*, trace-bsp-*) and
# screenshots-system.sh (system-*); all three take their pictures with
# screenshot-lib.sh. Last, screenshots-pages.sh: the HTML pages of
# summary, diff and trace in headless Chromium (page-*-<light|dark>.png).
# Needs a build with the GUI (build-screens/, made here when missing),
# xvfb-run and ImageMagick's import (scripts/deps.sh installs them).
set -eu
. "$(dirname "$0")/screenshot-lib.sh"
report=${1:-sample-reports/tut5_ml}
screenshot_setup "${2:-docs/screenshots}"
out=$screenshot_out
app=$(screenshot_app graph-analyser/tilescope-graph-analyser)
views=$("$app" --help | sed -n 's/.*--view=NAME.*(\(.*\)).*/\1/p' | tr -d ',')
[ -n "$views" ] || { echo "screenshots.sh: the app lists no views" >&2; exit 1; }
# shot NAME VIEW REPORT...: one view in both styles and scales.
shot() {
	local name=$1 view=$2
	shift 2
	screenshot_take "$name" "" "$app" --view="$view" "$@"
}
for view in $views; do
	[ "$view" = history ] && continue # a store's view: below
	shot "$view" "$view" "$report"
done
compare_a=${COMPARE_A:-sample-reports/tut7_mk1}
compare_b=${COMPARE_B:-sample-reports/tut7_mk1_small}
for view in summary memory liveness; do
	shot "compare-$view" "$view" "$compare_a" "$compare_b"
done
shot compare-operations operations sample-reports/tut4_profiling sample-reports/tut5_ml
# The History view: a store of the tutorial 7 sizes added at three
# commits (made in a temporary directory, reports by absolute path).
tilescope=$(screenshot_app cli-summary/tilescope)
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
parent=
for commit in 1 2 3; do
	r=tut7_mk1_small
	[ $commit = 2 ] && r=tut7_mk1
	"$tilescope" history add "$store/history.db" "$PWD/sample-reports/$r" --commit "c${commit}00000" \
		--branch main --time $((commit * 3600)) ${parent:+--parent "$parent"} >/dev/null
	parent=c${commit}00000
done
shot history history "$store/history.db"
# The Execution Trace's Flame and BSP modes, and the System Analyser on
# tutorial 5's trace (their own scripts: they drive the app with keys).
scripts/screenshots-trace-modes.sh "$report" "$out"
scripts/screenshots-system.sh "${SYSTEM_TRACE:-sample-reports/tut5_ml/tut5_ml.pvti}" "$out"
scripts/screenshots-pages.sh "$report" "$out"
