#!/usr/bin/env bash
# Sets everything up and runs the main job: builds Tilescope, profiles the
# tutorial 4 model on the simulated IPU and shows the result, then runs
# tutorial 5 (training), tutorial 7 (with its simulated cycles) and the
# peak-FLOPS calibration.
set -eu
cd "$(dirname "$0")/.."
. scripts/deps.sh
tilescope_install_deps
dir=${TILESCOPE_BUILD_DIR:-build}
[ -f "$dir/build.ninja" ] || meson setup "$dir" -Dbuildtype=release >/dev/null
ninja -C "$dir" >/dev/null
ex="$dir/instrument/examples"
echo "=== tut4_profiling: ((m1 x m2) x m3) on an IPU Model, and its profile"
"$ex/tut4_profiling"
echo "=== tut5_ml: logistic regression on Fashion-MNIST, one epoch"
"$ex/tut5_ml"
echo "=== tut7_matrix_vector_opt --ipu mk1 10000 1000 (the guide's run: 5,071 cycles)"
"$ex/tut7_matrix_vector_opt" --ipu mk1 10000 1000
echo "=== ipu_peak_flops: AMP matmul throughput against measured Bow figures"
"$ex/ipu_peak_flops"
