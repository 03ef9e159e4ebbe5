#!/usr/bin/env bash
# Sets everything up and runs the main job: builds Tilescope, profiles the
# tutorial 4 model on the simulated IPU with autoReport (as a Poplar user
# would) and shows the result and what its profile.pop answers, then runs
# tutorial 5 (training, traced; `tilescope trace`), tutorial 7 at three sizes
# (its simulated cycles; `tilescope diff` as a CI gate; a history store of
# three commits, `tilescope history show`, `changes` and `report`) and the
# peak-FLOPS calibration, and shows tut4's report in the Graph Analyser
# (a window when there is a display, else a picture of its Memory view).
# Reports go to $TILESCOPE_REPORT_DIR (default demo-report/).
set -eu
cd "$(dirname "$0")/.."
. scripts/deps.sh
tilescope_install_deps
dir=${TILESCOPE_BUILD_DIR:-build}
[ -f "$dir/build.ninja" ] || meson setup "$dir" -Dbuildtype=release >/dev/null
ninja -C "$dir" >/dev/null
ex="$dir/instrument/examples"
report=${TILESCOPE_REPORT_DIR:-demo-report}
echo "=== tut4_profiling: ((m1 x m2) x m3) on an IPU Model, profiled with autoReport into $report/"
POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$report\"}" \
	"$ex/tut4_profiling"
ls -l "$report"
pop="$report/profile.pop"
echo "--- the 10 largest tiles, including gaps (bytes)"
sqlite3 -readonly -column -header "$pop" "SELECT tile, total_including_gaps FROM tile_memory ORDER BY total_including_gaps DESC LIMIT 10"
echo "--- memory by category (bytes, all tiles)"
sqlite3 -readonly -column -header "$pop" "SELECT category, SUM(total) AS bytes FROM memory_category GROUP BY category HAVING bytes > 0 ORDER BY bytes DESC"
echo "--- the 10 longest execution steps"
sqlite3 -readonly -column -header "$pop" "SELECT run, id, type, program, cycles FROM step ORDER BY cycles DESC LIMIT 10"
echo "--- cycles by vertex type"
sqlite3 -readonly -column -header "$pop" "SELECT s.text AS vertex_type, SUM(c.active_cycles) AS cycles FROM compute_set_vertex_type c JOIN vertex_type v ON v.id = c.vertex_type JOIN string s ON s.id = v.name GROUP BY c.vertex_type ORDER BY cycles DESC"
ts="$dir/cli-summary/tilescope"
echo "=== tut5_ml: logistic regression on Fashion-MNIST, one epoch, traced with PVTI_OPTIONS"
PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$report/trace\"}" "$ex/tut5_ml"
echo "--- tilescope trace: where the host's time went"
"$ts" trace --top 10 "$report/trace"
echo "=== tut7_matrix_vector_opt --ipu mk1 10000 1000 (the guide's run: 5,071 cycles)"
POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$report/tut7-10000\"}" \
	"$ex/tut7_matrix_vector_opt" --ipu mk1 10000 1000
echo "--- the same at 5000 x 1000, then tilescope diff as a CI gate (--max-cycles-increase=1)"
POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$report/tut7-5000\"}" \
	"$ex/tut7_matrix_vector_opt" --ipu mk1 5000 1000 | tail -n 1
rc=0
"$ts" diff --run 1 --max-cycles-increase=1 --top 3 "$report/tut7-5000" "$report/tut7-10000" || rc=$?
echo "(tilescope diff exited $rc: 1 means a limit was exceeded, as the larger problem should)"
echo "=== tilescope history: tut7 at 5000, 7500 and 10000 rows as three commits of one branch"
POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$report/tut7-7500\"}" \
	"$ex/tut7_matrix_vector_opt" --ipu mk1 7500 1000 | tail -n 1
store="$report/history.db"
rm -f "$store" "$store-wal" "$store-shm"
parent=
for rows in 5000 7500 10000; do # made-up commits, as CI's `git rev-parse HEAD` would give
	commit=$(printf "tut7-%s" "$rows" | sha1sum | cut -c1-40)
	"$ts" history add "$store" "$report/tut7-$rows" --commit "$commit" --branch main \
		${parent:+--parent "$parent"}
	parent=$commit
done
echo "--- tilescope history show --metric cycles.total: the series, newest first"
"$ts" history show "$store" --metric cycles.total
"$ts" history changes "$store" >"$report/history-changes.txt"
echo "--- tilescope history changes: $(wc -l <"$report/history-changes.txt") change points" \
	"(all in $report/history-changes.txt); those of the runs' cycles:"
grep '^cycles\.run\.' "$report/history-changes.txt"
"$ts" history report "$store" --metric 'cycles.run.*' --metric cycles.total -o "$report/history.html"
echo "--- tilescope history report: $report/history.html, those series' charts with their change points"
echo "=== ipu_peak_flops: AMP matmul throughput against measured Bow figures"
"$ex/ipu_peak_flops"
ga="$dir/graph-analyser/tilescope-graph-analyser"
if [ -x "$ga" ]; then
	echo "=== the Graph Analyser on tut4's report"
	if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
		echo "(opening the window; close it to finish)"
		"$ga" --view=memory "$report"
	elif command -v xvfb-run >/dev/null 2>&1; then
		# No display: draw its Memory view offscreen and keep the picture.
		png="$(cd "$report" && pwd)/graph-analyser-memory.png"
		xvfb-run -a -s "-screen 0 1400x900x24" env GSK_RENDERER=cairo NO_AT_BRIDGE=1 sh -c '
			"$1" --view=memory "$2" 2>/dev/null & pid=$!
			sleep 4
			# The pointer away from the window: no tooltip in the picture.
			xdotool mousemove 5000 5000 2>/dev/null && sleep 1
			import -window root -crop 1280x820+0+0 "$3"; kill $pid' \
			sh "$ga" "$report" "$png"
		echo "no display here: the Memory view is drawn in $png"
	fi
fi
