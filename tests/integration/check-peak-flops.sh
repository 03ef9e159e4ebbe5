#!/bin/sh
# Runs the ipu_peak_flops model in a fresh temporary directory and checks
# its table independently of the model's own check: a "Peak: P TFLOPS"
# line with P = 348.6 (Bow: 1.85 GHz x 1,472 tiles x 128 flops), then one
# row "N cycles TFLOPS measured error%" for each N = 16, 32, ... 128 whose
# TFLOPS is 2*N*16*16*1472 / (cycles / 1.85e9) / 1e12 (to the printed
# precision), whose measured value is the notebook's, whose error% is
# 100 * (TFLOPS - measured) / measured, and whose |error%| is at most 5.
#
# usage: check-peak-flops.sh EXE [ARG...]
set -u

if [ $# -lt 1 ]; then
	echo "usage: check-peak-flops.sh EXE [ARG...]" >&2
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
if [ "$rc" -ne 0 ]; then
	echo "FAIL: $exe $* exited with status $rc; stderr:"
	cat stderr
	exit 1
fi
if ! awk '
	function abs(x) { return x < 0 ? -x : x }
	function bad(msg) { print "FAIL: " msg; failed = 1; exit 1 }
	BEGIN {
		split("55.5 96.7 127.7 152.8 170.7 186.9 201.2 211.1", measured, " ")
		rows = 0
	}
	/^Peak: / {
		if ($2 != "348.6" || $3 != "TFLOPS")
			bad("peak line: " $0)
		peak = 1
		next
	}
	$1 ~ /^[0-9]+$/ && NF == 5 && $4 != "-" {
		n = $1 + 0; cycles = $2 + 0; tflops = $3 + 0; m = $4 + 0; err = $5 + 0
		i = n / 16
		if (n % 16 != 0 || i < 1 || i > 8)
			bad("unexpected N: " $0)
		if (i != rows + 1)
			bad("N = " n " out of order")
		rows = i
		want = 2 * n * 16 * 16 * 1472 / (cycles / 1.85e9) / 1e12
		if (abs(want - tflops) > 0.051)
			bad("N = " n ": " cycles " cycles make " want " TFLOPS, printed " tflops)
		if (m != measured[i] + 0)
			bad("N = " n ": measured " m ", the notebook says " measured[i])
		if (abs(100 * (tflops - m) / m - err) > 0.2)
			bad("N = " n ": error% " err " does not follow from " tflops " and " m)
		if (abs(err) > 5)
			bad("N = " n ": error " err "% is over 5%")
	}
	END {
		if (failed)
			exit 1
		if (!peak)
			bad("no peak line")
		if (rows != 8)
			bad("expected rows for N = 16 ... 128, found " rows)
	}' stdout; then
	echo "output was:"
	cat stdout
	exit 1
fi
echo "PASS: $exe $*: $(tail -n 1 stdout)"
exit 0
