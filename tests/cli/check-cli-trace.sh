#!/bin/sh
# `tilescope trace` on the sample trace of tutorial 5 (and, when the
# examples are built, on two fresh runs of it):
#   - the text has the header, the labels tut5 records, the channel,
#     thread and counter parts, with the figures of the JSON rendered in
#     its units; --top, --sort, --thread, --from/--to, --no-median,
#     --colours and -o work;
#   - --json parses and its totals agree with the text's;
#   - two files of one job merge (the sample twice; two processes of tut5);
#   - its Chrome JSON export reads back with the same statistics;
#   - a failed write and every error path exit 2 with one line.
#
# usage: check-cli-trace.sh TILESCOPE SAMPLE_DIR [TUT5_EXE]
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || [ $# -eq 3 ] ||
	{ echo "usage: check-cli-trace.sh TILESCOPE SAMPLE_DIR [TUT5_EXE]" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
tut5=
[ $# -eq 3 ] && tut5=$(absolute "$3")
enter_tmp
cp "$samples/tut5_ml/tut5_ml.pvti" one.pvti || exit 1

# The text of the whole trace, and the same as JSON.
"$ts" trace --top 0 one.pvti >one.txt 2>err.txt || fail "trace exited $?: $(cat err.txt)"
[ -s err.txt ] && fail "trace wrote on stderr: $(cat err.txt)"
for want in '^Trace: 1 file, 2 threads, 42 spans over 263 ms$' \
	'^  tut5_ml (pid 15115 on vm): one.pvti$' \
	'^Spans by label (by total; 42 spans, 21 labels):$' \
	'^  channel  *name  *count  *total  *self  *mean  *median  *min  *max$' \
	'^  Poplar  *Graph construction  *1  *65.1 ms ' '^  Framework  *Epoch 1  ' \
	'^  Poplar  *Run program 1 (epoch) ' '^  Poplar  *Stream callback train_loss  *20 ' \
	'^By channel:$' '^  Poplar  *40  *297 ms$' '^  Framework  *2  *38.1 us$' \
	'^By thread:$' '^  index  process (pid)  *thread (tid)  *spans  *busy  *first  *last$' \
	'^      0  tut5_ml (15115)  *tut5_ml (15115)  *40  *253 ms  *0 ns  *263 ms$' \
	'^      1  tut5_ml (15115)  *autoReport writer (1512.*  *2  *44.3 ms  *144 ms  *192 ms$' \
	'^Counters:$' '^  Loss / train  *per sample  *20  *0.334435  *2.33827$' \
	'^  Accuracy / test  *fraction  *1 ' '^Heatmaps:$' \
	'^  Step cycles  *cycles  *6  *3  *1,308  *10 – 100$'; do
	grep -q -- "$want" one.txt || fail "no '$want' in the text"
done
grep -q 'more (--top 0 shows all)' one.txt && fail "--top 0 still hides labels"
[ $status -eq 0 ] && pass "text: header, labels, channels, threads, counters, heatmaps"

"$ts" trace --json one.pvti >one.json 2>err.txt || fail "--json exited $?: $(cat err.txt)"
"$ts" trace one.pvti >default.txt || fail "trace (default --top) exited $?"
# The text's figures are the JSON's, rendered with 3 significant digits
# in ns / us / ms / s; every number the text shows is checked.
if python3 - <<'PY'
import json, re

def fmt_ns(ns):
    units = [(1, "ns"), (1e3, "us"), (1e6, "ms"), (1e9, "s")]
    u = 0
    while u + 1 < len(units) and ns >= units[u + 1][0] * 0.9995:
        u += 1
    x = ns / units[u][0]
    d = 0 if u == 0 or x >= 99.95 else 1 if x >= 9.995 else 2
    return "%.*f %s" % (d, x, units[u][1])

def count(n):
    return "{:,}".format(n)

d = json.load(open("one.json"))
text = open("one.txt").read()
lines = text.splitlines()
t = d["trace"]
assert (t["files"], t["threads"], t["spans"]) == (1, 2, 42), t
assert lines[0] == "Trace: 1 file, 2 threads, %s spans over %s" % (
    count(t["spans"]), fmt_ns(t["end_ns"] - t["start_ns"])), lines[0]
assert isinstance(t["origin_wall_ns"], int) and t["origin_wall_ns"] > 1600000000 * 10**9
assert d["window"] is None and d["processes"][0]["pid"] == 15115
# Labels: every row of the text, in the JSON's order, with its figures.
start = lines.index("Spans by label (by total; %s spans, %d labels):"
                    % (count(d["spans"]), len(d["labels"]))) + 2
assert d["spans"] == 42 == sum(l["count"] for l in d["labels"])
for l, line in zip(d["labels"], lines[start:]):
    want = [count(l["count"]), fmt_ns(l["total_ns"]), fmt_ns(l["self_ns"]), fmt_ns(l["mean_ns"]),
            fmt_ns(l["median_ns"]), fmt_ns(l["min_ns"]), fmt_ns(l["max_ns"])]
    assert line.startswith("  %-10s %s " % (l["channel"], l["name"])), (line, l)
    got = re.split(r"  +", line[13 + len(l["name"]):].strip())
    assert got == want, (line, want)
    for k in ("count", "total_ns", "self_ns", "min_ns", "max_ns", "median_ns"):
        assert isinstance(l[k], int), (k, l)
    assert l["min_ns"] <= l["median_ns"] <= l["max_ns"] and l["median_exact"] is True
    assert l["self_ns"] <= l["total_ns"]
    assert abs(l["mean_ns"] * l["count"] - l["total_ns"]) <= 1, l
assert lines[start + len(d["labels"])] == "", "more label rows than the JSON has"
names = {(l["channel"], l["name"]) for l in d["labels"]}
for want in [("Framework", "Epoch 1"), ("Poplar", "Graph construction"),
             ("Poplar", "Run program 1 (epoch)"), ("Poplar", "Stream callback train_loss")]:
    assert want in names, want
totals = [l["total_ns"] for l in d["labels"]]
assert totals == sorted(totals, reverse=True)
# Channels and threads: the same sums in both.
for c in d["channels"]:
    assert "  %-12s %10s %12s" % (c["name"], count(c["spans"]), fmt_ns(c["self_ns"])) in lines, c
assert sum(c["spans"] for c in d["channels"]) == d["spans"]
assert sum(c["self_ns"] for c in d["channels"]) == sum(l["self_ns"] for l in d["labels"])
# The model's thread and the autoReport writer's.
assert len(d["threads"]) == 2, d["threads"]
assert sum(th["spans"] for th in d["threads"]) == d["spans"]
assert sum(th["busy_ns"] for th in d["threads"]) == sum(c["self_ns"] for c in d["channels"])
assert d["threads"][0]["first_ns"] == t["start_ns"]
for i, th in enumerate(d["threads"]):
    assert t["start_ns"] <= th["first_ns"] and th["last_ns"] <= t["end_ns"], th
    row = [r for r in lines if r.startswith("      %d  " % i)][0]
    want = [count(th["spans"]), fmt_ns(th["busy_ns"]), fmt_ns(th["first_ns"] - t["start_ns"]),
            fmt_ns(th["last_ns"] - t["start_ns"])]
    assert re.split(r"  +", row.strip())[-4:] == want, (row, want)
# Series.
s = {(x["graph"], x["name"]): x for x in d["series"]}
assert s[("Loss", "train")]["samples"] == 20 and s[("Loss", "train")]["unit"] == "per sample"
assert s[("Accuracy", "test")]["samples"] == 1
# The default text shows 20 labels and says how many more there are.
default = open("default.txt").read()
assert "  ... %d more (--top 0 shows all)" % (len(d["labels"]) - 20) in default
PY
then pass "--json parses and agrees with the text, figure by figure"
else fail "--json check failed"; fi

# --top 1: one label row, then how many more.
"$ts" trace --top 1 one.pvti >top.txt || fail "--top 1 exited $?"
rows=$(sed -n '/^Spans by label/,/^$/p' top.txt | grep -c '^  \(Poplar\|Framework\) ')
[ "$rows" -eq 1 ] || fail "--top 1 printed $rows label rows"
grep -q '^  \.\.\. 20 more (--top 0 shows all)$' top.txt || fail "--top 1: no '... 20 more'"
"$ts" trace --top 2 --json one.pvti | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["labels"]) == 2 and d["spans"] == 42' || fail "--top 2 --json"
[ $status -eq 0 ] && pass "--top"

# --sort: each key orders the JSON's labels, and the text's first row follows.
for key in total self count mean median max; do
	"$ts" trace --json --sort "$key" one.pvti >sort.json || fail "--sort $key exited $?"
	python3 - "$key" <<'PY' || fail "--sort $key: not sorted"
import json, sys
key = {"total": "total_ns", "self": "self_ns", "count": "count", "mean": "mean_ns",
       "median": "median_ns", "max": "max_ns"}[sys.argv[1]]
v = [int(l[key]) for l in json.load(open("sort.json"))["labels"]]
assert v == sorted(v, reverse=True) and len(v) == 21, v
PY
done
"$ts" trace --sort count --top 1 one.pvti >sort.txt
grep -q '^Spans by label (by count; ' sort.txt || fail "--sort count: the heading does not say so"
grep -q '^  Poplar  *Stream callback train_loss  *20 ' sort.txt ||
	fail "--sort count: the most frequent label is not first"
[ $status -eq 0 ] && pass "--sort total, self, count, mean, median, max"

# One thread, by index and by name; a window.
"$ts" trace --thread 0 one.pvti >thread.txt || fail "--thread 0 exited $?"
grep -q '^  thread: 0 (tut5_ml)$' thread.txt || fail "--thread 0: the thread is not shown"
"$ts" trace --thread tut5_ml one.pvti | grep -q '^  thread: 0 (tut5_ml)$' || fail "--thread NAME"
"$ts" trace --from 0 --to 1 --thread 0 one.pvti >win.txt || fail "--from/--to/--thread exited $?"
grep -q '^  window: spans starting between 0 ns and 1.00 ms after the first event$' win.txt ||
	fail "the window is not shown"
"$ts" trace --json --from 120.5 one.pvti >win.json || fail "--from 120.5 exited $?"
"$ts" trace --json --from 0 --to 120.5 one.pvti >win2.json || fail "--to 120.5 exited $?"
python3 - <<'PY' || fail "the window's statistics"
import json
one, late, early = (json.load(open(f)) for f in ("one.json", "win.json", "win2.json"))
start = one["trace"]["start_ns"]
assert late["window"] == {"from_ns": start + 120500000, "to_ns": None}, late["window"]
assert early["window"] == {"from_ns": start, "to_ns": start + 120500000}, early["window"]
# Spans start in exactly one of [0, 120.5 ms) and [120.5 ms, end).
assert 0 < late["spans"] < one["spans"] and late["spans"] + early["spans"] == one["spans"]
assert ("Poplar", "Graph construction") not in {(l["channel"], l["name"]) for l in late["labels"]}
assert late["trace"] == one["trace"]
PY
[ $status -eq 0 ] && pass "--thread, --from/--to"

# Heatmaps: the JSON's against the file's rows, whole and in a window
# (tutorial 5 samples its runs' step cycles: counts per bucket).
TS=$ts python3 - <<'PY' || fail "the heatmaps disagree with the file"
import json, os, sqlite3, subprocess
one = json.load(open("one.json"))
db = sqlite3.connect("file:one.pvti?mode=ro", uri=True)
(h,) = one["heatmaps"]
assert (h["name"], h["unit"], h["edges"]) == ("Step cycles", "cycles", [10, 100, 1000, 10000, 100000]), h
assert (h["samples"], h["first_ns"], h["last_ns"]) == db.execute(
    "SELECT count(DISTINCT t_ns), min(t_ns), max(t_ns) FROM heatmap_sample").fetchone(), h
def counts(since):
    got = [0] * 6
    for b, c in db.execute("SELECT bucket, sum(count) FROM heatmap_sample WHERE t_ns >= ? "
                           "GROUP BY bucket", (since,)):
        got[b] = c
    return got
assert h["counts"] == counts(0) and h["skipped"] == 0, h
# From just after the first sample: the others' counts.
since = "%.6f" % ((h["first_ns"] - one["trace"]["start_ns"]) / 1e6 + 0.001)
late = json.loads(subprocess.run([os.environ["TS"], "trace", "--json", "--from", since, "one.pvti"],
                                 check=True, capture_output=True, text=True).stdout)
assert 0 < sum(late["heatmaps"][0]["counts"]) < sum(h["counts"]), late["heatmaps"]
assert late["heatmaps"][0]["counts"] == counts(late["window"]["from_ns"]), late["heatmaps"]
PY
[ $status -eq 0 ] && pass "heatmaps: JSON against the file, whole and windowed"

# --call-tree: the JSON tree's nodes of each label add up to the label's
# count, total and self over the same view (whole trace, a window, a
# thread); the text lists one row per node, depth first, indented.
"$ts" trace --call-tree --json one.pvti >tree.json || fail "--call-tree --json exited $?"
"$ts" trace --call-tree --json --from 120.5 --to 700 one.pvti >tree-win.json ||
	fail "--call-tree --from/--to exited $?"
"$ts" trace --call-tree --json --thread 0 --from 100 one.pvti >tree-thread.json ||
	fail "--call-tree --thread exited $?"
"$ts" trace --call-tree --top 0 one.pvti >tree.txt || fail "--call-tree exited $?"
python3 - <<'PY' || fail "--call-tree: the tree disagrees with the labels"
import json
for f in ("tree.json", "tree-win.json", "tree-thread.json"):
    d = json.load(open(f))
    t = d["call_tree"]
    sums, n, rows = {}, 0, []
    def walk(node, depth):
        global n
        n += 1
        rows.append((depth, node["name"]))
        k = (node["channel"], node["name"])
        c, i, e = sums.get(k, (0, 0, 0))
        sums[k] = (c + node["count"], i + node["inclusive_ns"], e + node["exclusive_ns"])
        kids = node["children"]
        assert sum(c["inclusive_ns"] for c in kids) <= node["inclusive_ns"], node["name"]
        assert [c["inclusive_ns"] for c in kids] == sorted((c["inclusive_ns"] for c in kids),
                                                          reverse=True), node["name"]
        for c in kids:
            walk(c, depth + 1)
    for r in t["roots"]:
        walk(r, 0)
    want = {(l["channel"], l["name"]): (l["count"], l["total_ns"], l["self_ns"])
            for l in d["labels"]}
    assert sums == want, (f, sorted(set(sums.items()) ^ set(want.items())))
    assert t["spans"] == d["spans"] == sum(c for c, i, e in sums.values()), f
    assert t["inclusive_ns"] == sum(r["inclusive_ns"] for r in t["roots"]), f
    if f == "tree.json":
        assert n >= 20 and len(t["roots"]) >= 5, (n, len(t["roots"]))
        text = open("tree.txt").read().splitlines()
        at = [i for i, l in enumerate(text) if l.startswith("Call tree (by inclusive time; 42 spans, ")]
        assert at, "no call tree header"
        body = text[at[0] + 2:at[0] + 2 + n]
        for (depth, name), line in zip(rows, body):
            assert line.endswith("  " * depth + name) and line[-len(name) - 2 * depth - 1] == " ", (line, depth, name)
        assert text[at[0] + 2 + n] == "", text[at[0] + 2 + n]
PY
[ $status -eq 0 ] && pass "--call-tree: text and JSON against the labels"

# --no-median: no medians, the same counts and totals.
"$ts" trace --no-median one.pvti >nomed.txt || fail "--no-median exited $?"
grep -q '^  Poplar  *Graph construction  *1  *65.1 ms  *65.1 ms  *65.1 ms  *-  *65.1 ms  *65.1 ms$' \
	nomed.txt || fail "--no-median: the median column is not '-'"
"$ts" trace --no-median --json one.pvti | python3 -c '
import json, sys
d, one = json.load(sys.stdin), json.load(open("one.json"))
assert all(l["median_ns"] is None and l["median_exact"] is False for l in d["labels"])
strip = lambda ls: [{k: v for k, v in l.items() if not k.startswith("median")} for l in ls]
assert strip(d["labels"]) == strip(one["labels"]) and d["threads"] == one["threads"]' ||
	fail "--no-median --json differs from the full statistics"

# --colours, -o.
"$ts" trace --colours always one.pvti | grep -q "$(printf '\033')\[1mTrace:" ||
	fail "--colours always: no bold"
"$ts" trace --colours never one.pvti | grep -q "$(printf '\033')" && fail "--colours never: escapes"
"$ts" trace --json -o out.json one.pvti >stdout.txt || fail "-o exited $?"
[ -s stdout.txt ] && fail "-o also wrote to stdout"
cmp -s out.json one.json || fail "-o out.json differs from the JSON on stdout"
[ $status -eq 0 ] && pass "--no-median, --colours, -o"

# Two files of one job merge: the sample twice under two names, the second
# with a metadata row more (a byte for byte copy is read once: it is the
# same process, not a second one; check-cli-trace-imports.sh).
mkdir twice && cp one.pvti twice/a.pvti && cp one.pvti twice/b.pvti
python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO trace_metadata(key, value) VALUES (?, ?)", ("test.copy", "true"))
db.commit()' twice/b.pvti || fail "cannot change the copy"
"$ts" trace --json twice >twice.json || fail "trace of a directory exited $?"
"$ts" trace --json twice/b.pvti twice/a.pvti >twice2.json || fail "trace of two files exited $?"
"$ts" trace twice >twice.txt || fail "trace of a directory (text) exited $?"
grep -q '^Trace: 2 files, 4 threads, 84 spans over 263 ms$' twice.txt || fail "merged header"
grep -q '^  \[1\] Loss / train ' twice.txt || fail "merged series are not told apart"
python3 - <<'PY' || fail "the sample twice does not merge"
import json
one, two, two2 = (json.load(open(f)) for f in ("one.json", "twice.json", "twice2.json"))
# The same trace whatever order the files are named in.
assert {p["path"] for p in two["processes"]} == {p["path"] for p in two2["processes"]}
assert [dict(d, processes=None) for d in (two, two2)] == [dict(two, processes=None)] * 2
assert two["trace"]["files"] == 2 and len(two["processes"]) == 2 and len(two["threads"]) == 4
assert two["spans"] == 2 * one["spans"] == sum(t["spans"] for t in two["threads"])
by = {(l["channel"], l["name"]): l for l in one["labels"]}
for l in two["labels"]:
    o = by[(l["channel"], l["name"])]
    assert l["count"] == 2 * o["count"] and l["total_ns"] == 2 * o["total_ns"], l
    assert l["min_ns"] == o["min_ns"] and l["max_ns"] == o["max_ns"], l
assert [t["busy_ns"] for t in two["threads"]] == [t["busy_ns"] for t in one["threads"]] * 2
assert sorted(s["process"] for s in two["series"]) == [0, 0, 0, 1, 1, 1]
PY
check_error "--thread tut5_ml: several threads have that name; give its index" \
	trace --thread tut5_ml twice
"$ts" trace --thread 2 --json twice | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["spans"] == 40 and [t["thread"] for t in d["threads"]] == [2], d["threads"]' ||
	fail "--thread 2 of four (the second file's model thread)"
[ $status -eq 0 ] && pass "two copies of the sample merge"

# Two runs of tutorial 5 (two processes of one job) into one directory.
if [ -n "$tut5" ]; then
	for i in 1 2; do
		PVTI_OPTIONS='{"enable":"true","directory":"./traces"}' \
			"$tut5" --synthetic --epochs 1 >tut5-$i.txt 2>&1 ||
			{ cat tut5-$i.txt; fail "tut5 failed"; exit 1; }
		# Distinct names without waiting for the clock's next second: a
		# name carries the pid, and pvti adds -2, -3 ... to a name taken.
		[ $i -eq 1 ] && cp traces/*.pvti run1.pvti
	done
	[ "$(ls traces/*.pvti | wc -l)" -eq 2 ] || fail "expected two traces, got: $(ls traces)"
	"$ts" trace --json run1.pvti >run1.json || fail "trace of a tut5 run exited $?"
	"$ts" trace --json traces >runs.json || fail "trace of two tut5 runs exited $?"
	"$ts" trace traces >runs.txt || fail "trace of two tut5 runs (text) exited $?"
	grep -q '^Trace: 2 files, 2 threads, ' runs.txt || fail "two runs: header"
	python3 - <<'PY' || fail "two tut5 runs do not merge"
import json
one, both = json.load(open("run1.json")), json.load(open("runs.json"))
assert len(both["processes"]) == 2 and len({p["pid"] for p in both["processes"]}) == 2
assert both["spans"] == sum(t["spans"] for t in both["threads"])
# Stream callbacks vary by a few spans between runs.
assert both["spans"] >= 2 * one["spans"] - 4, (both["spans"], one["spans"])
names = {(l["channel"], l["name"]) for l in both["labels"]}
assert ("Framework", "Epoch 1") in names and ("Poplar", "Graph construction") in names
PY
	[ $status -eq 0 ] && pass "two runs of tut5 merge"
else
	echo "# no TUT5_EXE (examples not built): the two-run check is left out"
fi

# A failed write: exit 2, one line, for the text and the JSON.
if [ -w /dev/full ]; then
	for fmt in "" --json; do
		"$ts" trace $fmt one.pvti >/dev/full 2>full.txt
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <full.txt)" -ne 1 ] ||
			! grep -q '^tilescope: standard output: write failed' full.txt; then
			fail "trace $fmt >/dev/full: exit $rc, '$(cat full.txt)'"
		fi
	done
fi

# Random bytes after a fixed 'R': a file that starts with '[' or '{' after
# white space is read as Chrome JSON (about 1 run in 100 otherwise).
{ printf 'R'; head -c 4999 /dev/urandom; } >random.pvti
: >empty.pvti
mkdir nothing
check_error 'no TRACE given' trace
check_error 'no TRACE given' trace --json
check_error 'missing.pvti: No such file' trace missing.pvti
check_error 'missing.pvti: No such file' trace one.pvti missing.pvti
check_error 'random.pvti: not an SQLite database' trace random.pvti
check_error 'empty.pvti' trace empty.pvti
check_error 'nothing: no trace in this directory (no .pvti file, and no file of Chrome trace-event JSON)' trace nothing
check_error 'profile.pop: a profile report, not a .pvti trace' \
	trace "$samples/tut4_profiling/profile.pop"
check_error "--top wants a count (0: all), not 'x'" trace --top x one.pvti

# Issue 18: a FIFO would block the open (refused at once, for trace and
# export); one file named twice counts once; a trace copied without the
# -wal its killed writer left is named as such, and no -wal or -shm is
# made beside the copy.
mkfifo fifo.pvti
check_error 'fifo.pvti: not a regular file' trace fifo.pvti
check_error 'fifo.pvti: not a regular file' export --chrome-trace -o out.json fifo.pvti
"$ts" trace --json one.pvti ./one.pvti >twice.json 2>err.txt || fail "trace of one file twice: $(cat err.txt)"
"$ts" trace --json one.pvti >once.json 2>err.txt || fail "trace --json: $(cat err.txt)"
cmp -s once.json twice.json || fail "one file named twice is not counted once"
python3 - <<'PY' || fail "making a WAL database failed"
import shutil, sqlite3
db = sqlite3.connect("live.pvti")
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA application_id=1414747732")
db.execute("CREATE TABLE process(pid)")
db.commit()
shutil.copy("live.pvti", "copied.pvti")
PY
check_error 'copied.pvti: its write-ahead log copied.pvti-wal is missing' trace copied.pvti
[ -e copied.pvti-wal ] || [ -e copied.pvti-shm ] && fail "reading a copied trace made a -wal or -shm"

# Issue 18: a file name cannot forge a line or send escape sequences (the
# message shows \n and \e), and --json stays valid UTF-8 whatever bytes a
# path holds (the text prints such a byte as '?').
evil=$(printf 'evil\nname\033[31m.pvti')
printf 'x' >"$evil"
"$ts" trace "$evil" >stdout.txt 2>stderr.txt
[ "$(wc -l <stderr.txt)" -eq 1 ] || fail "a newline in a file name made $(wc -l <stderr.txt) lines"
grep -q 'evil\\nname\\e\[31m.pvti: not an SQLite database' stderr.txt ||
	fail "the file name is not escaped: $(cat -A stderr.txt)"
odd=$(printf 'odd\377.pvti')
cp one.pvti "$odd"
"$ts" trace --json "$odd" >odd.json 2>err.txt || fail "trace --json of a non-UTF-8 path: $(cat err.txt)"
python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' odd.json ||
	fail "trace --json of a non-UTF-8 path is not valid UTF-8 JSON"
"$ts" trace "$odd" >odd.txt 2>err.txt || fail "trace of a non-UTF-8 path: $(cat err.txt)"
grep -q 'odd?.pvti$' odd.txt || fail "the text does not print the odd byte as '?'"
check_error "--top wants a count (0: all), not '-1'" trace --top -1 one.pvti
check_error "option '--top' needs a value" trace --top
check_error "option '--output' needs a value" trace --output
check_error "--sort wants total, self, count, mean, median or max, not 'speed'" \
	trace --sort speed one.pvti
check_error "--sort median needs the medians" trace --sort median --no-median one.pvti
check_error "--thread 7: the traces have 2 thread" trace --thread 7 one.pvti
check_error "--thread nobody: no thread of that name" trace --thread nobody one.pvti
check_error "--from wants milliseconds after the trace's start, not 'soon'" \
	trace --from soon one.pvti
check_error "--to wants milliseconds after the trace's start, not '-3'" trace --to -3 one.pvti
check_error "--from 5 is not before --to 2" trace --from 5 --to 2 one.pvti
check_error "--colours wants auto, always or never, not 'pink'" trace --colours pink one.pvti
check_error "unknown option '--frobnicate'" trace --frobnicate one.pvti
check_error "unknown option '-x'" trace -x one.pvti
check_error "/nonexistent/x: cannot write" trace -o /nonexistent/x one.pvti
[ -e /nonexistent/x ] && fail "a failed -o made a file"
# Each error is one line, then the usage for bad arguments.
"$ts" trace --top x one.pvti 2>usage.txt
[ "$(sed -n 2p usage.txt)" = "usage: tilescope trace [OPTIONS] TRACE..." ] &&
	[ "$(sed -n 3p usage.txt)" = "Try 'tilescope trace --help'." ] &&
	[ "$(wc -l <usage.txt)" -eq 3 ] || fail "a usage error is not error, usage, Try: $(cat usage.txt)"
"$ts" trace random.pvti 2>one-line.txt
[ "$(wc -l <one-line.txt)" -eq 1 ] || fail "a file error is not one line: $(cat one-line.txt)"

# Chrome trace-event JSON: the export of the sample, named without .json
# (found by content), gives the same labels and figures; a cut one is
# one line naming the file and exit 2.
"$ts" export --chrome-trace -o exported.trace one.pvti || fail "export --chrome-trace exited $?"
"$ts" trace --json --top 0 exported.trace >chrome.json 2>err.txt ||
	fail "trace of a Chrome JSON file exited $?: $(cat err.txt)"
"$ts" trace --json --top 0 one.pvti >pvti.json
python3 - pvti.json chrome.json <<'PY' || fail "a Chrome JSON round trip changed the statistics"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda l: (l["channel"], l["name"])
la = {key(l): l for l in a["labels"]}
lb = {key(l): l for l in b["labels"]}
assert la.keys() == lb.keys(), (la.keys() ^ lb.keys())
for k, l in la.items():
    for f in ("count", "total_ns", "self_ns", "min_ns", "max_ns", "median_ns"):
        assert l[f] == lb[k][f], (k, f, l[f], lb[k][f])
assert a["spans"] == b["spans"]
PY
# `tilescope sql` reads it as a .pvti too.
[ "$("$ts" sql --csv exported.trace "SELECT sum(count) FROM label_stats" | tail -n 1 | tr -d "\r")" = \
	"$(python3 -c 'import json,sys; print(json.load(open("pvti.json"))["spans"])')" ] ||
	fail "tilescope sql on a Chrome JSON file does not count the spans"
head -c 300 exported.trace >cut.json
if "$ts" trace cut.json >/dev/null 2>cut-err.txt; then
	fail "a cut Chrome JSON file was accepted"
else
	[ $? -eq 2 ] && [ "$(wc -l <cut-err.txt)" -eq 1 ] && grep -q 'cut.json: .*byte' cut-err.txt ||
		fail "a cut Chrome JSON file: $(cat cut-err.txt)"
fi
# Directories: one of Chrome JSON traces (no .pvti) takes the files
# whose content is a trace, whatever their names, and skips other JSON
# (an object without "traceEvents", an array without events);
# several are merged like several .pvti files; a directory with .pvti
# files takes only those (a JSON beside them is most often their export);
# one with neither is one line naming it.
mkdir jdir mixed junk
cp exported.trace jdir/run-a.trace
printf '{"settings": {"ph": "X"}}' >jdir/a-settings.json
printf '{"colour": "blue"}\n' >jdir/b-config.json
printf '[1, 2, 3]\n' >jdir/c-list.json
echo 'notes' >jdir/notes.txt
mkdir jdir/sub && cp exported.trace jdir/sub/deeper.json
"$ts" trace --json --top 0 jdir >jdir1.json 2>err.txt || fail "trace of a JSON directory: $(cat err.txt)"
# A second file of the trace, not byte for byte the first (that is read once).
{ cat exported.trace && echo; } >jdir/run-b.json
"$ts" trace --json --top 0 jdir >jdir2.json 2>err.txt || fail "trace of two JSON files: $(cat err.txt)"
cp one.pvti exported.trace mixed/
"$ts" trace --json --top 0 mixed >mixed.json 2>err.txt || fail "trace of a mixed directory: $(cat err.txt)"
python3 - pvti.json jdir1.json jdir2.json mixed.json <<'PY' || fail "directories of Chrome JSON traces"
import json, os, sys
one, d1, d2, mixed = (json.load(open(p)) for p in sys.argv[1:5])
paths = lambda d: [os.path.basename(p["path"]) for p in d["processes"]]
assert paths(d1) == ["run-a.trace"], paths(d1)
assert d1["spans"] == one["spans"], (d1["spans"], one["spans"])
key = lambda l: (l["channel"], l["name"])
l1 = {key(l): l for l in one["labels"]}
assert {key(l): (l["count"], l["total_ns"]) for l in d1["labels"]} == \
    {k: (l["count"], l["total_ns"]) for k, l in l1.items()}
assert paths(d2) == ["run-a.trace", "run-b.json"], paths(d2)
assert d2["trace"]["files"] == 2 and d2["spans"] == 2 * one["spans"]
for l in d2["labels"]:
    assert l["count"] == 2 * l1[key(l)]["count"], l
assert paths(mixed) == ["one.pvti"], paths(mixed)
assert mixed["spans"] == one["spans"]
PY
[ $status -eq 0 ] && pass "directories of Chrome JSON traces, mixed, several"
printf '{"colour": "blue"}\n' >junk/config.json
check_error 'junk: no trace in this directory (no .pvti file, and no file of Chrome trace-event JSON)' \
	trace junk
check_error 'junk: no trace in this directory' export --chrome-trace -o out.json junk
# A file that reads as a trace but is damaged is not skipped: named.
head -c 300 exported.trace >junk/cut.json
check_error 'junk/cut.json: .*byte' trace junk
grep -q "Chrome trace-event JSON" help.txt 2>/dev/null || "$ts" trace --help | grep -q "Chrome trace-event JSON" ||
	fail "trace --help does not say Chrome JSON opens"

# --help: on stdout, exit 0, every option and the exit status.
if "$ts" trace --help >help.txt 2>help-err.txt && [ ! -s help-err.txt ]; then
	for opt in --top --sort --thread --from --to --no-median --call-tree --json --colours \
		--output --help 'Exit status' busy_ns median_ns inclusive_ns; do
		grep -q -- "$opt" help.txt || fail "trace --help does not mention $opt"
	done
else
	fail "trace --help failed"
fi
"$ts" help trace | cmp -s - help.txt || fail "'tilescope help trace' differs from --help"

[ $status -eq 0 ] && echo "all trace checks passed"
exit $status
