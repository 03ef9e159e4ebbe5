#!/bin/sh
# Issue 26 item 7: `tilescope summary` names a run's program by the name
# the model gave it, as the apps and `diff` do. named_programs_model runs
# "epoch" (a named Sequence), an unnamed Sequence and "train" (a named
# Repeat), once each; the summary's run line and its JSON must say
#   run 0: "epoch", run 1: no name (the old wording), run 2: "train".
#
# usage: check-program-names.sh TILESCOPE NAMED_PROGRAMS_MODEL
set -u
[ $# -eq 2 ] || { echo "usage: check-program-names.sh TILESCOPE MODEL" >&2; exit 2; }
ts=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
model=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
status=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; status=1; }

POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$tmp/r\"}" \
	"$model" >model.txt 2>&1 || { cat model.txt; echo "FAIL: the model failed"; exit 1; }

# run_line RUN WANT: the text summary of run RUN has exactly the run line WANT.
run_line() {
	if ! "$ts" summary --run "$1" r >sum.txt 2>err.txt; then
		fail "summary --run $1: $(cat err.txt)"
		return
	fi
	got=$(grep '^  Run:' sum.txt | sed 's/  */ /g')
	if [ "$got" = "$2" ]; then
		pass "run $1: '$got'"
	else
		fail "run $1: the run line is '$got', not '$2'"
	fi
}
run_line 0 " Run: 0 of runs 0-2 (epoch, engine program 0)"
run_line 1 " Run: 1 of runs 0-2 (engine program 1)"
run_line 2 " Run: 2 of runs 0-2 (train, engine program 2)"

# The default (the last run) names its program too.
"$ts" summary r >sum.txt 2>err.txt || fail "summary: $(cat err.txt)"
if grep -q '^  Run: *2 of runs 0-2 (train, engine program 2)$' sum.txt; then
	pass "the default run's line names train"
else
	fail "the default run's line: '$(grep '^  Run:' sum.txt)'"
fi

# json_name RUN WANT: execution.programName of run RUN is WANT (a JSON
# value: "\"epoch\"" or null).
json_name() {
	if ! "$ts" summary --json --run "$1" r >sum.json 2>err.txt; then
		fail "summary --json --run $1: $(cat err.txt)"
		return
	fi
	got=$(python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["execution"]
print(json.dumps(e.get("programName", "(missing)")), e["program"])' sum.json)
	if [ "$got" = "$2 $1" ]; then
		pass "JSON run $1: programName $2"
	else
		fail "JSON run $1: programName and program are '$got', not '$2 $1'"
	fi
}
json_name 0 '"epoch"'
json_name 1 null
json_name 2 '"train"'

# diff labels the runs by the same names (the one rule in reportlib).
"$ts" diff --format=json r r >diff.json 2>err.txt
rc=$?
if [ $rc -ne 0 ]; then
	fail "diff r r exited $rc: $(cat err.txt)"
else
	for m in cycles.run.epoch cycles.run.program1 cycles.run.train; do
		if grep -qF "\"$m\"" diff.json; then
			pass "diff has $m"
		else
			fail "diff has no $m"
		fi
	done
fi
exit $status
