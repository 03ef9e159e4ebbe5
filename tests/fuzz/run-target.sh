#!/bin/sh
# Runs one libFuzzer target for a bounded time over its seed corpus, as
# the `fuzz` suite does: run-target.sh TARGET CORPUS SECONDS [LIBFUZZER
# ARGS...]. New inputs go to a temporary directory (the corpus in the
# tree is only read); a crash, leak, sanitizer report, timeout or
# out-of-memory fails the test, and the input that did it is kept in
# fuzz-artifacts/ of the current directory and printed in hex.
set -u
target=$1
corpus=$2
seconds=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-fuzz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM # a meson timeout too: the EXIT trap still runs
artifacts=$PWD/fuzz-artifacts
mkdir -p "$artifacts" || exit 1
name=$(basename "$target")
# A dictionary beside the corpus (corpus/<target>.dict) gives the
# mutator the option names it would take long to guess.
dict=
[ -f "$corpus.dict" ] && dict=-dict=$corpus.dict
# -runs caps the work on a fast machine; -max_total_time bounds it on a
# slow one. Sanitizers stop at the first report (tests/meson.build).
"$target" -max_total_time="$seconds" -runs=2000000 -print_final_stats=1 \
	-artifact_prefix="$artifacts/$name-" $dict "$@" "$work" "$corpus" 2>"$work/log"
rc=$?
# Keep the log short in meson's output: the start and the end.
grep -E '^(INFO: seed corpus|#[0-9]+[[:space:]]+(INITED|DONE)|stat::|==[0-9]+==|SUMMARY|artifact_prefix|Test unit written|.*ERROR)' "$work/log"
if [ $rc -ne 0 ]; then
	echo "$name failed (exit $rc); the end of its log:"
	tail -n 60 "$work/log"
	for f in "$artifacts/$name-"*; do
		[ -f "$f" ] || continue
		echo "input $f:"
		od -A d -t x1 "$f" | head -n 40
	done
fi
exit $rc
