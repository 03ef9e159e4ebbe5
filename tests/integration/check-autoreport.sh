#!/bin/sh
# Runs an example as a user would with autoReport, in a fresh temporary
# directory: first without POPLAR_ENGINE_OPTIONS (nothing may be written),
# then with '{"autoReport.all":"true","autoReport.directory":"./report"}'
# (profile.pop and debug.cbor must appear, and the sqlite3 shell must
# answer docs/profiling.md's four questions from the shipped schema).
#
# usage: check-autoreport.sh EXE [ARG...]
set -u

if [ $# -lt 1 ]; then
	echo "usage: check-autoreport.sh EXE [ARG...]" >&2
	exit 2
fi
exe=$1
shift
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1
mkdir plain profiled || exit 1
status=0

# Without the variable: the example's own output only, no file.
(cd plain && env -u POPLAR_ENGINE_OPTIONS "$exe" "$@" >../plain.out 2>../plain.err)
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: $exe $* exited with $rc without autoReport"; cat plain.err; status=1
fi
if [ -n "$(ls -A plain)" ]; then
	echo "FAIL: without POPLAR_ENGINE_OPTIONS the example wrote: $(ls -A plain)"; status=1
fi

# With it.
(cd profiled && POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"./report"}' \
	"$exe" "$@" >../profiled.out 2>../profiled.err)
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: $exe $* exited with $rc with autoReport"; cat profiled.err; status=1
fi
for f in profile.pop debug.cbor; do
	if [ ! -s "profiled/report/$f" ]; then
		echo "FAIL: profiled/report/$f was not written"; status=1
	fi
done
leftover=$(ls -A profiled/report | grep -v -x -e profile.pop -e debug.cbor)
if [ -n "$leftover" ]; then
	echo "FAIL: unexpected files in the report directory: $leftover"; status=1
fi

# docs/profiling.md's four queries answer from the plain shell.
db=profiled/report/profile.pop
q() {
	out=$(sqlite3 -readonly "$db" "$2" 2>&1)
	if [ $? -ne 0 ] || [ -z "$out" ]; then
		echo "FAIL: query '$1' gave no answer: $out"; status=1
	else
		printf '%s:\n%s\n' "$1" "$out"
	fi
}
q "10 largest tiles" "SELECT tile, total_including_gaps FROM tile_memory ORDER BY total_including_gaps DESC LIMIT 10"
q "memory by category" "SELECT category, SUM(total) AS bytes FROM memory_category GROUP BY category HAVING bytes > 0 ORDER BY bytes DESC"
q "10 longest steps" "SELECT run, id, type, program, cycles FROM step ORDER BY cycles DESC LIMIT 10"
q "cycles by vertex type" "SELECT s.text, SUM(c.active_cycles) AS cycles FROM compute_set_vertex_type c JOIN vertex_type v ON v.id = c.vertex_type JOIN string s ON s.id = v.name GROUP BY c.vertex_type ORDER BY cycles DESC"
exit $status
