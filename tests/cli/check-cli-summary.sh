#!/bin/sh
# `tilescope summary` on the report tutorial 4 writes:
#   - every section label of the guide's "Profile summary output" example;
#   - the same text as tut4_profiling prints through reportlib itself;
#   - --json parses, and its figures are the text's;
#   - the show options, --run, colours, -o FILE;
#   - the error paths: exit 2, one "tilescope: " line naming the problem.
#
# usage: check-cli-summary.sh TILESCOPE TUT4_EXE
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-summary.sh TILESCOPE TUT4_EXE" >&2; exit 2; }
ts=$1
tut4=$2
ts=$(absolute "$ts")
tut4=$(absolute "$tut4")
enter_tmp

POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"./rep"}' \
	"$tut4" >tut4.txt 2>tut4.err || { cat tut4.err; fail "tut4_profiling failed"; exit 1; }

# The guide's labels, in its order.
"$ts" summary --show-var-storage --show-execution-steps rep >all.txt 2>err.txt ||
	fail "summary exited $?: $(cat err.txt)"
prev=0
for label in 'Target:' 'Number of IPUs:' 'Tiles per IPU:' 'Total Tiles:' 'Memory Per-Tile:' \
	'Total Memory:' 'Clock Speed (approx):' 'Number of Replicas:' 'IPUs per Replica:' \
	'Tiles per Replica:' 'Memory per Replica:' 'Graph:' 'Number of vertices:' \
	'Number of edges:' 'Number of variables:' 'Number of compute sets:' \
	'Memory Usage:' 'Including Gaps:' 'Excluding Gaps:' 'By Memory Region:' \
	'Non-interleaved:' 'Interleaved:' 'Overflowed:' 'By Data Type:' 'Not Overlapped' \
	'Overlapped' 'Total After Overlapping:' 'Vertex Data (' 'By Category:' \
	'Internal vertex state:' 'Edge pointers:' 'Copy pointers:' 'Padding:' 'Descriptors:' \
	'By Type:' 'By Tile (Excluding Gaps):' 'Range (KiB) Histogram (Excluding Gaps)' \
	'Maximum (Including Gaps):' 'Maximum (Excluding Gaps):' 'tile(s) out of memory' \
	'Variable Storage Liveness: All tiles' 'Always-live bytes:' 'Always-live variables:' \
	'Maximum live bytes (including always-live):' 'Live Bytes (excluding always-live):' \
	'Execution:' 'Total cycles:' 'Total compute cycles (including idle threads):' \
	'Total compute cycles (excluding idle threads):' 'Total IPU exchange cycles:' \
	'Total global exchange cycles:' 'Total host exchange cycles:' \
	'Total shared structure copy cycles:' 'Total sync cycles:' 'Total tile balance:' \
	'Total thread balance:' 'Cycles by vertex type:' 'Steps' 'Active Tiles:' \
	'Tile Balance:' 'Active Tile Balance:'; do
	# The first line holding the label at or after the previous label's.
	line=$(awk -v from="$prev" -v label="$label" \
		'NR >= from && index($0, label) { print NR; exit }' all.txt)
	if [ -z "$line" ]; then
		fail "no '$label' in the summary after line $prev"
	else
		prev=$line
	fi
done
[ $status -eq 0 ] && pass "every label of the guide's layout, in its order"

# tut4_profiling prints its report's summary through reportlib directly
# (with showExecutionSteps) after three lines of its own.
"$ts" summary --show-execution-steps rep >steps.txt 2>err.txt || fail "summary failed"
sed -n '4,$p' tut4.txt >tut4-summary.txt
if cmp -s tut4-summary.txt steps.txt; then
	pass "the same text as tut4_profiling's own printProfileSummary"
else
	fail "the summary differs from tut4_profiling's:"
	diff tut4-summary.txt steps.txt | head -n 20
fi
# Without options, no steps and no per-step liveness.
"$ts" summary rep >plain.txt || fail "summary failed"
grep -q '^Steps' plain.txt && fail "Steps printed without --show-execution-steps"
grep -q 'Live Bytes (excluding always-live)' plain.txt &&
	fail "per-step liveness printed without --show-var-storage"
"$ts" summary --show-per-ipu-memory rep | grep -q '^Memory on IPU 0' ||
	fail "--show-per-ipu-memory printed no 'Memory on IPU 0' part"

# JSON: parses; exact integers equal to the text's figures.
"$ts" summary --json rep >summary.json || fail "--json failed"
text_cycles=$(sed -n 's/^  Total cycles: *\([0-9,]*\).*/\1/p' plain.txt | tr -d ,)
text_gaps=$(sed -n 's/^    Including Gaps: *\([0-9,]*\) B$/\1/p' plain.txt | head -n 1 | tr -d ,)
if python3 - "$text_cycles" "$text_gaps" <<'PY'
import json, sys
d = json.load(open("summary.json"))
cycles, gaps = int(sys.argv[1]), int(sys.argv[2])
assert d["execution"]["totalCycles"] == cycles, (d["execution"]["totalCycles"], cycles)
assert d["memory"][0]["includingGaps"] == gaps, (d["memory"][0]["includingGaps"], gaps)
assert isinstance(d["graph"]["numVertices"], int) and d["graph"]["numVertices"] > 0
PY
then pass "--json parses and agrees with the text ($text_cycles cycles, $text_gaps B)"
else fail "--json does not agree with the text"; fi

# Options may follow the operand.
"$ts" summary rep --json | python3 -c "import json, sys; json.load(sys.stdin)" ||
	fail "summary REPORT --json did not print JSON"
# --run: the first run exists, a run past the end is an error.
"$ts" summary --run 0 rep >/dev/null || fail "--run 0 failed"

# Colours: none into a pipe or file by default; forced by the option and
# by CLICOLOR_FORCE; NO_COLOR wins over auto.
esc=$(printf '\033')
grep -q "$esc" plain.txt && fail "colour codes in piped output"
"$ts" summary --colours=always rep | grep -q "$esc" || fail "--colours=always: no colour codes"
CLICOLOR_FORCE=1 "$ts" summary rep | grep -q "$esc" || fail "CLICOLOR_FORCE=1: no colour codes"
NO_COLOR=1 "$ts" summary rep | grep -q "$esc" && fail "NO_COLOR: colour codes"

# -o FILE writes the file and nothing to stdout.
"$ts" summary -o out.txt rep >stdout.txt || fail "-o failed"
cmp -s out.txt plain.txt || fail "-o FILE differs from standard output"
[ -s stdout.txt ] && fail "-o FILE also wrote to standard output"

# Error paths: exit 2, the first line names the problem.
printf 'not a report at all' >junk.pop
sqlite3 other.db 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'
head -c 3000 rep/profile.pop >truncated.pop
check_error '^tilescope: no REPORT given' summary
check_error '^tilescope: one REPORT only' summary rep rep
check_error 'nonexistent.*No such file' summary nonexistent.pop
check_error 'junk.pop.*not an SQLite database' summary junk.pop
check_error 'other.db.*not a Tilescope' summary other.db
check_error 'truncated.pop' summary truncated.pop
check_error 'run 7 asked for; the report keeps 1 run' summary --run 7 rep
check_error "^tilescope: --run wants a run number" summary --run -1 rep
check_error "^tilescope: --colours wants auto, always or never" summary --colours=maybe rep
check_error "^tilescope: option '--run' needs a value" summary --run
check_error "^tilescope: unknown option '--frobnicate'" summary --frobnicate rep
check_error 'missing-dir/out.txt: cannot write' summary -o missing-dir/out.txt rep
check_error "is not a tilescope command" frobnicate
check_error '^usage: tilescope COMMAND'
check_error "^tilescope: unknown option '-x'" -x
grep -qx "Try 'tilescope --help'." stderr.txt ||
	fail "tilescope -x does not end with \"Try 'tilescope --help'.\": $(tail -n 1 stderr.txt)"
[ -e missing-dir ] && fail "a failed -o created something"
ls ./*.tmp.* >/dev/null 2>&1 && fail "a temporary output file was left behind"

# Help is on stdout with exit 0 and names every option.
"$ts" summary --help >help.txt || fail "summary --help exited $?"
for opt in --show-var-storage --show-optimizations --show-execution-steps \
	--show-per-ipu-memory --run --colours --json --output; do
	grep -q -- "$opt" help.txt || fail "summary --help does not mention $opt"
done
"$ts" --help | grep -q '^  summary' || fail "tilescope --help does not list summary"
"$ts" --version | grep -q '^tilescope [0-9]' || fail "--version"

[ $status -eq 0 ] && echo "all summary checks passed"
exit $status
