#!/bin/sh
# `tilescope diff` on reports tutorial 7 writes at two sizes:
#   - a report against itself exits 0, in every format;
#   - the bigger problem against the smaller with --max-cycles-increase=1
#     exits 1 and names cycles.total with both values;
#   - JUnit output is well-formed XML with the right counts, JSON parses
#     with exact integers, Markdown has its tables;
#   - a limits file works and the command line overrides it;
#   - every error path exits 2 with one line naming the problem.
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

# Run 1 of tutorial 7 is the multiplication program.
for size in "40 50" "200 100"; do
	dir=r$(echo "$size" | tr ' ' x)
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$dir\"}" \
		"$tut7" $size >"$dir.txt" 2>&1 || { cat "$dir.txt"; fail "tut7 $size failed"; exit 1; }
done
small=r40x50
big=r200x100

# A report against itself: exit 0 in every format, nothing changed.
for format in text json markdown junit; do
	"$ts" diff --format=$format --max-cycles-increase=0 --max-memory-increase=0 --fail-on-oom \
		$small $small >self.$format 2>err.txt
	rc=$?
	[ $rc -eq 0 ] || fail "self diff --format=$format exited $rc: $(cat err.txt)"
done
grep -q 'all 4 limits met' self.text || fail "self diff text does not say all limits met"
grep -q ' worse$\| better$' self.text && fail "self diff text shows changes"
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
assert "cycles.total went from" in fails[0].find("failure").get("message")
for c in cases:
    assert c.get("classname") and c.get("name")
PY
then pass "JUnit XML is well-formed: 2 tests, 1 failure naming cycles.total"
else fail "JUnit XML check failed"; cat junit.xml; fi

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

# Markdown: the title, the limits table and the totals table.
"$ts" diff --run 1 --max-cycles-increase=1 --format=markdown $small $big >diff.md 2>/dev/null
grep -q '^## ❌ tilescope diff: 1 of 1 limit exceeded' diff.md || fail "markdown title"
grep -q '^| ❌ | `--max-cycles-increase=1` | cycles.total |' diff.md || fail "markdown limit row"
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

# Error paths: exit 2, one line.
printf 'not a report' >junk.pop
printf '{"max_cycles_increase": 1,' >broken.json
printf '{"max_cycle_increase": 1}' >unknown.json
check_error 'BASE and NEW reports needed' diff $small
check_error 'two reports only' diff $small $small $small
check_error 'missing.pop.*No such file' diff $small missing.pop
check_error 'junk.pop.*not an SQLite database' diff junk.pop $small
check_error "--format wants text, json, markdown or junit, not 'xml'" diff --format=xml $small $small
check_error "--max-cycles-increase wants a percentage" diff --max-cycles-increase=fast $small $small
check_error "'noSuch' is not a memory category" diff --max-category-increase=noSuch:5 $small $small
check_error "metric 'cycles.nothing' is in neither report" diff --max-increase=cycles.nothing:5 \
	$small $small
check_error 'broken.json: not valid JSON' diff --limits=broken.json $small $small
check_error 'unknown.json: unknown key "max_cycle_increase"' diff --limits=unknown.json $small $small
check_error 'nothere.json: No such file' diff --limits=nothere.json $small $small
check_error 'run 9 asked for' diff --run 9 $small $small
check_error "--top wants a count" diff --top=-1 $small $small
check_error 'no/such/dir/out.txt: cannot write' diff -o no/such/dir/out.txt $small $small
"$ts" diff --help | grep -q -- '--max-memory-increase=PCT|BYTES' || fail "diff --help"

[ $status -eq 0 ] && echo "all diff checks passed"
exit $status
