#!/bin/sh
# Runs the tutorial 5 model (tut5_ml) in a fresh temporary directory and
# checks what it reports.
#
# usage: check-tut5.sh train MIN_ACCURACY EXE [ARG...]
#   The run must exit 0 and print one "Epoch N: loss L (mean per sample),
#   train accuracy A" line per epoch, numbered from 1, with a finite loss
#   that falls from the first epoch to the last and accuracies in [0, 1],
#   then "Test accuracy: A" with A >= MIN_ACCURACY.
# usage: check-tut5.sh error STATUS PATTERN EXE [ARG...]
#   The run must exit with STATUS, print nothing on standard output and a
#   line matching the extended regular expression PATTERN on standard error.
set -u

if [ $# -lt 3 ]; then
	echo "usage: check-tut5.sh train MIN_ACCURACY EXE [ARG...] |" \
	     "error STATUS PATTERN EXE [ARG...]" >&2
	exit 2
fi
mode=$1
shift
case $mode in
train)
	min=$1
	exe=$2
	shift 2
	;;
error)
	if [ $# -lt 3 ]; then
		echo "check-tut5.sh: error mode needs STATUS PATTERN EXE" >&2
		exit 2
	fi
	want_status=$1
	pattern=$2
	exe=$3
	shift 3
	;;
*)
	echo "check-tut5.sh: unknown mode '$mode'" >&2
	exit 2
	;;
esac
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1

"$exe" "$@" >stdout 2>stderr
rc=$?

if [ "$mode" = error ]; then
	status=0
	if [ "$rc" -ne "$want_status" ]; then
		echo "FAIL: $exe $* exited with status $rc, expected $want_status"
		status=1
	fi
	if ! grep -Eq -- "$pattern" stderr; then
		echo "FAIL: no line on stderr matches: $pattern"
		status=1
	fi
	if [ -s stdout ]; then
		echo "FAIL: unexpected output on stdout:"
		cat stdout
		status=1
	fi
	if [ "$status" -ne 0 ]; then
		echo "stderr was:"
		cat stderr
		exit 1
	fi
	echo "PASS: $exe $* failed with status $rc: $(head -n 1 stderr)"
	exit 0
fi

if [ "$rc" -ne 0 ]; then
	echo "FAIL: $exe $* exited with status $rc; stderr:"
	cat stderr
	exit 1
fi
if ! awk -v min="$min" '
	function bad(msg) { print "FAIL: " msg; failed = 1; exit 1 }
	function fraction(s) { return s ~ /^[0-9]+\.[0-9]+$/ && s + 0 >= 0 && s + 0 <= 1 }
	/^Epoch [0-9]+: / {
		# Epoch N: loss L (mean per sample), train accuracy A
		n = substr($2, 1, length($2) - 1) + 0
		if (n != epochs + 1)
			bad("epoch " n " follows epoch " epochs)
		if ($3 != "loss" || $5 != "(mean" || $9 != "accuracy" || NF != 10)
			bad("malformed epoch line: " $0)
		if ($4 !~ /^[0-9]+\.[0-9]+$/)
			bad("loss is not a number: " $0)
		if (!fraction($10))
			bad("train accuracy is not in [0, 1]: " $0)
		epochs = n
		if (n == 1)
			first = $4 + 0
		last = $4 + 0
		next
	}
	/^Test accuracy: / {
		if (!fraction($3))
			bad("test accuracy is not in [0, 1]: " $0)
		test = $3 + 0
		tested++
	}
	END {
		if (failed)
			exit 1
		if (epochs < 1)
			bad("no epoch line")
		if (tested != 1)
			bad("expected one test accuracy line, found " tested + 0)
		if (epochs > 1 && !(last < first))
			bad("the loss did not fall: " first " in epoch 1, " last " in epoch " epochs)
		if (test < min)
			bad("test accuracy " test " is below " min)
	}' stdout; then
	echo "output was:"
	cat stdout
	exit 1
fi
echo "PASS: $exe $*: $(tail -n 1 stdout)"
exit 0
