#!/bin/sh
# bert_synth at its small size, as a user runs it with autoReport and
# POPLAR_LOG_LEVEL=INFO: the device's output matches the host's forward
# pass, the printed graph counts are positive and agree with the report,
# the report is intact and groups operations per layer and head, progress
# is logged, and the data follow --seed; then a compile-only run
# (connection type NEVER) exits 0 with the same graph, no execution steps
# and no runs in its report.
#
# usage: check-bert-synth.sh BERT_SYNTH
set -u
[ $# -eq 1 ] || { echo "usage: check-bert-synth.sh BERT_SYNTH" >&2; exit 2; }
exe=$1
case $exe in /*) ;; *) exe=$(pwd)/$exe ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-it.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
pass() { echo "PASS: $*"; }
# The value of "counts.NAME N" in file $1, empty when missing.
count() { sed -n "s/^counts\.$2 \([0-9][0-9]*\)$/\1/p" "$1"; }
# One value from a report's database.
query() { sqlite3 -readonly "$1" "$2" 2>&1; }

# --- A run, profiled --------------------------------------------------------
POPLAR_LOG_LEVEL=INFO POPLAR_LOG_DEST=run.log \
POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"run"}' \
	"$exe" --size small >out.txt 2>err.txt
rc=$?
if [ $rc -eq 0 ]; then pass "bert_synth --size small exited 0"
else cat out.txt err.txt; fail "bert_synth --size small exited $rc"; fi
if grep -q '^reference: max |device - host| = .* OK$' out.txt; then
	pass "host reference: $(sed -n 's/^reference: //p' out.txt)"
else
	fail "no successful host reference check: $(grep reference out.txt)"
fi
for k in compute_sets vertices variables edges steps; do
	v=$(count out.txt $k)
	[ -n "$v" ] && [ "$v" -gt 0 ] || fail "counts.$k missing or zero"
done
for k in build_s compile_s run_s; do
	grep -q "^$k [0-9][0-9]*\.[0-9]*$" out.txt || fail "no phase time $k"
done
grep -q '^checksum [0-9]' out.txt || fail "no checksum"
cs=$(count out.txt compute_sets)
vx=$(count out.txt vertices)
vars=$(count out.txt variables)
steps=$(count out.txt steps)
# Every compute set is executed at least once, each with its sync and
# exchange: a run has more steps than the graph has compute sets.
[ -n "$steps" ] && [ -n "$cs" ] && [ "$steps" -gt "$cs" ] ||
	fail "$steps steps for $cs compute sets"

pop=run/profile.pop
if [ "$(query $pop 'PRAGMA quick_check')" = ok ]; then pass "profile.pop quick_check ok"
else fail "profile.pop damaged: $(query $pop 'PRAGMA quick_check')"; fi
[ -s run/debug.cbor ] || fail "no debug.cbor"
[ "$(query $pop 'SELECT num_compute_sets FROM graph')" = "$cs" ] ||
	fail "the report's compute sets differ from the printed $cs"
[ "$(query $pop 'SELECT num_vertices FROM graph')" = "$vx" ] ||
	fail "the report's vertices differ from the printed $vx"
[ "$(query $pop 'SELECT num_vars FROM graph')" = "$vars" ] ||
	fail "the report's variables differ from the printed $vars"
[ "$(query $pop 'SELECT num_steps FROM run WHERE id = 0')" = "$steps" ] ||
	fail "the report's first run has another step count than the printed $steps"
# Operations grouped per layer, per (sequence, head) and for the embeddings.
for ctx in layer0 layer1 embeddings seq0/head0 seq1/head1; do
	[ "$(query $pop "SELECT COUNT(*) FROM debug_context c JOIN string s
		ON s.id = c.name WHERE s.text = '$ctx'")" -gt 0 ] || fail "no debug context '$ctx'"
done
# Progress of the long phases at INFO level: each layer built, each
# compiler phase, the report written.
grep -q 'I: Built layer 2 of 2' run.log || fail "no 'Built layer 2 of 2' progress line"
grep -q 'Compiler model: .* done in' run.log || fail "no compiler phase progress line"
grep -q 'Wrote the graph profile' run.log || fail "no report-writing progress line"
[ $status -eq 0 ] && pass "run: $cs compute sets, $vx vertices, $vars variables, $steps steps"

# --- The data follow the seed ------------------------------------------------
sum1=$(sed -n 's/^checksum //p' out.txt)
"$exe" --size small --no-check >same.txt 2>&1 || fail "second run exited $?"
"$exe" --size small --no-check --seed 2 >other.txt 2>&1 || fail "--seed 2 run exited $?"
[ "$(sed -n 's/^checksum //p' same.txt)" = "$sum1" ] || fail "the same seed gave another checksum"
[ "$(sed -n 's/^checksum //p' other.txt)" != "$sum1" ] || fail "--seed 2 gave the same checksum"
grep -q '^reference' same.txt && fail "--no-check still checked"

# --- Compile only ------------------------------------------------------------
POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"compile"}' \
	"$exe" --size small --compile-only >co.txt 2>&1
rc=$?
if [ $rc -eq 0 ]; then pass "--compile-only exited 0"
else cat co.txt; fail "--compile-only exited $rc"; fi
grep -q '^run_s\|^counts\.steps\|^checksum' co.txt && fail "--compile-only ran the program"
[ "$(count co.txt compute_sets)" = "$cs" ] || fail "compile-only printed other counts"
[ "$(query compile/profile.pop 'PRAGMA quick_check')" = ok ] ||
	fail "compile-only profile.pop damaged"
[ "$(query compile/profile.pop 'SELECT COUNT(*) FROM run')" = 0 ] ||
	fail "--compile-only report has runs"
[ "$(query compile/profile.pop 'SELECT num_compute_sets FROM graph')" = "$cs" ] ||
	fail "compile-only graph differs from the run's"

[ $status -eq 0 ] && pass "bert_synth small: run, seed and compile-only"
exit $status
