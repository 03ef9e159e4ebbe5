#!/bin/sh
# The guide-shaped exports are byte for byte what Tilescope wrote before
# the document writer moved into the format library (commit 0d537f3):
# expected/export-sha256.txt holds the SHA-256 of each export of the sample
# reports as that version wrote them. Regenerating the sample reports, or a
# deliberate change of the documents, means writing these sums again (and
# saying why in the commit).
# usage: check-export-golden.sh TILESCOPE SAMPLE_DIR SUMS
. "$(dirname "$0")/cli-test-lib.sh"
ts=$(absolute "$1")
samples=$(absolute "$2")
sums=$(absolute "$3")
enter_tmp
while read -r want name; do
	case $name in
	*.trace) continue ;;
	esac
	# NAME is REPORT-WHAT.FORMAT, e.g. tut5_ml-graph.cbor
	base=${name%.*}
	format=${name##*.}
	what=${base##*-}
	report=${base%-*}
	if ! "$ts" export --"$what"-profile --"$format" -o out "$samples/$report" 2>err.txt; then
		fail "export of $name failed: $(cat err.txt)"
		continue
	fi
	have=$(sha256sum <out | cut -d' ' -f1)
	if [ "$have" = "$want" ]; then
		pass "$name is byte for byte the earlier export"
	else
		fail "$name differs from the earlier export"
	fi
done <"$sums"
want=$(awk '$2 == "tut5_ml.trace" {print $1}' "$sums")
"$ts" export --chrome-trace -o trace.json "$samples/tut5_ml" 2>err.txt || fail "chrome trace export failed"
[ "$(sha256sum <trace.json | cut -d' ' -f1)" = "$want" ] && pass "the Chrome trace is byte for byte the earlier one" ||
	fail "the Chrome trace differs from the earlier one"
exit $status
