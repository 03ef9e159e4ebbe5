#!/bin/sh
# `tilescope trace` on tutorial 5's traces:
#   - the text has the header, the labels tut5 records, the channel,
#     thread and counter parts; --top and --sort work;
#   - --json parses and its totals agree with the text's;
#   - two traces of one job merge (two processes, their spans added);
#   - every error path exits 2 with one line.
#
# usage: check-cli-trace.sh TILESCOPE TUT5_EXE SAMPLE_DIR
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 3 ] || { echo "usage: check-cli-trace.sh TILESCOPE TUT5_EXE SAMPLE_DIR" >&2; exit 2; }
ts=$1
tut5=$2
samples=$3
ts=$(absolute "$ts")
tut5=$(absolute "$tut5")
samples=$(absolute "$samples")
enter_tmp

# Two runs of tutorial 5, as two processes of one job, into one directory.
for i in 1 2; do
	PVTI_OPTIONS='{"enable":"true","directory":"./traces"}' \
		"$tut5" --synthetic --epochs 1 >tut5-$i.txt 2>&1 || { cat tut5-$i.txt; fail "tut5 failed"; exit 1; }
	[ $i -eq 1 ] && cp traces/*.pvti one.pvti
	sleep 1 # distinct file names (they carry the time to the second)
done
[ "$(ls traces/*.pvti | wc -l)" -eq 2 ] || fail "expected two traces, got: $(ls traces)"

"$ts" trace one.pvti >one.txt 2>err.txt || fail "trace exited $?: $(cat err.txt)"
for want in '^Trace: 1 file, 1 thread, ' '^Spans by label (by total; ' \
	'Poplar  *Graph construction  *1 ' 'Framework  *Epoch 1 ' 'Poplar  *Run program 1 (epoch)' \
	'^By channel:' '^  Framework  ' '^By thread:' '^Counters:' 'Loss / train' \
	'Accuracy / test'; do
	grep -q -- "$want" one.txt || fail "no '$want' in the text"
done
[ $status -eq 0 ] && pass "text: header, labels, channels, threads, counters"

"$ts" trace --top 1 one.pvti >top.txt || fail "--top 1 exited $?"
rows=$(sed -n '/^Spans by label/,/^$/p' top.txt | grep -c '^  \(Poplar\|Framework\) ')
[ "$rows" -eq 1 ] || fail "--top 1 printed $rows label rows"
grep -q '^  \.\.\. [0-9]* more (--top 0 shows all)' top.txt || fail "--top 1: no '... more'"
"$ts" trace --sort count --top 1 one.pvti | grep -q 'Stream callback train_loss' ||
	fail "--sort count: the most frequent label is not first"

# JSON agrees with the text.
"$ts" trace --json one.pvti >one.json || fail "--json exited $?"
if python3 - <<'PY'
import json, re
d = json.load(open("one.json"))
text = open("one.txt").read()
spans = int(re.search(r"\((?:by total); ([\d,]+) spans", text).group(1).replace(",", ""))
assert d["spans"] == spans == sum(l["count"] for l in d["labels"]), (d["spans"], spans)
assert sum(c["spans"] for c in d["channels"]) == spans
assert sum(t["spans"] for t in d["threads"]) == spans
names = {(l["channel"], l["name"]) for l in d["labels"]}
assert ("Framework", "Epoch 1") in names and ("Poplar", "Graph construction") in names
for l in d["labels"]:
    assert isinstance(l["total_ns"], int) and l["min_ns"] <= l["median_ns"] <= l["max_ns"]
    assert l["self_ns"] <= l["total_ns"]
totals = [l["total_ns"] for l in d["labels"]]
assert totals == sorted(totals, reverse=True)
assert any(s["graph"] == "Loss" and s["samples"] > 0 for s in d["series"])
PY
then pass "--json parses and agrees with the text"
else fail "--json check failed"; fi

# Two processes merged: spans add up.
"$ts" trace --json traces >both.json || fail "trace of the directory exited $?"
"$ts" trace --json traces/*.pvti >both2.json || fail "trace of two files exited $?"
if python3 - <<'PY'
import json
one = json.load(open("one.json"))
both = json.load(open("both.json"))
assert len(both["processes"]) == 2, both["processes"]
assert len({p["pid"] for p in both["processes"]}) == 2
assert both["spans"] == sum(t["spans"] for t in both["threads"])
assert both["spans"] >= 2 * one["spans"] - 4, (both["spans"], one["spans"])
assert json.load(open("both2.json"))["spans"] == both["spans"]
PY
then pass "two traces of one job merge"
else fail "merging check failed"; fi

# A window and one thread.
"$ts" trace --from 0 --to 1 --thread 0 one.pvti >win.txt || fail "--from/--to/--thread exited $?"
grep -q '^  window: 0 ns to 1.00 ms after the first event' win.txt || fail "the window is not shown"
"$ts" trace --no-median one.pvti | grep -q 'Graph construction' || fail "--no-median"

# The sample trace in the repository reads too.
"$ts" trace "$samples/tut5_ml/tut5_ml.pvti" >/dev/null || fail "the sample trace"

head -c 5000 /dev/urandom >random.pvti
check_error 'no TRACE given' trace
check_error 'missing.pvti: No such file' trace missing.pvti
check_error 'random.pvti: not an SQLite database' trace random.pvti
check_error 'a profile report, not a .pvti trace' trace "$samples/tut4_profiling/profile.pop"
check_error "--top wants a count" trace --top x one.pvti
check_error "--sort wants total, self, count, mean, median or max, not 'speed'" \
	trace --sort speed one.pvti
check_error "--thread 7: the traces have 1 thread" trace --thread 7 one.pvti
check_error "--thread nobody: no thread of that name" trace --thread nobody one.pvti
check_error "--from wants milliseconds" trace --from soon one.pvti
check_error "is not before --to" trace --from 5 --to 2 one.pvti
check_error "unknown option '--frobnicate'" trace --frobnicate one.pvti
"$ts" trace --help | grep -q -- '--no-median' || fail "trace --help"

[ $status -eq 0 ] && echo "all trace checks passed"
exit $status
