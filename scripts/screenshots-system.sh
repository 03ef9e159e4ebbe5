#!/usr/bin/env bash
# Renders the System Analyser on a sample trace to PNG, in the light and
# the dark style, at scale 1 and 2, under Xvfb, with a range marked by
# Shift+drag (so the Statistics tab shows a window):
#   docs/screenshots/system-<light|dark>-<1x|2x>.png
# usage: scripts/screenshots-system.sh [TRACE] [OUT_DIR]
#   TRACE    default sample-reports/tut5_ml/tut5_ml.pvti
#   OUT_DIR  default docs/screenshots
# scripts/screenshots.sh runs it after the Graph Analyser's. Needs a build
# with the GUI (build-screens/, or $TILESCOPE_SCREENS_BUILD), xvfb-run,
# xdotool and ImageMagick (scripts/deps.sh installs them).
set -eu
cd "$(dirname "$0")/.."
. scripts/deps.sh
tilescope_install_deps >&2
trace=${1:-sample-reports/tut5_ml/tut5_ml.pvti}
out=${2:-docs/screenshots}
build=${TILESCOPE_SCREENS_BUILD:-build-screens}
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
ninja -C "$build" system-analyser/tilescope-system-analyser >/dev/null
app=$(cd "$build" && pwd)/system-analyser/tilescope-system-analyser
mkdir -p "$out"
for style in light dark; do
	for scale in 1 2; do
		theme=Adwaita
		[ $style = dark ] && theme=Adwaita:dark
		size="1400x900"
		[ $scale = 2 ] && size="2800x1800"
		png="$out/system-$style-${scale}x.png"
		xvfb-run -a -s "-screen 0 ${size}x24 -noreset" env GTK_THEME=$theme \
			GDK_SCALE=$scale GSK_RENDERER=cairo NO_AT_BRIDGE=1 sh -c '
			app=$1 png=$2 trace=$3 s=$4
			"$app" "$trace" 2>/dev/null & pid=$!
			sleep 3
			# Shift+drag over the last third of the timeline (the window
			# is at the top left: the plot starts 205 px in, its first
			# row about 100 px down).
			y=$((160 * s))
			xdotool mousemove $((850 * s)) $y keydown shift mousedown 1 \
				mousemove $((1000 * s)) $y mousemove $((1240 * s)) $y mouseup 1 keyup shift
			sleep 1
			# The pointer away from the window: no tooltip in the picture.
			xdotool mousemove 5000 5000
			sleep 1
			import -window root "$png"
			kill $pid' sh "$app" "$png" "$trace" "$scale"
		# The window is 1280x820 logical at the top left: keep it.
		if [ $scale = 2 ]; then crop=2560x1640+0+0; else crop=1280x820+0+0; fi
		convert "$png" -crop "$crop" +repage "$png"
		echo "$png"
	done
done
