# Shared by the screenshot scripts (sourced, not run): the setup (Debian
# packages, a build with the GUI) and one capture loop, so every picture
# is taken the same way: the app alone under Xvfb at the top left, light
# and dark (Adwaita, Adwaita:dark), scale 1 and 2 (GDK_SCALE), the cairo
# renderer for stable pixels, the pointer moved away so no tooltip shows,
# cropped to the 1280x820 logical window.
#
#   screenshot_setup OUT_DIR     installs what is missing, makes OUT_DIR,
#                                sets $build (TILESCOPE_SCREENS_BUILD or
#                                build-screens/, made when missing)
#   screenshot_app TARGET        builds TARGET ("graph-analyser/tilescope-
#                                graph-analyser") and prints its path
#   screenshot_take NAME ACTIONS APP [ARG...]
#                                writes OUT_DIR/NAME-<style>-<scale>x.png:
#                                starts APP ARG..., waits 3 s, runs the
#                                shell snippet ACTIONS (xdotool keys or
#                                drags; $s is the scale), then captures

cd "$(dirname "$0")/.."
. scripts/deps.sh

screenshot_setup() {
	tilescope_install_deps >&2
	screenshot_out=$1
	build=${TILESCOPE_SCREENS_BUILD:-build-screens}
	[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
	mkdir -p "$screenshot_out"
}

screenshot_app() {
	ninja -C "$build" "$1" >/dev/null
	echo "$(cd "$build" && pwd)/$1"
}

screenshot_take() {
	local name=$1 actions=$2 style scale theme size png crop
	shift 2
	for style in light dark; do
		for scale in 1 2; do
			theme=Adwaita
			[ $style = dark ] && theme=Adwaita:dark
			size="1400x900"
			[ $scale = 2 ] && size="2800x1800"
			png="$screenshot_out/$name-$style-${scale}x.png"
			xvfb-run -a -s "-screen 0 ${size}x24 -noreset" env GTK_THEME=$theme \
				GDK_SCALE=$scale GSK_RENDERER=cairo NO_AT_BRIDGE=1 sh -c '
				png=$1 actions=$2 s=$3
				shift 3
				"$@" 2>/dev/null & pid=$!
				sleep 3
				eval "$actions"
				# The pointer away from the window: no tooltip in the picture.
				xdotool mousemove 5000 5000 2>/dev/null
				sleep 1
				import -window root "$png"
				kill $pid' sh "$png" "$actions" "$scale" "$@"
			# The window is 1280x820 logical at the top left: keep it.
			if [ $scale = 2 ]; then crop=2560x1640+0+0; else crop=1280x820+0+0; fi
			convert "$png" -crop "$crop" +repage "$png"
			echo "$png"
		done
	done
}
