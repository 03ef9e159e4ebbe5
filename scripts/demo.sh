#!/usr/bin/env bash
# Sets everything up and runs the main job: builds Tilescope and runs the
# tutorial models on the simulated IPU, printing what they print.
set -eu
cd "$(dirname "$0")/.."
. scripts/deps.sh
tilescope_install_deps
dir=${TILESCOPE_BUILD_DIR:-build}
[ -f "$dir/build.ninja" ] || meson setup "$dir" -Dbuildtype=release >/dev/null
ninja -C "$dir" >/dev/null
ex="$dir/instrument/examples"
for t in tut1_variables tut2_operations tut3_vertices; do
	echo "=== $t"
	"$ex/$t"
done
echo "=== tut6_matrix_vector 40 50"
"$ex/tut6_matrix_vector" 40 50
echo "=== tut7_matrix_vector_opt 10000 1000"
"$ex/tut7_matrix_vector_opt" 10000 1000
