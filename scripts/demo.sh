#!/usr/bin/env bash
# Sets everything up and runs the main job: builds Tilescope, profiles the
# tutorial 4 model on the simulated IPU with autoReport (as a Poplar user
# would) and shows the result and what its profile.pop answers, then runs
# tutorial 5 (training), tutorial 7 (with its simulated cycles) and the
# peak-FLOPS calibration. Reports go to $TILESCOPE_REPORT_DIR (default
# demo-report/).
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
echo "=== tut5_ml: logistic regression on Fashion-MNIST, one epoch"
"$ex/tut5_ml"
echo "=== tut7_matrix_vector_opt --ipu mk1 10000 1000 (the guide's run: 5,071 cycles)"
"$ex/tut7_matrix_vector_opt" --ipu mk1 10000 1000
echo "=== ipu_peak_flops: AMP matmul throughput against measured Bow figures"
"$ex/ipu_peak_flops"
