#!/bin/sh
# `tilescope trace --compare A B` on tutorial 5's sample trace (A) and,
# when the examples are built, a two-epoch run of tutorial 5 (B; else a
# copy of A):
#   - every label of `tilescope trace --json` of A and of B is listed once
#     with both sides' figures, the deltas B - A and the percentage of A's
#     total, one-sided labels null on the other side, the largest
#     |delta_total_ns| first;
#   - --from / --to apply to each side on its own axis;
#   - the text lists the same labels in the same order;
#   - A against itself: every delta 0;
#   - one trace, three traces, --thread, --sort and a missing file exit 2
#     with one line.
#
# usage: check-cli-trace-compare.sh TILESCOPE SAMPLE_DIR [TUT5_EXE]
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || [ $# -eq 3 ] ||
	{ echo "usage: check-cli-trace-compare.sh TILESCOPE SAMPLE_DIR [TUT5_EXE]" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
tut5=
[ $# -eq 3 ] && tut5=$(absolute "$3")
enter_tmp
cp "$samples/tut5_ml/tut5_ml.pvti" a.pvti || exit 1
if [ -n "$tut5" ]; then
	mkdir run
	PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$tmp/run\"}" \
		"$tut5" --synthetic --epochs 2 >/dev/null || fail "tut5_ml exited $?"
	mv run/*.pvti b.pvti || exit 1
else
	cp a.pvti b.pvti
fi

# The comparison against each side's own statistics.
check_json() { # WHAT ARGS...: --compare ARGS against trace --json ARGS of each side
	what=$1
	shift
	"$ts" trace --compare --json "$@" a.pvti b.pvti >cmp.json 2>err.txt ||
		{ fail "$what: --compare exited $?: $(cat err.txt)"; return; }
	"$ts" trace --json "$@" a.pvti >a.json && "$ts" trace --json "$@" b.pvti >b.json ||
		{ fail "$what: trace --json failed"; return; }
	if python3 - "$what" "$tut5" <<'PY'; then pass "$what: every label and delta"; else fail "$what"; fi
import json, math, sys
what, made = sys.argv[1], sys.argv[2]
cmp = json.load(open("cmp.json"))
a, b = json.load(open("a.json")), json.load(open("b.json"))
la = {(x["channel"], x["name"]): x for x in a["labels"]}
lb = {(x["channel"], x["name"]): x for x in b["labels"]}
got = {(x["channel"], x["name"]): x for x in cmp["labels"]}
assert len(got) == len(cmp["labels"]), "a label listed twice"
assert set(got) == set(la) | set(lb), (set(got) ^ (set(la) | set(lb)))
assert cmp["a"]["spans"] == a["spans"] and cmp["b"]["spans"] == b["spans"]
keys = ["count", "total_ns", "self_ns", "mean_ns", "median_ns", "min_ns", "max_ns"]
for k, r in got.items():
    x, y = la.get(k), lb.get(k)
    assert r["in_a"] == (x is not None) and r["in_b"] == (y is not None), k
    for side, s in (("a", x), ("b", y)):
        if s is None:
            assert r[side] is None, (k, side)
        else:
            assert all(r[side][f] == s[f] for f in keys), (k, side, r[side], s)
    ta, tb = (x or {}).get("total_ns", 0), (y or {}).get("total_ns", 0)
    assert r["delta_total_ns"] == tb - ta, k
    assert r["delta_count"] == (y or {}).get("count", 0) - (x or {}).get("count", 0), k
    assert r["delta_self_ns"] == (y or {}).get("self_ns", 0) - (x or {}).get("self_ns", 0), k
    if ta == 0:
        assert r["delta_total_pct"] is None, k
    else:
        assert math.isclose(r["delta_total_pct"], 100.0 * (tb - ta) / ta), k
mags = [abs(r["delta_total_ns"]) for r in cmp["labels"]]
assert mags == sorted(mags, reverse=True), "not by |delta total|"
if made and what == "whole":
    assert any(not r["in_a"] for r in cmp["labels"]), "B has no label of its own"
    assert any(not r["in_b"] for r in cmp["labels"]), "A has no label of its own"
PY
}
check_json whole
check_json window --from 100 --to 600

# The text: the same labels in the same order.
"$ts" trace --compare --top 0 a.pvti b.pvti >cmp.txt 2>err.txt || fail "text exited $?: $(cat err.txt)"
"$ts" trace --compare --json a.pvti b.pvti >cmp.json
python3 - <<'PY' && pass "the text lists the JSON's labels in order" || fail "text against JSON"
import json
labels = json.load(open("cmp.json"))["labels"]
rows = [l for l in open("cmp.txt").read().splitlines() if l.startswith("  ") and
        not l.startswith("  channel")]
assert len(rows) == len(labels), (len(rows), len(labels))
for row, lab in zip(rows, labels):
    assert row[2:].startswith(lab["channel"]) and lab["name"][:39] in row, (row, lab)
PY
grep -q '^A: a.pvti (' cmp.txt || fail "the text does not name A"

# A against itself: nothing moved.
"$ts" trace --compare --json a.pvti a.pvti | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["labels"] and all(r["delta_total_ns"] == 0 and r["in_a"] and r["in_b"] for r in d["labels"])
' && pass "A against itself: every delta 0" || fail "A against itself"

check_error "two traces" trace --compare a.pvti
check_error "two traces" trace --compare a.pvti b.pvti a.pvti
check_error "thread does not apply" trace --compare --thread 0 a.pvti b.pvti
check_error "sort does not apply" trace --compare --sort self a.pvti b.pvti
check_error "missing.pvti" trace --compare a.pvti missing.pvti
exit $status
