#!/bin/sh
# `tilescope diff` on reports tutorial 7 writes at two sizes:
#   - a report against itself exits 0, in every format;
#   - the bigger problem against the smaller with --max-cycles-increase=1
#     exits 1 and names cycles.total with both values;
#   - JUnit output is well-formed XML with the right counts, JSON parses
#     with exact integers, Markdown has its tables;
#   - a limits file works and the command line overrides it;
#   - a report without runs cannot pass a cycles limit;
#   - every error path exits 2 with one line naming the problem (and the
#     usage and "Try" lines for bad arguments).
#
# usage: check-cli-diff.sh TILESCOPE TUT7_EXE
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-diff.sh TILESCOPE TUT7_EXE" >&2; exit 2; }
ts=$1
tut7=$2
ts=$(absolute "$ts")
tut7=$(absolute "$tut7")
enter_tmp

# The two kinds of error path, both exit 2 with nothing on stdout: a bad
# file or a limit that the reports cannot check prints one line; bad
# arguments print the problem, the usage line and "Try 'tilescope diff
# --help'.".
# fatal PATTERN ARG...: check_error, and nothing but that line.
fatal() {
	check_error "$@"
	[ "$(wc -l <stderr.txt)" -eq 1 ] || fail "tilescope $*: more than one line on stderr"
}
# usage PATTERN ARG...: check_error, then the usage and the hint.
usage() {
	check_error "$@"
	if [ "$(sed -n 2p stderr.txt)" != "usage: tilescope diff [OPTIONS] BASE NEW" ] ||
		[ "$(sed -n 3p stderr.txt)" != "Try 'tilescope diff --help'." ] ||
		[ "$(wc -l <stderr.txt)" -ne 3 ]; then
		fail "tilescope $*: not the usage and the hint after the error"
	fi
}

# Run 1 of tutorial 7 is the multiplication program.
for size in "40 50" "200 100"; do
	dir=r$(echo "$size" | tr ' ' x)
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$dir\"}" \
		"$tut7" $size >"$dir.txt" 2>&1 || { cat "$dir.txt"; fail "tut7 $size failed"; exit 1; }
done
small=r40x50
big=r200x100

# A report against itself: exit 0 in every format, nothing changed.
for format in text json markdown junit html openmetrics; do
	"$ts" diff --format=$format --max-cycles-increase=0 --max-memory-increase=0 --fail-on-oom \
		$small $small >self.$format 2>err.txt
	rc=$?
	[ $rc -eq 0 ] || fail "self diff --format=$format exited $rc: $(cat err.txt)"
done
grep -q 'all 4 limits met' self.text || fail "self diff text does not say all limits met"
grep -q ' worse$\| better$' self.text && fail "self diff text shows changes"
# Options may follow the operands, as with git.
"$ts" diff $small $small --format=json >after.json 2>err.txt ||
	fail "options after the operands: exit $?: $(cat err.txt)"
python3 -c "import json; json.load(open('after.json'))" || fail "options after the operands: not JSON"
[ $status -eq 0 ] && pass "a report against itself exits 0 in every format"

# The bigger problem: more cycles.
"$ts" diff --run 1 --max-cycles-increase=1 $small $big >reg.txt 2>reg.err
rc=$?
if [ $rc -ne 1 ]; then
	fail "diff with --max-cycles-increase=1 exited $rc, expected 1"
else
	base=$(sed -n 's/^Program cycles: *//p' $small.txt | tr -d ,)
	new=$(sed -n 's/^Program cycles: *//p' $big.txt | tr -d ,)
	if grep -q "FAIL  cycles.total: $base -> $new" reg.txt &&
		grep -q "^tilescope: regression: cycles.total went from $base to $new" reg.err; then
		pass "regression found: cycles.total $base -> $new (exit 1)"
	else
		fail "the regression output does not name cycles.total $base -> $new:"
		cat reg.txt reg.err | head -n 12
	fi
fi
# The other way round is an improvement: exit 0, shown as better.
"$ts" diff --run 1 --max-cycles-increase=1 $big $small >imp.txt 2>&1 ||
	fail "the improvement exited $?"
grep -q '^  cycles.total .* better$' imp.txt || fail "fewer cycles not shown as better"

# A regression exits 1 in every format.
for format in text json markdown junit html openmetrics; do
	"$ts" diff --run 1 --max-cycles-increase=1 --format=$format $small $big >/dev/null 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "regression with --format=$format exited $rc, expected 1"
done
[ $status -eq 0 ] && pass "a regression exits 1 in every format"

# JUnit: well-formed, counts right, the failure names the metric.
"$ts" diff --run 1 --max-cycles-increase=1 --fail-on-oom --format=junit -o junit.xml \
	$small $big 2>/dev/null
[ $? -eq 1 ] || fail "junit diff did not exit 1"
if python3 - <<'PY'
import xml.etree.ElementTree as ET
root = ET.parse("junit.xml").getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 1
s = suites[0]
cases = s.findall("testcase")
assert s.get("tests") == str(len(cases)) == "2", s.attrib
fails = [c for c in cases if c.find("failure") is not None]
assert s.get("failures") == str(len(fails)) == "1", s.attrib
assert fails[0].get("name").startswith("cycles.total"), fails[0].get("name")
f = fails[0].find("failure")
assert f.get("type") == "regression", f.attrib
assert "cycles.total went from 349 to 371" in f.get("message"), f.get("message")
assert "349" in f.text and "371" in f.text, f.text
for c in cases:
    assert c.get("classname") and c.get("name")
PY
then pass "JUnit XML is well-formed: 2 tests, 1 failure naming cycles.total"
else fail "JUnit XML check failed"; cat junit.xml; fi

# JUnit escapes what it cannot hold: a report path with XML's special
# characters stays well-formed and reads back the same.
odd='a&b<c>"d'"'"'e'
mkdir "$odd" && cp $small/profile.pop "$odd/" || fail "copying the report"
"$ts" diff --format=junit --max-cycles-increase=1 "$odd" $small >odd.xml 2>odd.err ||
	fail "junit diff of $odd exited $?: $(cat odd.err)"
if python3 - "$odd" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse("odd.xml").getroot()
props = {p.get("name"): p.get("value") for p in root.iter("property")}
assert props["base"] == sys.argv[1], props
assert root.find("testsuite").get("failures") == "0"
PY
then pass "JUnit escapes & < > \" ' in a path"
else fail "JUnit with a path of special characters"; cat odd.xml; fi
# No limits: one passing test case, never an empty report.
"$ts" diff --format=junit $small $big >nolim.xml || fail "junit without limits exited $?"
python3 -c '
import xml.etree.ElementTree as ET
s = ET.parse("nolim.xml").getroot().find("testsuite")
c = s.findall("testcase")
assert s.get("tests") == "1" and s.get("failures") == "0" and len(c) == 1
assert c[0].get("name") == "compare" and c[0].find("failure") is None
' && pass "JUnit without limits: one passing case" || fail "JUnit without limits"

# JSON: parses; integers exact and consistent; every delta has its keys.
"$ts" diff --run 1 --format=json $small $big >diff.json || fail "json diff exited $?"
if python3 - <<'PY'
import json
d = json.load(open("diff.json"))
assert d["regression"] is False and d["limits"] == []
assert d["base_run"] == 1 and d["new_run"] == 1
keys = {"metric", "group", "unit", "in_base", "in_new", "base", "new", "change", "percent",
        "verdict"}
for x in d["deltas"]:
    assert set(x) == keys, x
    assert isinstance(x["base"], int) and isinstance(x["new"], int)
    if x["in_base"] and x["in_new"]:
        assert x["change"] == x["new"] - x["base"], x
m = {x["metric"]: x for x in d["deltas"]}
assert m["cycles.total"]["verdict"] == "worse"
assert m["graph.vertices"]["verdict"] == "changed"
assert any(x["group"] == "category" for x in d["deltas"])
PY
then pass "JSON parses, exact integers, change = new - base"
else fail "JSON check failed"; fi
"$ts" diff --run 1 --max-cycles-increase=1 --max-tile-memory=1MiB --format=json $small $big \
	>lim.json 2>/dev/null
[ $? -eq 1 ] || fail "json regression did not exit 1"
if python3 - <<'PY'
import json
d = json.load(open("lim.json"))
assert d["regression"] is True
lim = {x["limit"]: x for x in d["limits"]}
c = lim["max-cycles-increase"]
assert c["metric"] == "cycles.total" and c["threshold"] == "1", c
assert (c["base"], c["new"], c["change"], c["passed"]) == (349, 371, 22, False), c
assert type(c["base"]) is int and abs(c["percent"] - 2200 / 349) < 1e-9, c
t = lim["max-tile-memory"]
assert t["metric"] == "memory.max_tile" and t["passed"] is True, t
PY
then pass "JSON limits: both values, the change, passed"
else fail "JSON limits check failed"; cat lim.json | head -n 30; fi

# Markdown: the title, the limits table and the totals table.
"$ts" diff --run 1 --max-cycles-increase=1 --format=markdown $small $big >diff.md 2>/dev/null
grep -q '^## ❌ tilescope diff: 1 of 1 limit exceeded' diff.md || fail "markdown title"
grep -q '^| ❌ | --max-cycles-increase=1 | cycles.total | 349 | 371 | +22 |$' diff.md ||
	fail "markdown limit row"
grep -q '^| Metric | Base | New | Change | |$' diff.md || fail "markdown table header"
grep -q '^| memory.max\\_tile | ' diff.md || fail "markdown does not escape _ in names"
grep -q '^### Totals' diff.md && grep -q '^<details><summary>Memory by category' diff.md ||
	fail "markdown sections"
[ $status -eq 0 ] && pass "Markdown has the title, the limits and the tables"

# A limits file, and the command line over it.
printf '{"max_cycles_increase": 50, "fail_on_oom": true, "categories": {"vertexCode": "1MB"}}\n' \
	>limits.json
"$ts" diff --run 1 --limits=limits.json $small $big >lim.txt 2>&1
[ $? -eq 0 ] || fail "the limits file's generous limits failed: $(cat lim.txt)"
grep -q 'all 3 limits met' lim.txt || fail "the limits file did not give 3 limits"
"$ts" diff --run 1 --limits=limits.json --max-cycles-increase=1 $small $big >lim2.txt 2>&1
[ $? -eq 1 ] || fail "--max-cycles-increase did not override the file"
grep -q 'limit --max-cycles-increase=1$' lim2.txt || fail "the override is not the one shown"
"$ts" diff --run 1 --max-category-increase=vertexCode:1% $small $big >cat.txt 2>&1
[ $? -eq 1 ] || fail "a category limit did not fail"
grep -q 'FAIL  memory.category.vertexCode' cat.txt || fail "the category limit is not named"
[ $status -eq 0 ] && pass "limits file, override and category limits"

# Presentation: --top, --all, runs per side, colours, -o.
"$ts" diff --run 1 $small $big >top.txt || fail "diff exited $?"
grep -q '^  \.\.\. and 1 more (--top 0 shows all)$' top.txt || fail "--top 10 does not cut"
"$ts" diff --run 1 --top 0 $small $big >top0.txt || fail "diff --top 0 exited $?"
grep -q 'more (--top 0' top0.txt && fail "--top 0 still cuts"
[ $(grep -c '^  memory\.variable\.' top0.txt) -eq 11 ] || fail "--top 0 does not list 11 variables"
"$ts" diff --run 1 --top 2 $small $big >top2.txt || fail "diff --top 2 exited $?"
[ $(grep -c '^  memory\.category\.' top2.txt) -eq 2 ] || fail "--top 2 lists not 2 categories"
"$ts" diff --run 1 --all $small $big >all.txt || fail "diff --all exited $?"
grep -q '^  memory\.category\.[a-zA-Z]* .* same$' all.txt || fail "--all hides unchanged items"
grep -q '^  memory\.category\..* same$' top.txt && fail "unchanged items shown without --all"
"$ts" diff --base-run 1 --new-run 2 $small $big >runs.txt || fail "--base-run/--new-run exited $?"
grep -q '^  base: r40x50 (run 1; the report keeps 3)$' runs.txt &&
	grep -q '^  new:  r200x100 (run 2; the report keeps 3)$' runs.txt ||
	fail "--base-run 1 --new-run 2 not in the header"
esc=$(printf '\033')
"$ts" diff --run 1 --colours=always $small $big >col.txt || fail "--colours=always exited $?"
grep -q "${esc}\[31m" col.txt || fail "--colours=always: no red for worse"
"$ts" diff --run 1 --colours=always $big $small >col2.txt || fail "--colours=always exited $?"
grep -q "${esc}\[32m" col2.txt || fail "--colours=always: no green for better"
"$ts" diff --run 1 --colours=never $small $big >nocol.txt || fail "--colours=never exited $?"
grep -q "$esc" nocol.txt && fail "--colours=never writes escapes"
"$ts" diff --run 1 -o out.txt $small $big >out.stdout || fail "-o exited $?"
[ -s out.stdout ] && fail "-o FILE also wrote to stdout"
cmp -s out.txt top.txt || fail "-o FILE differs from stdout"
[ $status -eq 0 ] && pass "--top, --all, --base-run/--new-run, --colours, -o"

# A report without runs: no cycles to compare, so a cycles limit is an
# error, not a pass; without limits it is a memory-only diff.
mkdir norun && cp $small/profile.pop norun/ || fail "copying the report"
python3 -c '
import sqlite3
db = sqlite3.connect("norun/profile.pop")
for t in ("step", "program_trace", "run"):
    db.execute("DELETE FROM " + t)
db.commit()
' || fail "removing the runs"
"$ts" diff $small norun >norun.txt 2>norun.err || fail "diff against a report without runs: $?"
grep -q '^  new:  norun (no runs: memory only)$' norun.txt || fail "no runs not said"
fatal "'cycles.total' is only in the base report" diff --max-cycles-increase=1 $small norun
fatal "'cycles.total' is only in the new report" diff --max-cycles-increase=1 norun $small
fatal "'cycles.total' is in neither report" diff --max-cycles-increase=1 norun norun
fatal "run 0 asked for; the report keeps no runs" diff --run 0 $small norun

# Error paths.
printf 'not a report' >junk.pop
printf '{"max_cycles_increase": 1,' >broken.json
printf '{"max_cycle_increase": 1}' >unknown.json
printf '{"fail_on_oom": "yes"}' >wrongtype.json
usage 'BASE and NEW reports needed' diff
usage 'BASE and NEW reports needed' diff $small
usage 'two reports only' diff $small $small $small
fatal 'missing.pop.*No such file' diff $small missing.pop
fatal 'junk.pop.*not an SQLite database' diff junk.pop $small
fatal 'debug.cbor.*not an SQLite database' diff $small $small/debug.cbor
usage "--format wants text, json, markdown, junit, html or openmetrics, not 'xml'" diff --format=xml $small $small
usage "--max-cycles-increase wants a percentage" diff --max-cycles-increase=fast $small $small
usage "--max-memory-increase wants a percentage" diff --max-memory-increase=-1 $small $small
usage "--max-tile-memory wants a byte size" diff --max-tile-memory=5% $small $small
usage "--max-increase on cycles.total wants a percentage" \
	diff --max-increase=cycles.total:1MB $small $small
usage "unknown option '--max-cpu'" diff --max-cpu=5 $small $small
usage "option '--max-cycles-increase' needs a value" diff --max-cycles-increase
usage "'noSuch' is not a memory category (they are: .*vertexCode" \
	diff --max-category-increase=noSuch:5 $small $small
fatal "metric 'cycles.nothing' is in neither report" diff --max-increase=cycles.nothing:5 \
	$small $small
fatal 'broken.json: not valid JSON' diff --limits=broken.json $small $small
fatal 'unknown.json: unknown key "max_cycle_increase"' diff --limits=unknown.json $small $small
fatal 'nothere.json: No such file' diff --limits=nothere.json $small $small
fatal 'wrongtype.json: "fail_on_oom" must be true or false' diff --limits=wrongtype.json \
	$small $small
fatal 'run 9 asked for' diff --run 9 $small $small
usage "--top wants a count" diff --top=-1 $small $small
fatal 'no/such/dir/out.txt: cannot write' diff -o no/such/dir/out.txt $small $small
usage "--run wants a run number" diff --run=-1 $small $small
usage "--colours wants auto, always or never" diff --colours=sometimes $small $small
[ -e no ] && fail "-o into a missing directory left something behind"
# A failed write (a full device) in every format: exit 2, one line.
if [ -w /dev/full ]; then
	for format in text json markdown junit html openmetrics; do
		"$ts" diff --format=$format $small $big >/dev/full 2>full.err
		rc=$?
		if [ $rc -ne 2 ] || [ "$(wc -l <full.err)" -ne 1 ] ||
			! grep -q '^tilescope: standard output: write failed' full.err; then
			fail "--format=$format to a full device: exit $rc, $(cat full.err)"
		fi
	done
	[ $status -eq 0 ] && pass "a failed write exits 2 in every format"
fi
"$ts" diff --help >help.txt 2>help.err
[ $? -eq 0 ] && [ ! -s help.err ] || fail "diff --help did not exit 0 quietly"
for opt in --max-memory-increase=PCT --max-cycles-increase --max-tile-memory --fail-on-oom \
	--max-category-increase --max-increase --limits --run --base-run --new-run --format \
	--top --all --colours --output 'Exit status'; do
	grep -q -- "$opt" help.txt || fail "diff --help does not document $opt"
done

[ $status -eq 0 ] && echo "all diff checks passed"
exit $status
