#!/usr/bin/env bash
# Renders every view of the Graph Analyser on a sample report to PNG, in
# the light and the dark style, at scale 1 and 2, under Xvfb:
#   docs/screenshots/<view>-<light|dark>-<1x|2x>.png
# usage: scripts/screenshots.sh [REPORT] [OUT_DIR]
#   REPORT   default sample-reports/tut5_ml
#   OUT_DIR  default docs/screenshots
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
for view in $views; do
	for style in light dark; do
		for scale in 1 2; do
			theme=Adwaita
			[ $style = dark ] && theme=Adwaita:dark
			size="1400x900"
			[ $scale = 2 ] && size="2800x1800"
			png="$out/$view-$style-${scale}x.png"
			xvfb-run -a -s "-screen 0 ${size}x24 -noreset" env GTK_THEME=$theme \
				GDK_SCALE=$scale GSK_RENDERER=cairo NO_AT_BRIDGE=1 sh -c '
				"$1" --view="$2" "$3" 2>/dev/null & pid=$!
				sleep 3
				# The pointer away from the window: no tooltip in the picture.
				xdotool mousemove 5000 5000 2>/dev/null
				sleep 1
				import -window root "$4"
				kill $pid' sh "$app" "$view" "$report" "$png"
			# The window is 1280x820 logical at the top left: keep it.
			if [ $scale = 2 ]; then crop=2560x1640+0+0; else crop=1280x820+0+0; fi
			convert "$png" -crop "$crop" +repage "$png"
			echo "$png"
		done
	done
done
