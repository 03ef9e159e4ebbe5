#!/usr/bin/env bash
# Renders every view of the Graph Analyser on a sample report to PNG, in
# the light and the dark style, at scale 1 and 2, under Xvfb:
#   docs/screenshots/<view>-<light|dark>-<1x|2x>.png
# and compare mode (`--view=NAME A B`) of the Summary, Memory and Liveness
# views on the two tutorial 7 sizes, and of Operations on tutorials 4 and
# 5 (tutorial 7 has no operations):
#   docs/screenshots/compare-<view>-<light|dark>-<1x|2x>.png
# usage: scripts/screenshots.sh [REPORT] [OUT_DIR]
#   REPORT   default sample-reports/tut5_ml
#   OUT_DIR  default docs/screenshots
# COMPARE_A and COMPARE_B change the compared pair (default
# sample-reports/tut7_mk1 and sample-reports/tut7_mk1_small).
# Needs a build with the GUI (build-screens/, made here when missing),
# xvfb-run and ImageMagick's import (scripts/deps.sh installs them).
set -eu
cd "$(dirname "$0")/.."
. scripts/deps.sh
tilescope_install_deps >&2
report=${1:-sample-reports/tut5_ml}
out=${2:-docs/screenshots}
build=${TILESCOPE_SCREENS_BUILD:-build-screens}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" graph-analyser/tilescope-graph-analyser >/dev/null
app=$(cd "$build" && pwd)/graph-analyser/tilescope-graph-analyser
mkdir -p "$out"
views=$("$app" --help | sed -n 's/.*--view=NAME.*(\(.*\)).*/\1/p' | tr -d ',')
[ -n "$views" ] || { echo "screenshots.sh: the app lists no views" >&2; exit 1; }
# shot NAME VIEW REPORT...: one view in both styles and scales.
shot() {
	name=$1 view=$2
	shift 2
	for style in light dark; do
		for scale in 1 2; do
			theme=Adwaita
			[ $style = dark ] && theme=Adwaita:dark
			size="1400x900"
			[ $scale = 2 ] && size="2800x1800"
			png="$out/$name-$style-${scale}x.png"
			xvfb-run -a -s "-screen 0 ${size}x24 -noreset" env GTK_THEME=$theme \
				GDK_SCALE=$scale GSK_RENDERER=cairo NO_AT_BRIDGE=1 sh -c '
				app=$1 png=$2 view=$3
				shift 3
				"$app" --view="$view" "$@" 2>/dev/null & pid=$!
				sleep 3
				# The pointer away from the window: no tooltip in the picture.
				xdotool mousemove 5000 5000 2>/dev/null
				sleep 1
				import -window root "$png"
				kill $pid' sh "$app" "$png" "$view" "$@"
			# The window is 1280x820 logical at the top left: keep it.
			if [ $scale = 2 ]; then crop=2560x1640+0+0; else crop=1280x820+0+0; fi
			convert "$png" -crop "$crop" +repage "$png"
			echo "$png"
		done
	done
}
for view in $views; do
	shot "$view" "$view" "$report"
done
compare_a=${COMPARE_A:-sample-reports/tut7_mk1}
compare_b=${COMPARE_B:-sample-reports/tut7_mk1_small}
for view in summary memory liveness; do
	shot "compare-$view" "$view" "$compare_a" "$compare_b"
done
shot compare-operations operations sample-reports/tut4_profiling sample-reports/tut5_ml
# The System Analyser on tutorial 5's trace (its own script).
scripts/screenshots-system.sh "${SYSTEM_TRACE:-sample-reports/tut5_ml/tut5_ml.pvti}" "$out"
