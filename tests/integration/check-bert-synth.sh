#!/bin/sh
# bert_synth at its small size, as a user runs it with autoReport: the
# device's output matches the host's forward pass, the graph counts are
# printed and agree with the report, and the report is intact; then a
# compile-only run (connection type NEVER) has a graph profile and no runs.
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

POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"run"}' \
	"$exe" --size small >out.txt 2>err.txt || { cat out.txt err.txt; fail "bert_synth exited $?"; }
grep -q '^reference: max |device - host| = .* OK$' out.txt ||
	fail "no successful host reference check: $(grep reference out.txt)"
for k in compute_sets vertices variables steps; do
	v=$(sed -n "s/^counts\.$k \([0-9]*\)$/\1/p" out.txt)
	[ -n "$v" ] && [ "$v" -gt 0 ] || fail "counts.$k missing or zero"
done
[ "$(sqlite3 -readonly run/profile.pop 'PRAGMA quick_check')" = ok ] || fail "profile.pop damaged"
[ -s run/debug.cbor ] || fail "no debug.cbor"
cs=$(sed -n 's/^counts\.compute_sets //p' out.txt)
vx=$(sed -n 's/^counts\.vertices //p' out.txt)
steps=$(sed -n 's/^counts\.steps //p' out.txt)
[ "$(sqlite3 -readonly run/profile.pop 'SELECT num_compute_sets FROM graph')" = "$cs" ] ||
	fail "the report's compute sets differ from the printed count"
[ "$(sqlite3 -readonly run/profile.pop 'SELECT num_vertices FROM graph')" = "$vx" ] ||
	fail "the report's vertices differ from the printed count"
[ "$(sqlite3 -readonly run/profile.pop 'SELECT num_steps FROM run WHERE id = 0')" = "$steps" ] ||
	fail "the report's first run has another step count"
# Operations: a debug context per layer and per (sequence, head).
[ "$(sqlite3 -readonly run/profile.pop "SELECT COUNT(*) FROM debug_context c JOIN string s
	ON s.id = c.name WHERE s.text LIKE 'seq%/head%'")" -gt 0 ] || fail "no per-head debug contexts"

POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true","autoReport.directory":"compile"}' \
	"$exe" --size small --compile-only >co.txt 2>&1 || { cat co.txt; fail "--compile-only exited $?"; }
grep -q '^run_s' co.txt && fail "--compile-only ran the program"
[ "$(sqlite3 -readonly compile/profile.pop 'SELECT COUNT(*) FROM run')" = 0 ] ||
	fail "--compile-only report has runs"
[ "$(sqlite3 -readonly compile/profile.pop 'SELECT num_compute_sets FROM graph')" = "$cs" ] ||
	fail "compile-only graph differs from the run's"

[ $status -eq 0 ] && echo "PASS: bert_synth small: reference OK, $cs compute sets, $vx vertices, $steps steps"
exit $status
