#!/bin/sh
# POPLAR_GRAPH_REPORT_DEST as a Poplar user sets it: the graph summary is
# written to the named file when the engine compiles (here tut4_profiling,
# which links reportlib), with the guide's sections; an unwritable
# destination fails the run with a message naming it.
#
# usage: check-graph-report.sh EXE
set -u
[ $# -eq 1 ] || { echo "usage: check-graph-report.sh EXE" >&2; exit 2; }
exe=$1
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
status=0

if ! POPLAR_GRAPH_REPORT_DEST=graph.txt "$exe" >out.txt 2>err.txt; then
	echo "FAIL: $exe exited non-zero with POPLAR_GRAPH_REPORT_DEST"; cat err.txt; status=1
fi
for label in 'Target:' 'Graph:' 'Memory Usage:' 'Number of vertices:' 'By Tile (Excluding Gaps):'; do
	grep -q "$label" graph.txt || { echo "FAIL: graph.txt lacks '$label'"; status=1; }
done
# Only the graph is known at compile time.
grep -q 'No execution profile' graph.txt || { echo "FAIL: graph.txt should say there is no execution profile yet"; status=1; }

if POPLAR_GRAPH_REPORT_DEST=/nonexistent/dir/graph.txt "$exe" >out2.txt 2>err2.txt; then
	echo "FAIL: an unwritable destination was accepted"; status=1
elif ! grep -q "/nonexistent/dir/graph.txt" err2.txt; then
	echo "FAIL: the error does not name the destination:"; cat err2.txt; status=1
fi
exit $status
