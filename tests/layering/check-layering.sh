#!/bin/sh
# The layering of ../shared/DESIGN.md, checked on what the build made:
#   1. `tilescope` and libtilescope-report load no runtime library (ldd);
#   2. with PVTI_OPTIONS set, `tilescope summary` and `tilescope trace`
#      write no trace anywhere (they do not carry the tracer);
#   3. each shared library exports only its own prefix (nm -D);
#   4. the vocabulary of the formats (memory categories, sync kinds) is
#      spelled in db-schema/ alone, outside comments and tests.
# usage: check-layering.sh SOURCE_ROOT TILESCOPE LIBREPORT LIBINSTRUMENT SAMPLE_DIR
src=$1 ts=$2 libreport=$3 libinstrument=$4 samples=$5
. "$src/tests/cli/cli-test-lib.sh"
ts=$(absolute "$ts")
libreport=$(absolute "$libreport")
libinstrument=$(absolute "$libinstrument")
samples=$(absolute "$samples")
enter_tmp

# 1. What the command and the reader load.
for bin in "$ts" "$libreport"; do
	if ldd "$bin" | grep -q 'libtilescope-instrument'; then
		fail "$(basename "$bin") loads the simulator: $(ldd "$bin" | grep tilescope | tr -s ' \t' ' ')"
	else
		pass "$(basename "$bin") loads no runtime library"
	fi
done

# 2. No self-tracing: a trace directory, and the working directory, stay
# empty of .pvti files whatever the command reads.
mkdir traces work
(
	cd work || exit 1
	export PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$tmp/traces\"}"
	"$ts" summary "$samples/tut4_profiling" >summary.txt 2>&1 || echo "summary failed" >>errors
	"$ts" trace "$samples/tut5_ml" >trace.txt 2>&1 || echo "trace failed" >>errors
)
if [ -s work/errors ]; then
	fail "the commands failed under PVTI_OPTIONS: $(cat work/errors)"
fi
found=$(find "$tmp" -name '*.pvti' | head -n 3)
if [ -n "$found" ]; then
	fail "tilescope wrote traces of itself: $found"
elif ! grep -q 'Memory Usage' work/summary.txt; then
	fail "tilescope summary printed no summary under PVTI_OPTIONS"
else
	pass "tilescope summary and trace write no trace under PVTI_OPTIONS"
fi

# 3. Exported symbols: defined (type T, D, B, R ...) dynamic symbols only.
# The runtime still holds the tracer (pvti_), which is the runtime's
# published tracing API until it becomes a library of its own.
exports() { nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^_'; }
bad=$(exports "$libreport" | grep -v '^tsr_' | head -n 5)
[ -z "$bad" ] && pass "libtilescope-report exports tsr_ only" ||
	fail "libtilescope-report exports others: $bad"
[ "$(exports "$libreport" | grep -c '^tsr_')" -gt 50 ] ||
	fail "libtilescope-report: too few tsr_ exports read (nm -D failed?)"
bad=$(exports "$libinstrument" | grep -v '^tsi_' | grep -v '^pvti_' | head -n 5)
[ -z "$bad" ] && pass "libtilescope-instrument exports tsi_ and pvti_ only" ||
	fail "libtilescope-instrument exports others: $bad"

# 4. The vocabulary's one home. String literals of a few categories and
# of the sync kinds, outside comment lines, in the libraries and the
# command.
cd "$src" || exit 1
words='"controlCode"|"vertexInstanceState"|"internalExchangeCode"|"Internal"|"External"|"Global"'
# Comments are taken off each line first: a same-line /* ... */, a line
# inside a block comment (" * ..."), and // to the end.
hits=$(grep -rEn --include='*.c' --include='*.h' "$words" instrument reportlib cli-summary db-schema |
	sed -E 's#/\*([^*]|\*+[^*/])*\*+/##g; s#//.*$##' |
	grep -Ev '^[^:]*:[0-9]+:[[:space:]]*(\*|/\*)' | grep -E "$words" | cut -d: -f1 | sort -u)
if [ "$hits" = "db-schema/vocabulary.c" ]; then
	pass "memory categories and sync kinds are spelled in db-schema/vocabulary.c only"
else
	fail "the vocabulary is spelled in: $(echo $hits)"
fi

[ $status -eq 0 ] && echo "layering: all checks passed"
exit $status
