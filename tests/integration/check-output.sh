#!/bin/sh
# Runs one tutorial example in a fresh temporary directory (so it works
# from any working directory and leaves nothing behind) and checks its
# standard output against an expected-output file.
#
# usage: check-output.sh MODE EXE EXPECTED [ARG...]
#   MODE exact  the output must equal EXPECTED byte for byte
#   MODE lines  each line of EXPECTED is an extended regular expression;
#               they must match whole lines of the output, in order
# The example must exit with status 0.
set -u

if [ $# -lt 3 ]; then
	echo "usage: check-output.sh exact|lines EXE EXPECTED [ARG...]" >&2
	exit 2
fi
mode=$1
exe=$2
expected=$3
shift 3
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
case $expected in /*) ;; *) expected=$(pwd)/$expected ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1

"$exe" "$@" >stdout 2>stderr
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: $exe $* exited with status $rc; stderr:"
	cat stderr
	exit 1
fi

case $mode in
exact)
	if ! diff -u "$expected" stdout; then
		echo "FAIL: the output of $exe $* differs from $expected"
		exit 1
	fi
	;;
lines)
	if ! awk -v want="$expected" '
		BEGIN {
			n = 0
			while ((getline line < want) > 0)
				pat[n++] = line
			i = 0
		}
		i < n && $0 ~ ("^" pat[i] "$") { i++ }
		END {
			if (i < n) {
				print "FAIL: no output line matches (in order): " pat[i]
				exit 1
			}
		}' stdout; then
		echo "output was:"
		cat stdout
		exit 1
	fi
	;;
*)
	echo "check-output.sh: unknown mode '$mode'" >&2
	exit 2
	;;
esac
echo "PASS: $exe $*"
exit 0
