#!/bin/sh
# Regenerates the sample reports: runs three examples (one at two sizes) with autoReport, as a
# user would, and keeps each one's profile.pop and debug.cbor here, so a new
# user can open the analysers and the `tilescope` command at once.
#
#   tut4_profiling/     the user guide's tutorial 4 ((m1 x m2) x m3), Mk2
#   tut7_mk1/           tutorial 7's matrix-vector product, 10000 x 1000, Mk1
#   tut7_mk1_small/     the same with a 2000 x 1000 matrix: the pair the Graph
#                       Analyser's compare mode and `tilescope diff` are shown on
#   tut5_ml/            tutorial 5's classifier, one epoch on synthetic data,
#                       with its system trace (tut5_ml.pvti, PVTI_OPTIONS)
#
# usage: sample-reports/regenerate.sh [BUILD_DIR]   (default: build-release)
# Run it after a change to db-schema/profile.sql (the sample-reports test
# fails when the samples are of another schema version).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-release}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$root" --buildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null
ex=$build/instrument/examples

regen() {
	name=$1
	shift
	rm -rf "${here:?}/$name"
	echo "sample-reports/$name: $*"
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$here/$name\"}" \
		"$@" >/dev/null
}

regen tut4_profiling "$ex/tut4_profiling"
regen tut7_mk1 "$ex/tut7_matrix_vector_opt" --ipu mk1 10000 1000
regen tut7_mk1_small "$ex/tut7_matrix_vector_opt" --ipu mk1 2000 1000
tracedir=$(mktemp -d)
PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$tracedir\"}" \
	regen tut5_ml "$ex/tut5_ml" --synthetic --epochs 1
mv "$tracedir"/*.pvti "$here/tut5_ml/tut5_ml.pvti"
rmdir "$tracedir"
du -sh "$here"/*/ | sed "s|$root/||"
