#!/bin/sh
# `tilescope export`: the graph and execution profiles of a sample report
# as JSON (the guide's keys) and CBOR (a map; never to a terminal), the
# sample trace as Chrome trace-event JSON with and without its extras and
# in a window; -o writes a file whole or not at all; a failed write and
# every error path exit 2 with one line.
#
# usage: check-cli-export.sh TILESCOPE SAMPLE_DIR
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-export.sh TILESCOPE SAMPLE_DIR" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
enter_tmp
report=$samples/tut4_profiling
trace=$samples/tut5_ml/tut5_ml.pvti

# The profiles as JSON, on stdout and with -o; the report as a directory
# and as its profile.pop.
"$ts" export --graph-profile "$report" >graph.json 2>err.txt || fail "--graph-profile exited $?"
[ -s err.txt ] && fail "--graph-profile wrote on stderr: $(cat err.txt)"
"$ts" export --graph-profile -o graph-o.json "$report/profile.pop" >stdout.txt ||
	fail "--graph-profile -o exited $?"
cmp -s graph.json graph-o.json || fail "-o and stdout differ (graph profile)"
"$ts" export --execution-profile --json -o exec.json "$report" >stdout.txt ||
	fail "--execution-profile exited $?"
[ -s stdout.txt ] && fail "-o also wrote to stdout"
"$ts" export --execution-profile "$report" | cmp -s - exec.json ||
	fail "-o and stdout differ (execution profile)"
for f in graph.json graph-o.json exec.json; do
	[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || fail "$f does not end with a newline"
done
if python3 - <<'PY'
import json
g = json.load(open("graph.json"))
# The guide's graph profile: its top-level areas and target fields.
for k in ("target", "optimizationInfo", "graph", "vertexTypes", "computeSets", "exchanges",
          "programs", "controlPrograms", "functionPrograms", "memory"):
    assert k in g, k
t = g["target"]
for k in ("type", "bytesPerIPU", "bytesPerTile", "clockFrequency", "numIPUs", "tilesPerIPU",
          "numTiles", "totalMemory", "relativeSyncDelayByTile", "minSyncDelay"):
    assert k in t, k
assert t["type"] in ("CPU", "IPU", "IPU_MODEL")
assert t["numTiles"] == t["numIPUs"] * t["tilesPerIPU"]
assert t["totalMemory"] == t["bytesPerTile"] * t["numTiles"]
assert len(t["relativeSyncDelayByTile"]) == t["tilesPerIPU"]
assert g["graph"]["numVertices"] > 0 and isinstance(g["programs"], list)
assert all(isinstance(v, (int, float)) for v in g["optimizationInfo"].values())
# The execution profile: the tag, the program trace and the simulation.
e = json.load(open("exec.json"))
assert e["profilerMode"] in ("NONE", "CPU", "IPU_MODEL", "COMPUTE_SETS",
                             "SINGLE_TILE_COMPUTE_SETS", "VERTICES", "EXTERNAL_EXCHANGES",
                             "HOST_EXCHANGES"), e["profilerMode"]
assert all(0 <= p < len(g["programs"]) for p in e["programTrace"])
sim = e["simulation"]
assert isinstance(sim["cycles"], int) and sim["cycles"] > 0
for k in ("activeCompute", "compute", "copySharedStructure", "doExchange", "globalExchange",
          "streamCopy", "sync"):
    assert isinstance(sim["tileCycles"][k], int), k
types = {s["type"] for s in sim["steps"]}
assert types and types <= {"OnTileExecute", "StreamCopy", "CopySharedStructure", "Sync",
                           "DoExchange", "GlobalExchange"}, types
assert all(s["syncType"] in ("External", "Internal") for s in sim["steps"] if s["type"] == "Sync")
assert "runs" in e
PY
then pass "graph and execution profiles as JSON have the guide's keys"
else fail "a JSON profile is wrong"; fi

# CBOR: a map (major type 5), as a file and through a pipe, about as large
# as the JSON's data.
"$ts" export --graph-profile --cbor -o graph.cbor "$report" >stdout.txt || fail "--cbor exited $?"
[ -s stdout.txt ] && fail "--cbor -o also wrote to stdout"
first=$(od -An -tu1 -N1 graph.cbor | tr -d ' ')
[ -n "$first" ] && [ $((first >> 5)) -eq 5 ] || fail "CBOR does not start with a map (byte $first)"
[ "$(stat -c %s graph.cbor)" -gt 1000 ] || fail "CBOR graph profile is tiny"
"$ts" export --execution-profile --cbor "$report" >exec.cbor || fail "--cbor to a pipe exited $?"
first=$(od -An -tu1 -N1 exec.cbor | tr -d ' ')
[ -n "$first" ] && [ $((first >> 5)) -eq 5 ] ||
	fail "execution profile CBOR is not a map (byte $first)"
[ "$(stat -c %s exec.cbor)" -gt 100 ] || fail "CBOR execution profile is tiny"
# Never CBOR to a terminal: exit 2, one line, nothing written to it.
python3 - "$ts" "$report" <<'PY' || fail "CBOR to a terminal"
import os, select, subprocess, sys
master, slave = os.openpty()
p = subprocess.run([sys.argv[1], "export", "--graph-profile", "--cbor", sys.argv[2]],
                   stdout=slave, stderr=subprocess.PIPE, timeout=60)
os.close(slave)
written = b""
while select.select([master], [], [], 0.2)[0]:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    written += chunk
err = p.stderr.decode()
assert p.returncode == 2, p.returncode
assert err.startswith("tilescope: ") and "terminal" in err and err.count("\n") == 1, err
assert written == b"", written[:40]
PY
[ $status -eq 0 ] && pass "CBOR maps; never CBOR to a terminal"

# Chrome trace-event JSON: every kind of event, then without the extras,
# then a window.
"$ts" export --chrome-trace "$trace" >chrome.json || fail "--chrome-trace exited $?"
"$ts" export --chrome-trace -o chrome-o.json "$samples/tut5_ml" ||
	fail "--chrome-trace DIR exited $?"
cmp -s chrome.json chrome-o.json || fail "-o DIR and stdout FILE differ (chrome trace)"
"$ts" export --chrome-trace --no-counters --no-instants --no-args "$trace" >bare.json ||
	fail "--chrome-trace --no-* exited $?"
"$ts" export --chrome-trace --no-counters "$trace" >nocounters.json ||
	fail "--no-counters exited $?"
# Span metadata ("args"): the sample's compile and run spans carry their
# link to the report beside it; a copy gets one more on another span.
cp "$trace" meta.pvti && python3 - <<'PY' || fail "cannot add span metadata to a copy of the sample"
import sqlite3
db = sqlite3.connect("meta.pvti")
db.execute("INSERT INTO event_metadata VALUES (1, 0, ?)", ('{"batch": 3}',))
db.commit()
PY
"$ts" export --chrome-trace meta.pvti >meta.json || fail "--chrome-trace (metadata) exited $?"
"$ts" export --chrome-trace --no-args meta.pvti >noargs.json || fail "--no-args exited $?"
"$ts" export --chrome-trace --from 0 --to 1 "$trace" >win.json || fail "--from/--to exited $?"
"$ts" trace --json "$trace" >stats.json || fail "trace --json exited $?"
if python3 - <<'PY'
import json
c = json.load(open("chrome.json"))
ev = c["traceEvents"]
phases = {e["ph"] for e in ev}
assert phases == {"M", "X", "i", "C"}, phases
spans = [e for e in ev if e["ph"] == "X"]
assert all({"name", "ts", "dur", "pid", "tid"} <= set(e) for e in spans)
assert len(spans) == json.load(open("stats.json"))["spans"] == 42
names = {e["name"] for e in spans}
assert {"Graph construction", "Epoch 1", "Run program 1 (epoch)"} <= names, names
meta = [e for e in ev if e["ph"] == "M"]
assert {"process_name", "thread_name"} <= {e["name"] for e in meta}
assert any(e["ph"] == "C" and e["name"] == "Loss" for e in ev)
b = json.load(open("bare.json"))["traceEvents"]
assert {e["ph"] for e in b} == {"M", "X"}
assert not any("args" in e for e in b if e["ph"] == "X")
assert len([e for e in b if e["ph"] == "X"]) == len(spans)
n = json.load(open("nocounters.json"))["traceEvents"]
assert {e["ph"] for e in n} == {"M", "X", "i"}
w = [e for e in json.load(open("win.json"))["traceEvents"] if e["ph"] == "X"]
assert 0 < len(w) < len(spans), (len(w), len(spans))
links = [(e["name"], e["args"]["metadata"]["autoReport"]) for e in spans if "args" in e]
assert [n for n, l in links] == ["Compiling graph for ipu2", "Run program 0 (init)",
                                 "Run program 1 (epoch)", "Run program 2 (test)"], links
assert all(l["directory"] == "." and l.get("run", -1) == i - 1
           for i, (n, l) in enumerate(links)), links
meta = json.load(open("meta.json"))["traceEvents"]
with_args = [e for e in meta if e["ph"] == "X" and "args" in e and
             "autoReport" not in e["args"]["metadata"]]
assert [(e["name"], e["args"]) for e in with_args] == \
    [("Graph construction", {"metadata": {"batch": 3}})], with_args
assert not any("args" in e for e in json.load(open("noargs.json"))["traceEvents"] if e["ph"] == "X")
PY
then pass "chrome trace: M/X/i/C events, without extras, a window"
else fail "a chrome trace export is wrong"; fi

# A failed write: exit 2 and one line, whatever is exported.
if [ -w /dev/full ]; then
	for what in "--graph-profile $report" "--execution-profile --cbor $report" \
		"--chrome-trace $trace"; do
		# shellcheck disable=SC2086 # the words of $what are the arguments
		"$ts" export $what >/dev/full 2>full.txt
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <full.txt)" -ne 1 ] ||
			! grep -q '^tilescope: standard output: write failed' full.txt; then
			fail "export $what >/dev/full: exit $rc, '$(cat full.txt)'"
		fi
	done
fi

printf 'junk' >junk.pop
# Random bytes after a fixed 'R': a file that starts with '[' or '{' after
# white space is read as Chrome JSON (about 1 run in 100 otherwise).
{ printf 'R'; head -c 4999 /dev/urandom; } >random.pvti
check_error 'what to export? --graph-profile, --execution-profile or --chrome-trace' \
	export "$report"
check_error 'one of --graph-profile, --execution-profile and --chrome-trace at a time' \
	export --graph-profile --chrome-trace "$report"
check_error 'one of --graph-profile, --execution-profile and --chrome-trace at a time' \
	export --graph-profile --execution-profile "$report"
check_error 'no REPORT given' export --graph-profile
check_error 'no TRACE given' export --chrome-trace
check_error 'one REPORT only' export --graph-profile "$report" "$report"
check_error '--json or --cbor, not both' export --graph-profile --json --cbor "$report"
check_error 'missing.pop.*No such file' export --graph-profile missing.pop
check_error 'missing.pvti.*No such file' export --chrome-trace missing.pvti
check_error 'tut5_ml.pvti.*a .pvti system trace, not a profile report' \
	export --graph-profile "$trace"
check_error 'tut5_ml.pvti.*a .pvti system trace, not a profile report' \
	export --execution-profile "$trace"
check_error 'profile.pop: a profile report, not a .pvti trace' \
	export --chrome-trace "$report/profile.pop"
check_error 'tut4_profiling: no trace in this directory (no .pvti file, and no file of Chrome trace-event JSON)' export --chrome-trace "$report"
check_error 'junk.pop.*not an SQLite database' export --execution-profile junk.pop
check_error 'random.pvti: not an SQLite database' export --chrome-trace random.pvti
check_error '--cbor is for profiles' export --chrome-trace --cbor "$trace"
check_error 'are for --chrome-trace' export --graph-profile --from 1 "$report"
check_error 'are for --chrome-trace' export --execution-profile --no-args "$report"
check_error "--from wants milliseconds after the trace's start, not 'x'" \
	export --chrome-trace --from x "$trace"
check_error "--from 3 is not before --to 1" export --chrome-trace --from 3 --to 1 "$trace"
check_error "unknown option '--frobnicate'" export --frobnicate "$report"
check_error "option '--output' needs a value" export --graph-profile --output
check_error "option '-o' needs a value" export --graph-profile -o
check_error 'nodir/out.json: cannot write' export --graph-profile -o nodir/out.json "$report"
check_error '/nonexistent/x: cannot write' export --graph-profile -o /nonexistent/x "$report"
check_error '/nonexistent/x: cannot write' export --chrome-trace -o /nonexistent/x "$trace"
[ -e nodir ] || [ -e /nonexistent/x ] && fail "a failed -o made something"
# Failed exports leave nothing behind: no output, no temporary file.
check_error 'junk.pop.*not an SQLite database' export --graph-profile -o out.json junk.pop
[ -e out.json ] && fail "a failed export left its output file"
ls ./*.tmp.* >/dev/null 2>&1 && fail "a temporary output file was left behind"
# A usage error: the error, the usage, where to look.
"$ts" export "$report" 2>usage.txt
[ "$(sed -n 2p usage.txt)" = \
	"usage: tilescope export --graph-profile|--execution-profile [--json|--cbor]" ] &&
	[ "$(tail -n 1 usage.txt)" = "Try 'tilescope export --help'." ] ||
	fail "a usage error is not error, usage, Try: $(cat usage.txt)"

# --help: on stdout, exit 0, every option and the exit status.
if "$ts" export --help >help.txt 2>help-err.txt && [ ! -s help-err.txt ]; then
	for opt in --graph-profile --execution-profile --chrome-trace --json --cbor --from --to \
		--no-counters --no-instants --no-args --output --help 'Exit status'; do
		grep -q -- "$opt" help.txt || fail "export --help does not mention $opt"
	done
else
	fail "export --help failed"
fi

[ $status -eq 0 ] && echo "all export checks passed"
exit $status
