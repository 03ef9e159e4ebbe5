#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz/ for longer than the test
# suite does:
#   bash scripts/fuzz-campaign.sh TARGET [SECONDS] [JOBS]
# TARGET is one of tests/fuzz/ (report, trace, chrome_json, debug_cbor,
# engine_options, pvti_options) or "all", one after the other: every
# target with a seed corpus in tests/fuzz/corpus/, so a new target is
# never left out of "all"; SECONDS per target (default 600);
# JOBS parallel fuzzing processes (default 1; they share the work
# corpus). It builds its own clang ASan+UBSan tree (build-fuzz/, or
# $TILESCOPE_FUZZ_BUILD), fuzzes in a work corpus outside the tree
# ($TILESCOPE_FUZZ_WORK, default build-fuzz/campaign/TARGET) seeded from
# tests/fuzz/corpus/TARGET, and keeps crashing inputs in
# build-fuzz/campaign/TARGET-artifacts/. The corpus in the tree is
# changed only with MERGE=1: the inputs that add coverage are then
# merged back into tests/fuzz/corpus/TARGET (named by their SHA-1).
# Ends with one line per target: executions, coverage (libFuzzer's cov
# and ft), crashes; exits non-zero when any target crashed.
set -u
cd "$(dirname "$0")/.."
# Every target has its seed corpus tests/fuzz/corpus/TARGET/ (meson.build
# runs it over that directory): the directories are the list.
targets=$(cd tests/fuzz/corpus && for d in */; do printf '%s ' "${d%/}"; done)
target=${1:?usage: fuzz-campaign.sh TARGET|all [SECONDS] [JOBS]}
seconds=${2:-600}
jobs=${3:-1}
all_targets=$targets
[ "$target" = all ] || targets=$target
for t in $targets; do
	[ -d "tests/fuzz/corpus/$t" ] || { echo "error: no target '$t' (one of: ${all_targets% }, or all)" >&2; exit 2; }
done

. scripts/deps.sh
tilescope_install_deps || exit 1
build=${TILESCOPE_FUZZ_BUILD:-build-fuzz}
# Logs go inside the build directory, never beside it in the tree.
if [ ! -f "$build/build.ninja" ]; then
	setup_log=$(mktemp)
	CC=clang meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dgui=disabled -Dexamples=false >"$setup_log" 2>&1 ||
		{ cat "$setup_log"; rm -f "$setup_log"; exit 1; }
	mv "$setup_log" "$build/campaign-setup.log"
fi
ninja -C "$build" $(for t in $targets; do echo "tests/fuzz/fuzz_$t"; done) >"$build/campaign-build.log" 2>&1 ||
	{ tail -n 40 "$build/campaign-build.log"; exit 1; }

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
status=0
summary=""
for t in $targets; do
	work=${TILESCOPE_FUZZ_WORK:-$build/campaign/$t}
	artifacts=$build/campaign/$t-artifacts
	log=$build/campaign/$t.log
	mkdir -p "$work" "$artifacts"
	dict=()
	[ -f "tests/fuzz/corpus/$t.dict" ] && dict=(-dict="tests/fuzz/corpus/$t.dict")
	echo "=== $t: $seconds s, $jobs job(s), work corpus $work"
	# The limits of the test suite (tests/fuzz/meson.build). With several
	# jobs libFuzzer writes one log per job (fuzz-N.log) in the cwd.
	args=(-max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=1024
		-malloc_limit_mb=512 -timeout=30 -artifact_prefix="$artifacts/" "${dict[@]}")
	if [ "$jobs" -gt 1 ]; then
		(cd "$build/campaign" && "$OLDPWD/$build/tests/fuzz/fuzz_$t" "${args[@]}" -fork="$jobs" \
			-ignore_crashes=1 "$OLDPWD/$work" "$OLDPWD/tests/fuzz/corpus/$t") >"$log" 2>&1
	else
		"$build/tests/fuzz/fuzz_$t" "${args[@]}" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
	fi
	rc=$?
	last=$(grep -E '^#[0-9]+(:|[[:space:]])' "$log" | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s += $1} END {print s + 0}')
	[ "$execs" -gt 0 ] || execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	crashes=$(find "$artifacts" -type f | wc -l)
	[ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes="exit $rc"
	if [ "$crashes" != 0 ]; then
		status=1
		echo "$t: findings in $artifacts; the log's end:"
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 20
	fi
	if [ "${MERGE:-0}" = 1 ]; then
		echo "$t: merging new coverage into tests/fuzz/corpus/$t"
		"$build/tests/fuzz/fuzz_$t" -merge=1 -rss_limit_mb=1024 -malloc_limit_mb=512 -timeout=30 \
			"tests/fuzz/corpus/$t" "$work" >>"$log" 2>&1 || status=1
	fi
	summary="$summary$t: executions ${execs:-0}, cov ${cov:-?}, ft ${ft:-?}, crashes $crashes\n"
done
printf '%b' "$summary"
exit $status
