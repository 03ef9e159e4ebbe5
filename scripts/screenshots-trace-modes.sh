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
for mode in flame:alt+m bsp:alt+b; do
	name=${mode%%:*}
	key=${mode#*:}
	for style in light dark; do
		for scale in 1 2; do
			theme=Adwaita
			[ $style = dark ] && theme=Adwaita:dark
			size="1400x900"
			[ $scale = 2 ] && size="2800x1800"
			png="$out/trace-$name-$style-${scale}x.png"
			xvfb-run -a -s "-screen 0 ${size}x24 -noreset" env GTK_THEME=$theme \
				GDK_SCALE=$scale GSK_RENDERER=cairo NO_AT_BRIDGE=1 sh -c '
				"$1" --view=trace "$2" 2>/dev/null & pid=$!
				sleep 3
				xdotool key "$3"
				sleep 1.5
				xdotool mousemove 5000 5000 2>/dev/null
				sleep 0.5
				import -window root "$4"
				kill $pid' sh "$app" "$report" "$key" "$png"
			if [ $scale = 2 ]; then crop=2560x1640+0+0; else crop=1280x820+0+0; fi
			convert "$png" -crop "$crop" +repage "$png"
			echo "$png"
		done
	done
done
