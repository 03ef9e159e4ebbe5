#!/bin/sh
# Runs an example as the user guide's profiling chapter does,
# POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true"}' with no directory, in
# a fresh temporary directory, and checks that the report lands there
# (profile.pop and debug.cbor in "."), as Poplar's default
# autoReport.directory says.
#
# usage: check-report-in-cwd.sh EXE [ARG...]
set -u

if [ $# -lt 1 ]; then
	echo "usage: check-report-in-cwd.sh EXE [ARG...]" >&2
	exit 2
fi
exe=$1
shift
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1

POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true"}' "$exe" "$@" >stdout 2>stderr
rc=$?
status=0
if [ "$rc" -ne 0 ]; then
	echo "FAIL: $(basename "$exe") $* exited with status $rc"
	cat stderr
	status=1
fi
for f in profile.pop debug.cbor; do
	if [ ! -s "$f" ]; then
		echo "FAIL: $(basename "$exe") $*: no $f in the current directory ($(ls | tr '\n' ' '))"
		status=1
	fi
done
[ $status -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
