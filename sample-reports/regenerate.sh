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
#                       written beside the report, so that its spans link to
#                       it as "." (the link is relative to the trace)
#
# usage: sample-reports/regenerate.sh [--trace] [BUILD_DIR]   (default: build-release)
# Run it after a change to db-schema/profile.sql (the sample-reports test
# fails when the samples are of another schema version). --trace writes
# tut5_ml.pvti again and nothing else: tutorial 5 runs into a temporary
# directory laid out as tut5_ml/ (report and trace together), the trace
# is kept, and its report is checked to have the runs of the shipped one,
# which its spans link to.
set -eu

trace_only=false
if [ "${1:-}" = --trace ]; then
	trace_only=true
	shift
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build-release}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$root" --buildtype=release >/dev/null
fi
ex=$build/instrument/examples

if $trace_only; then
	ninja -C "$build" instrument/examples/tut5_ml cli-summary/tilescope >/dev/null
	run=$(mktemp -d)
	echo "sample-reports/tut5_ml/tut5_ml.pvti: $ex/tut5_ml --synthetic --epochs 1"
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$run/tut5_ml\"}" \
	PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$run/tut5_ml\"}" \
		"$ex/tut5_ml" --synthetic --epochs 1 >/dev/null
	runs="SELECT group_concat(id || ':' || program || ':' || num_steps, ' ')
	      FROM (SELECT * FROM run ORDER BY id)"
	want=$("$build/cli-summary/tilescope" sql --csv "$here/tut5_ml" "$runs")
	got=$("$build/cli-summary/tilescope" sql --csv "$run/tut5_ml" "$runs")
	if [ "$want" != "$got" ]; then
		echo "regenerate.sh: the new run's report has other runs than the shipped one" \
			"($got, not $want): regenerate everything" >&2
		rm -rf "$run"
		exit 1
	fi
	mv "$run"/tut5_ml/[0-9]*.pvti "$here/tut5_ml/tut5_ml.pvti"
	rm -rf "$run"
	exit 0
fi

ninja -C "$build" >/dev/null

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
PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$here/tut5_ml\"}" \
	regen tut5_ml "$ex/tut5_ml" --synthetic --epochs 1
mv "$here"/tut5_ml/[0-9]*.pvti "$here/tut5_ml/tut5_ml.pvti" # <date>_<time>_<TZ>_<pid>.pvti
du -sh "$here"/*/ | sed "s|$root/||"
