#!/bin/sh
# `tilescope history`: the sample reports added as commits of two
# branches; show's series against `tilescope diff`'s figures of the same
# reports; check's exit codes and outputs against an earlier commit (its
# deltas are diff's, exactly); merge; every error path exits 2 with one
# line.
#
# usage: check-cli-history.sh TILESCOPE SAMPLE_DIR
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-history.sh TILESCOPE SAMPLE_DIR" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
enter_tmp
small=$samples/tut7_mk1_small
big=$samples/tut7_mk1

# Three commits: c1 and c2 on main, c3 on a topic branch off c2.
"$ts" history add h.db "$small" --commit c1aaaa --branch main --time 100 >out.txt ||
	fail "add c1 exited $?"
grep -q '^added run 1 ' out.txt || fail "add c1 said: $(cat out.txt)"
"$ts" history add h.db "$big" --commit c2bbbb --parent c1aaaa --branch main --time 200 \
	>/dev/null || fail "add c2 exited $?"
"$ts" history add h.db "$small" --commit c3cccc --parent c2bbbb --branch topic --time 300 \
	>/dev/null || fail "add c3 exited $?"
# The same report at the same commit again: not added twice.
"$ts" history add h.db "$big" --commit c2bbbb --branch main --time 999 >out.txt ||
	fail "adding c2 again exited $?"
grep -q 'already in h.db as run 2' out.txt || fail "adding c2 again said: $(cat out.txt)"

# show: main's cycles.total newest first, the values diff prints.
"$ts" diff --format=json "$small" "$big" >diff.json || fail "diff exited $?"
"$ts" history show h.db --metric cycles.total --branch main --format json >show.json ||
	fail "show exited $?"
python3 - <<'PY' || fail "show's series is not diff's figures"
import json
d = {x["metric"]: x for x in json.load(open("diff.json"))["deltas"]}
s = json.load(open("show.json"))
pts = s["metrics"][0]["points"]
assert s["metrics"][0]["metric"] == "cycles.total", s
assert [p["commit"] for p in pts] == ["c2bbbb", "c1aaaa"], pts
assert [p["value"] for p in pts] == [d["cycles.total"]["new"], d["cycles.total"]["base"]], pts
assert pts[0]["parent"] == "c1aaaa" and pts[0]["branch"] == "main" and pts[0]["time"] == 200
PY
pass "show --format json: main's series newest first, diff's values"
"$ts" history show h.db --last 1 >show.txt || fail "show --last 1 exited $?"
grep -q '^cycles.total (cycles)' show.txt && grep -q '^  c3cccc ' show.txt &&
	! grep -q '^  c2bbbb' show.txt || fail "show --last 1 (the totals) printed: $(head -5 show.txt)"

# A label with a terminal's escape sequence is shown without it.
"$ts" history add esc.db "$small" --commit e1 --label "$(printf 'x\033[31my')" >/dev/null ||
	fail "add with an escape in the label exited $?"
"$ts" history show esc.db >esc.txt || fail "show esc.db exited $?"
if grep -q "$(printf '\033')" esc.txt; then fail "show wrote the label's escape character"
elif grep -q ' x?\[31my ' esc.txt; then pass "show writes a control character as '?'"
else fail "show esc.db: $(sed -n 3p esc.txt)"; fi

# check: the big report against main's last run (itself) passes; against
# c1 (the small report) it exceeds the limit, and its deltas are diff's.
"$ts" history check h.db "$big" --against last --branch main --max-cycles-increase=1% \
	>/dev/null 2>err.txt || fail "check against last exited $?, expected 0: $(cat err.txt)"
"$ts" history check h.db "$big" --against c1a --max-cycles-increase=1% --format=json \
	>check.json 2>err.txt
rc=$?
[ $rc -eq 1 ] || fail "check against c1 exited $rc, expected 1"
grep -q '^tilescope: regression: cycles.total went from' err.txt ||
	fail "check against c1: stderr says '$(cat err.txt)'"
python3 - <<'PY' || fail "check's deltas are not diff's"
import json
d = json.load(open("diff.json"))
c = json.load(open("check.json"))
assert c["regression"] is True and c["base"].endswith("@c1aaaa#1"), c["base"]
key = lambda x: (x["metric"], x["base"], x["new"], x["verdict"], x["group"], x["unit"])
assert [key(x) for x in c["deltas"]] == [key(x) for x in d["deltas"]]
PY
pass "check --format json: exit 1, the deltas of diff"
for fmt in text markdown junit; do
	"$ts" history check h.db "$big" --against c1aaaa --max-cycles-increase=1% --format=$fmt \
		>out.$fmt 2>/dev/null
	rc=$?
	[ $rc -eq 1 ] || fail "check --format=$fmt exited $rc, expected 1"
done
grep -q 'FAIL  cycles.total' out.text || fail "check's text lacks the failed limit"
grep -q '<testsuite' out.junit || fail "check's junit is not JUnit"
grep -q '^|' out.markdown || fail "check's markdown has no table"
# --against last --branch topic: c3, the small report.
"$ts" history check h.db "$small" --against last --branch topic --max-cycles-increase=0 \
	--format=json >topic.json || fail "check against topic's last exited $?"
grep -q '"base":	"h.db@c3cccc#3"' topic.json || fail "topic's last run is not c3"

# merge: another job's store with c4.
"$ts" history add other.db "$big" --commit c4dddd --branch main --time 400 >/dev/null ||
	fail "add c4 exited $?"
"$ts" history add other.db "$small" --commit c1aaaa --branch main --time 100 >/dev/null ||
	fail "add c1 to the other store exited $?"
"$ts" history merge h.db other.db >out.txt || fail "merge exited $?"
grep -q '^merged 1 run from other.db into h.db' out.txt || fail "merge said: $(cat out.txt)"
"$ts" history show h.db --metric cycles.total --branch main --format json |
	grep -c '"commit"' | grep -qx 3 || fail "after merge main has not 3 runs"

# --against merge-base: a repository whose topic branch forked from main's
# first commit; the store holds runs at both of main's commits.
if command -v git >/dev/null 2>&1; then
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
	g() { git -C repo -c commit.gpgsign=false "$@"; }
	git init -q repo && g symbolic-ref HEAD refs/heads/main && g commit -q --allow-empty -m one &&
		g checkout -q -b topic && g commit -q --allow-empty -m two &&
		g checkout -q main && g commit -q --allow-empty -m three && g checkout -q topic ||
		fail "making the repository"
	fork=$(g rev-parse main~1)
	"$ts" history add m.db "$small" --commit "$fork" --branch main --time 1 >/dev/null &&
		"$ts" history add m.db "$big" --commit "$(g rev-parse main)" --branch main --time 2 \
		>/dev/null || fail "adding main's runs"
	(cd repo && "$ts" history check ../m.db "$big" --against merge-base --base-branch main \
		--format=json) >mb.json || fail "check --against merge-base exited $?"
	grep -q "\"base\":	\"../m.db@$fork#1\"" mb.json && pass "--against merge-base: main~1" ||
		fail "--against merge-base compared with $(grep '"base"' mb.json)"
	cd repo
	check_error "'git merge-base HEAD nosuch' failed" history check ../m.db "$big" \
		--against merge-base --base-branch nosuch
	cd ..
fi

# A trace's wall-clock figures: with the report in one run, then two more
# samples by --repeat; every label's total and count is `tilescope trace
# --json`'s, summed over channels; check still compares only the report's.
trace=$samples/tut5_ml/tut5_ml.pvti
"$ts" history add t.db "$samples/tut5_ml" --commit t1 --time 1 >out.txt 2>err.txt ||
	fail "add of tut5_ml exited $?"
grep -q 'tut5_ml: its .pvti trace is not added' err.txt ||
	fail "a report directory's own trace: stderr says '$(cat err.txt)'"
"$ts" history add t.db "$trace" --commit t1 --repeat >out.txt || fail "add --repeat exited $?"
grep -q '^added sample 0 to run 1 (commit t1) in t.db' out.txt || fail "--repeat said: $(cat out.txt)"
"$ts" history add t.db "$trace" "$samples/tut5_ml" --commit t1 --repeat >out.txt 2>/dev/null ||
	fail "add --repeat of the trace and the same report exited $?"
grep -q '^added sample 1 to run 1' out.txt || fail "the second --repeat said: $(cat out.txt)"
"$ts" history add t.db "$samples/tut5_ml" "$trace" --commit t2 --time 2 >/dev/null 2>err.txt ||
	fail "add of a report and its trace exited $?"
[ -s err.txt ] && fail "add of a report and its trace said: $(cat err.txt)"
"$ts" trace --json "$trace" >trace.json || fail "trace --json exited $?"
"$ts" history show t.db --metric 'trace.*' --format json >show.json || fail "show trace.* exited $?"
python3 - <<'PY' || fail "the store's trace figures are not the trace's"
import json
t = json.load(open("trace.json"))
want = {"trace.wall_ns": t["trace"]["end_ns"] - t["trace"]["start_ns"]}
for l in t["labels"]:
    for k in ("total_ns", "count"):
        m = "trace.label.%s.%s" % (l["name"], k)
        want[m] = want.get(m, 0) + l[k]
got = {m["metric"]: m for m in json.load(open("show.json"))["metrics"]}
assert set(got) == set(want), set(got) ^ set(want)
for name, m in got.items():
    assert m["noisy"] and m["unit"] == ("count" if name.endswith(".count") else "ns"), m
    pts = [(p["commit"], p["sample"], p["value"]) for p in m["points"]]
    assert pts == [("t2", 0, want[name]), ("t1", 0, want[name]), ("t1", 1, want[name])], pts
PY
pass "add of a trace: its figures, noisy, with --repeat's samples 0 and 1"
"$ts" history show t.db >show.txt || fail "show t.db exited $?"
grep -q '^trace.wall_ns (ns)$' show.txt && ! grep -q '^trace.label' show.txt ||
	fail "show's totals are not trace.wall_ns without the labels: $(grep '^trace' show.txt | head -3)"
"$ts" diff --format=json "$samples/tut5_ml" "$samples/tut5_ml" >self.json 2>/dev/null
"$ts" history check t.db "$samples/tut5_ml" --against t1 --format=json >tcheck.json 2>/dev/null ||
	fail "check against a run with trace figures exited $?"
python3 - <<'PY' || fail "check against a run with trace figures is not diff"
import json
key = lambda x: (x["metric"], x["base"], x["new"], x["unit"])
d, c = json.load(open("self.json")), json.load(open("tcheck.json"))
assert [key(x) for x in c["deltas"]] == [key(x) for x in d["deltas"]]
PY
check_error "metric 'cycles.total': run 1 has .* simulated figure cannot differ" \
	history add t.db "$big" --commit t1 --repeat
check_error "no run of commit t9 without a label to add a sample to" \
	history add t.db "$trace" --commit t9 --repeat
check_error "add takes one report" history add t.db "$big" "$small" --commit t3
check_error "--repeat adds to a run of the commit" \
	history add t.db "$trace" --commit t1 --repeat --branch main
printf 'neither a report nor a trace\n' >text.txt
check_error "text.txt: not an SQLite database (a .pvti), nor Chrome trace-event JSON" \
	history add t.db text.txt --commit t3
"$ts" history show t.db --metric cycles.total --format json | grep -c '"commit"' | grep -qx 2 ||
	fail "a refused add wrote to the store"

# bisect under git bisect run: six commits whose "model" copies the small
# report (c0..c2) or the big one (c3..c5); c1's model fails (skipped).
# git must name c3 (the good value read from a store); --good-value says
# good at c2 and bad at c3.
if command -v git >/dev/null 2>&1; then
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
		GIT_COMMITTER_EMAIL=t@example.org GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
	b() { git -C bis -c commit.gpgsign=false "$@"; }
	git init -q bis && b symbolic-ref HEAD refs/heads/main || fail "making the repository"
	# The model writes out/ as the runtime does: profile.pop renamed into place.
	printf '%s\n' '#!/bin/sh' 'size=$(cat size) && [ "$size" != broken ] || exit 3' \
		"mkdir -p out && cp \"$samples/tut7_mk1\$size/profile.pop\" out/.tmp &&" \
		'	mv out/.tmp out/profile.pop' >bis/model.sh
	for i in 0 1 2 3 4 5; do
		case $i in 1) size=broken ;; [0-2]) size=_small ;; *) size= ;; esac
		echo "$size" >bis/size && echo "$i" >bis/n && b add model.sh size n &&
			b commit -q -m "c$i" || fail "commit c$i"
	done
	first_bad=$(b rev-parse HEAD~2)
	good=$(b rev-parse HEAD~5)
	(cd bis && git checkout -q "$good" && sh model.sh && git checkout -q main &&
		"$ts" history add ../b.db out --commit "$good" >/dev/null) || fail "adding c0's run"
	good_cycles=$("$ts" history show b.db --metric cycles.total --format json | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["metrics"][0]["points"][0]["value"])')
	rm -rf bis/out
	(cd bis && git bisect start HEAD "$good" >/dev/null 2>&1 &&
		git bisect run "$ts" history bisect --metric cycles.total --store ../b.db \
		--good "$(echo "$good" | cut -c1-12)" --limit +1% --build 'test -f size' \
		--run 'sh model.sh' --report out >../bisect.txt 2>&1
		git bisect reset >/dev/null 2>&1)
	if grep -q "^$first_bad is the first bad commit" bisect.txt &&
		grep -q '^bisect: cycles.total is .*, the good value .*, limit 1%: bad$' bisect.txt; then
		pass "git bisect run ... bisect --store --good: the first bad commit is c3"
	else
		fail "git bisect run ... bisect: $(grep -v '^Bisecting' bisect.txt | head -20)"
	fi
	# --good-value: 0 at c2 (the good report), 1 at c3.
	for at in main~3:0 main~2:1; do
		b checkout -q "${at%:*}" && rm -rf bis/out
		(cd bis && "$ts" history bisect --metric cycles.total --good-value "$good_cycles" \
			--run 'sh model.sh' --report out >../out.txt 2>&1)
		rc=$?
		[ $rc -eq "${at#*:}" ] || fail "bisect --good-value at ${at%:*} exited $rc: $(cat out.txt)"
	done
	grep -q '^bisect: cycles.total is [0-9,]*, the good value [0-9,]* (+[0-9,]*, +[0-9.]*%), limit 0: bad$' \
		out.txt || fail "bisect --good-value at c3 said: $(cat out.txt)"
	# Its codes: 125 for a failed model or no new report, 128 (git stops)
	# for an error of its own.
	b checkout -q main~4
	(cd bis && "$ts" history bisect --metric cycles.total --good-value 1 --run 'sh model.sh' \
		--report out >/dev/null 2>../err.txt)
	rc=$?
	[ $rc -eq 125 ] && grep -q 'the run command failed (exit 3): skipping' err.txt ||
		fail "bisect of a failing model exited $rc: $(cat err.txt)"
	(cd bis && "$ts" history bisect --metric cycles.total --good-value 1 --run true \
		--report out >/dev/null 2>../err.txt)
	rc=$?
	[ $rc -eq 125 ] && grep -q 'wrote no new out/profile.pop' err.txt ||
		fail "bisect of a run that wrote nothing exited $rc: $(cat err.txt)"
	for bad in "--good-value 1 --report out" "--good-value 1 --run true" \
		"--run true --report out" "--good-value x --run true --report out" \
		"--good-value 1 --limit lots --run true --report out" \
		"--store ../b.db --good nosuch --run true --report out" \
		"--store ../b.db --run true --report out" "--metrc x"; do
		(cd bis && "$ts" history bisect --metric cycles.total $bad >/dev/null 2>../err.txt)
		rc=$?
		[ $rc -eq 128 ] && head -n 1 err.txt | grep -q '^tilescope: ' ||
			fail "bisect $bad exited $rc: $(cat err.txt)"
	done
	pass "bisect: 125 for a failed run or no new report, 128 for its own errors"
fi

# Errors: exit 2, one line.
printf 'not a database, not even close to one; plain text it is\n%.0s' 1 2 3 >text.db
check_error "not an SQLite database" history show text.db
check_error "not a Tilescope history store (it is a profile.pop report)" \
	history show "$big/profile.pop"
check_error "add needs --commit" history add h.db "$big"
check_error "no run of commit zzz" history check h.db "$big" --against zzz
check_error "check needs --against" history check h.db "$big"
check_error "'c' is more than one commit" history check h.db "$big" --against c
check_error "show does not take --commit" history show h.db --commit c1
check_error "'frobnicate' is not a verb" history frobnicate h.db
check_error "no metric matches 'nothing.*'" history show h.db --metric 'nothing.*'
check_error "--max-cycles-increase" history check h.db "$big" --against last \
	--max-cycles-increase=lots
check_error "cannot open the history store" history merge h.db missing.db
check_error "cannot open the history store" history show missing.db
[ -e missing.db ] && fail "show created missing.db"
exit $status
