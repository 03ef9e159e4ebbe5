#!/usr/bin/env bash
# Renders every view of both apps on one report and one trace, in the
# light and the dark style at scales 1 and 2, so that the pictures of a
# build before a change and of a build after it can be put side by side
# (issue 28: "screenshots before and after of every view, light/dark/2x").
#
# usage: scripts/screenshots-all.sh BUILD REPORT TRACE OUT_DIR [REPORT_B [TRACE_B]]
#   BUILD     a meson build dir with the apps (built here when stale)
#   REPORT    a profile.pop or the directory holding it
#   TRACE     a .pvti file or a directory of them
#   OUT_DIR   where the pictures go (made when missing)
#   REPORT_B  the report compared with REPORT (default REPORT itself)
#   TRACE_B   the trace compared with TRACE (default TRACE itself)
#
# Writes OUT_DIR/VIEW-STYLE-SCALE.png (style light or dark, scale 1x or
# 2x), cropped to the app's window:
#   ga-NAME          the Graph Analyser's --view=NAME, for every name its
#                    --help lists; ga-trace-flame, ga-trace-bsp (the
#                    Execution Trace's other modes, by their mnemonics)
#   ga-compare-NAME  the same with REPORT_B: compare mode
#   sa-timeline      the System Analyser as it opens (timeline, overview,
#                    Statistics of the whole trace)
#   sa-statistics, sa-calltree, sa-flame, sa-span
#                    the details tabs (Alt+1..4) after the first search hit
#                    of "Compiling graph" (a span with children)
#   sa-compare       --compare TRACE TRACE_B (the Compare tab)
# then OUT_DIR/contact-STYLE-SCALE.png, every view of one style and scale
# on one sheet (ImageMagick montage), and OUT_DIR/timings.tsv: per
# picture, the seconds from the start to the window and to the painted
# view, and from the last key (if any) to the view painted again.
#
# Nothing waits a fixed time for the app: a picture is taken once the
# screen has not changed for STABLE_S (2) seconds and the app has used
# under a tenth of a core meanwhile, with no thread running or waiting
# for a core (its workers done, however busy the machine), polled with a
# deadline of DEADLINE_S (300) seconds; a view that never settles is
# taken as it is then and marked "unsettled" in timings.tsv.
# ONLY=REGEX (grep -E, matching the whole view name: ONLY='ga-trace.*')
# takes only those pictures, adds their lines to timings.tsv and remakes
# the sheets with every picture OUT_DIR has.
#
# The app runs with its own home and GSettings in memory (nothing
# remembered between pictures), the cairo renderer, no cursor blink, the
# pointer moved off the window; under Xvfb there is no window manager, so the window sits
# at the top left. Needs what screenshot-lib.sh installs.
set -eu
if [ $# -lt 4 ] || [ $# -gt 6 ]; then
	sed -n 's/^# \{0,1\}//; 7,13p' "$0" >&2
	exit 2
fi
# Absolute paths: screenshot-lib.sh moves to the source tree.
abs() { realpath -m -- "$1"; }
export TILESCOPE_SCREENS_BUILD
TILESCOPE_SCREENS_BUILD=$(abs "$1")
report=$(abs "$2")
trace=$(abs "$3")
out=$(abs "$4")
report_b=$(abs "${5:-$2}")
trace_b=$(abs "${6:-$3}")
for f in "$report" "$trace" "$report_b" "$trace_b"; do
	[ -e "$f" ] || { echo "screenshots-all.sh: $f: no such file or directory" >&2; exit 2; }
done
[ -f "$TILESCOPE_SCREENS_BUILD/build.ninja" ] ||
	{ echo "screenshots-all.sh: $1 is not a meson build directory" >&2; exit 2; }
. "$(dirname "$0")/screenshot-lib.sh"
screenshot_setup "$out"
ga=$(screenshot_app graph-analyser/tilescope-graph-analyser)
sa=$(screenshot_app system-analyser/tilescope-system-analyser)
views=$("$ga" --help | sed -n 's/.*--view=NAME.*(\(.*\)).*/\1/p' | tr -d ',')
[ -n "$views" ] || { echo "screenshots-all.sh: the Graph Analyser lists no views" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The pictures: NAME, the keys after the view has painted (xdotool
# commands, ";" between them, each followed by a wait for the paint),
# then the command line, one field per tab.
list=$work/shots.tsv
: >"$list"
shot() {
	local IFS=$'\t'
	printf '%s\n' "$*" >>"$list"
}
for view in $views; do
	shot "ga-$view" "" "$ga" --view="$view" "$report"
done
shot ga-trace-flame "key alt+m" "$ga" --view=trace "$report"
shot ga-trace-bsp "key alt+b" "$ga" --view=trace "$report"
for view in $views; do
	shot "ga-compare-$view" "" "$ga" --view="$view" "$report" "$report_b"
done
shot ga-compare-trace-flame "key alt+m" "$ga" --view=trace "$report" "$report_b"
shot ga-compare-trace-bsp "key alt+b" "$ga" --view=trace "$report" "$report_b"
shot sa-timeline "" "$sa" "$trace"
find="key ctrl+f;type Compiling graph;key Return;key Escape"
shot sa-statistics "$find;key alt+1" "$sa" "$trace"
shot sa-calltree "$find;key alt+2" "$sa" "$trace"
shot sa-flame "$find;key alt+3" "$sa" "$trace"
shot sa-span "$find;key alt+4" "$sa" "$trace"
shot sa-compare "" "$sa" --compare "$trace" "$trace_b"
all=$work/all.tsv
cp "$list" "$all"
if [ -n "${ONLY:-}" ]; then
	grep -E "^(${ONLY})	" "$all" >"$list" || true
	[ -s "$list" ] || { echo "screenshots-all.sh: ONLY=$ONLY matches no view" >&2; exit 2; }
fi

# The driver, run inside each X session: starts each command of the list
# in turn and takes its picture once painted (see the top of this file).
cat >"$work/driver.py" <<'EOF'
import hashlib
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.getcwd(), "tests", "gui"))
from atspi_util import find_app  # noqa: E402

listing, out, style, scale, timings = sys.argv[1:6]
STABLE = float(os.environ.get("STABLE_S", "2"))
DEADLINE = float(os.environ.get("DEADLINE_S", "300"))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    """Seconds of CPU the process (all its threads) has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def screen():
    return hashlib.sha1(subprocess.run(["import", "-window", "root", "-depth", "8", "rgb:-"],
                                       check=True, capture_output=True).stdout).digest()


def runnable(pid):
    """Whether a thread of the process is running or waiting for a core
    (a worker starved by a busy machine uses little CPU, but is "R")."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                if f.read().rpartition(")")[2].split()[0] == "R":
                    return True
        except OSError:
            pass
    return False


def painted(proc, since):
    """Polls until the screen has not changed for STABLE seconds while
    the app used under a tenth of a core and has no thread that runs or
    waits to: (seconds from `since` to the last change, True), or
    (seconds waited, False) at the deadline."""
    end = time.time() + DEADLINE
    last, changed, cpu_at = None, time.time(), cpu_s(proc.pid)
    while time.time() < end:
        if proc.poll() is not None:
            raise SystemExit(f"the app exited ({proc.returncode}) before it painted")
        now, cur = time.time(), screen()
        if cur != last:
            last, changed, cpu_at = cur, now, cpu_s(proc.pid)
        elif now - changed >= STABLE:
            if cpu_s(proc.pid) - cpu_at < 0.1 * (now - changed) and not runnable(proc.pid):
                return changed - since, True
            changed, cpu_at = now, cpu_s(proc.pid)  # still working: wait on
        time.sleep(0.25)
    return time.time() - since, False


def window_size(pid):
    """Width and height in pixels of the app's largest visible window."""
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid)],
                         capture_output=True, text=True).stdout.split()
    best = (0, 0)
    for wid in ids:
        geo = subprocess.run(["xdotool", "getwindowgeometry", "--shell", wid],
                             capture_output=True, text=True).stdout
        kv = dict(line.split("=", 1) for line in geo.split() if "=" in line)
        w, h = int(kv.get("WIDTH", 0)), int(kv.get("HEIGHT", 0))
        if w * h > best[0] * best[1]:
            best = (w, h)
    return best


with open(listing) as f, open(timings, "a") as log:
    for line in f:
        name, keys, *argv = line.rstrip("\n").split("\t")
        png = os.path.join(out, f"{name}-{style}-{scale}x.png")
        with tempfile.TemporaryDirectory(prefix="shots-") as home:
            os.makedirs(os.path.join(home, "gtk-4.0"))
            with open(os.path.join(home, "gtk-4.0", "settings.ini"), "w") as s:
                s.write("[Settings]\ngtk-cursor-blink=false\n")
            env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home, XDG_DATA_HOME=home,
                       XDG_CACHE_HOME=home)
            start = time.time()
            proc = subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL)
            try:
                find_app(proc.pid, timeout=DEADLINE, proc=proc)
                up = time.time() - start
                took, ok = painted(proc, start)
                notes = [] if ok else ["unsettled"]
                after = ""
                for step in filter(None, keys.split(";")):
                    verb, _, arg = step.partition(" ")
                    pressed = time.time()
                    subprocess.run(["xdotool", verb] +
                                   (["--delay", "30", arg] if verb == "type" else arg.split()),
                                   check=True)
                    after, ok = painted(proc, pressed)
                    if not ok:
                        notes.append(f"unsettled after {step}")
                # No tooltip or hover in the picture.
                subprocess.run(["xdotool", "mousemove", "10000", "10000"], check=True)
                painted(proc, time.time())
                w, h = window_size(proc.pid)
                crop = ["-crop", f"{w}x{h}+0+0", "+repage"] if w and h else []
                subprocess.run(["import", "-window", "root"] + crop + [png], check=True)
                print(png, flush=True)
                log.write(f"{name}\t{style}\t{scale}x\t{up:.1f}\t{took:.1f}\t"
                          f"{after and f'{after:.1f}'}\t{'; '.join(notes)}\n")
                log.flush()
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
EOF

launcher=
for p in /usr/libexec/at-spi-bus-launcher /usr/lib/at-spi2-core/at-spi-bus-launcher; do
	[ -x "$p" ] && launcher=$p && break
done
[ -n "$launcher" ] || { echo "screenshots-all.sh: no at-spi-bus-launcher (at-spi2-core)" >&2; exit 1; }
[ -n "${ONLY:-}" ] && [ -s "$out/timings.tsv" ] ||
	printf 'view\tstyle\tscale\twindow_s\tpainted_s\tlast_key_s\tnotes\n' >"$out/timings.tsv"
for style in light dark; do
	for scale in 1 2; do
		theme=Adwaita
		[ $style = dark ] && theme=Adwaita:dark
		size=$((1600 * scale))x$((1000 * scale))
		# One X and D-Bus session per style and scale, with the
		# accessibility bus up (polled) before the first app starts.
		xvfb-run -a -s "-screen 0 ${size}x24 -noreset" env GTK_THEME=$theme GDK_SCALE=$scale \
			GSK_RENDERER=cairo GTK_A11Y=atspi GSETTINGS_BACKEND=memory \
			PYTHONDONTWRITEBYTECODE=1 dbus-run-session -- sh -c '
			launcher=$1; shift
			"$launcher" --launch-immediately & bus=$!
			end=$(($(date +%s) + 120))
			until dbus-send --session --print-reply --dest=org.freedesktop.DBus \
					/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
					string:org.a11y.Bus 2>/dev/null | grep -q "boolean true"; do
				if [ "$(date +%s)" -ge $end ]; then
					echo "screenshots-all.sh: the accessibility bus never came up" >&2
					exit 1
				fi
				sleep 0.1
			done
			/usr/bin/python3 "$@"; rc=$?
			kill $bus
			exit $rc' sh "$launcher" "$work/driver.py" "$list" "$out" $style $scale \
			"$out/timings.tsv" > >(grep -v SpiRegistry) 2> >(grep -v -e "fd limit" -e "^dbus-daemon" -e SpiRegistry -e dbind-WARNING -e '^$' >&2)
		# One sheet per style and scale, every view in the list's order
		# (those OUT_DIR has), each labelled with its name.
		pngs=()
		while IFS=$'\t' read -r name _; do
			png=$out/$name-$style-${scale}x.png
			[ -f "$png" ] && pngs+=("$png")
		done <"$all"
		montage -label '%t' -font DejaVu-Sans -pointsize 14 -geometry 640x+6+6 -tile 4x \
			-background '#888' "${pngs[@]}" "$out/contact-$style-${scale}x.png"
		echo "$out/contact-$style-${scale}x.png"
	done
done
