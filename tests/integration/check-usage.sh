#!/bin/sh
# Runs an example with bad arguments in a fresh temporary directory and
# checks that it refuses them the way the house style says: exit status 2,
# a line starting with "usage: " on standard error, nothing on standard
# output.
#
# usage: check-usage.sh EXE [ARG...]
set -u

if [ $# -lt 1 ]; then
	echo "usage: check-usage.sh EXE [ARG...]" >&2
	exit 2
fi
exe=$1
shift
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1

"$exe" "$@" >stdout 2>stderr
rc=$?
status=0
if [ "$rc" -ne 2 ]; then
	echo "FAIL: $exe $* exited with status $rc, expected 2"
	status=1
fi
if ! grep -q '^usage: ' stderr; then
	echo "FAIL: no 'usage: ' line on stderr"
	status=1
fi
if [ -s stdout ]; then
	echo "FAIL: unexpected output on stdout"
	status=1
fi
if [ "$status" -ne 0 ]; then
	echo "stderr was:"
	cat stderr
	exit 1
fi
echo "PASS: $exe $* refused with: $(head -n 1 stderr)"
exit 0
