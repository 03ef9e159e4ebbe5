#!/bin/sh
# `tilescope export`: the graph and execution profiles of a sample report
# as JSON (the guide's top-level keys) and CBOR (a map), the sample trace
# as Chrome trace-event JSON; -o writes a file whole or not at all; every
# error path exits 2 with one line.
#
# usage: check-cli-export.sh TILESCOPE SAMPLE_DIR
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-export.sh TILESCOPE SAMPLE_DIR" >&2; exit 2; }
ts=$1
samples=$2
ts=$(absolute "$ts")
samples=$(absolute "$samples")
enter_tmp
report=$samples/tut4_profiling
trace=$samples/tut5_ml/tut5_ml.pvti

"$ts" export --graph-profile "$report" >graph.json || fail "--graph-profile exited $?"
"$ts" export --execution-profile --json -o exec.json "$report" >stdout.txt ||
	fail "--execution-profile exited $?"
[ -s stdout.txt ] && fail "-o also wrote to stdout"
"$ts" export --chrome-trace "$trace" >chrome.json || fail "--chrome-trace exited $?"
"$ts" export --chrome-trace --no-counters --no-instants --no-args "$trace" >bare.json ||
	fail "--chrome-trace --no-* exited $?"
if python3 - <<'PY'
import json
g = json.load(open("graph.json"))
for k in ("target", "graph", "memory", "programs", "computeSets", "vertexTypes"):
    assert k in g, k
assert g["graph"]["numVertices"] > 0
e = json.load(open("exec.json"))
for k in ("profilerMode", "simulation", "runs"):
    assert k in e, k
c = json.load(open("chrome.json"))
phases = {ev["ph"] for ev in c["traceEvents"]}
assert {"M", "X", "i", "C"} <= phases, phases
spans = [ev for ev in c["traceEvents"] if ev["ph"] == "X"]
assert all("ts" in ev and "dur" in ev and "pid" in ev and "tid" in ev for ev in spans)
b = json.load(open("bare.json"))
phases = {ev["ph"] for ev in b["traceEvents"]}
assert phases == {"M", "X"}, phases
assert not any("args" in ev for ev in b["traceEvents"] if ev["ph"] == "X")
assert len([ev for ev in b["traceEvents"] if ev["ph"] == "X"]) == len(spans)
PY
then pass "graph and execution profiles, chrome trace with and without extras"
else fail "a JSON export is wrong"; fi

# CBOR: a map (major type 5) and as large as the JSON's data, roughly.
"$ts" export --graph-profile --cbor -o graph.cbor "$report" || fail "--cbor exited $?"
first=$(od -An -tu1 -N1 graph.cbor | tr -d ' ')
[ -n "$first" ] && [ $((first >> 5)) -eq 5 ] || fail "CBOR does not start with a map (byte $first)"
[ "$(stat -c %s graph.cbor)" -gt 1000 ] || fail "CBOR graph profile is tiny"
"$ts" export --execution-profile --cbor "$report" | od -An -tu1 -N1 | grep -q '^ *1[6-9][0-9]' ||
	fail "execution profile CBOR (piped) is not a map"

# A window of the trace holds fewer spans.
"$ts" export --chrome-trace --from 0 --to 1 "$trace" >win.json || fail "--from/--to exited $?"
python3 -c "
import json
a = [e for e in json.load(open('chrome.json'))['traceEvents'] if e['ph'] == 'X']
w = [e for e in json.load(open('win.json'))['traceEvents'] if e['ph'] == 'X']
assert len(w) < len(a), (len(w), len(a))
" || fail "the window did not cut the spans"
[ $status -eq 0 ] && pass "CBOR maps, trace windows"

printf 'junk' >junk.pop
check_error 'what to export?' export "$report"
check_error 'one of --graph-profile, --execution-profile and --chrome-trace at a time' \
	export --graph-profile --chrome-trace "$report"
check_error 'no REPORT given' export --graph-profile
check_error 'one REPORT only' export --graph-profile "$report" "$report"
check_error '--json or --cbor, not both' export --graph-profile --json --cbor "$report"
check_error 'a .pvti system trace, not a profile report' export --graph-profile "$trace"
check_error 'no .pvti file in this directory' export --chrome-trace "$report"
check_error 'junk.pop.*not an SQLite database' export --execution-profile junk.pop
check_error '--cbor is for profiles' export --chrome-trace --cbor "$trace"
check_error 'are for --chrome-trace' export --graph-profile --from 1 "$report"
check_error 'nodir/out.json: cannot write' export --graph-profile -o nodir/out.json "$report"
[ -e nodir ] && fail "a failed -o made something"
# A write that fails half way leaves nothing: /dev/full as the output's directory
# is not possible, so check the temporary file is gone after a refused write.
ls ./*.tmp.* >/dev/null 2>&1 && fail "a temporary output file was left behind"
"$ts" export --help | grep -q -- '--execution-profile' || fail "export --help"

[ $status -eq 0 ] && echo "all export checks passed"
exit $status
