#!/usr/bin/env bash
# Sets everything up and runs every test suite, as CI does:
#   1. a -Dwerror=true build running all suites (unit, integration);
#   2. an ASan+UBSan build with clang running every suite but gui
#      (unit, integration, fuzz-smoke, and fuzz: each libFuzzer target of
#      tests/fuzz/ for a bounded time over its corpus);
#   3. a release -Dwerror=true build (optimisation finds other warnings)
#      running the unit suite;
#   4. a ThreadSanitizer build running reportlib's tests that use threads
#      (the thread contract, progress and cancel, SQL, traces, two handles
#      sharing a Chrome JSON trace).
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
. scripts/deps.sh
tilescope_install_deps || exit 1

out=${TILESCOPE_BUILD_ROOT:-build-tests}
passed=0
failed=0
status=0

# Runs one meson configuration; adds its counts from meson's summary.
run_config() {
	local dir=$1 suites=$2
	shift 2
	echo "=== configure $dir ($*)"
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
	fi
	ninja -C "$dir" >"$dir.build.log" 2>&1 || { cat "$dir.build.log"; return 1; }
	echo "=== test $dir"
	meson test -C "$dir" $suites --print-errorlogs --num-processes 2 2>&1 | tee "$dir.test.log"
	local ok fail
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
	fail=$(awk '/^(Fail|Unexpected Pass|Timeout):/ {s += $NF} END {print s + 0}' "$dir.test.log")
	passed=$((passed + ${ok:-0}))
	failed=$((failed + fail))
	[ "$fail" -eq 0 ] && [ -n "$ok" ]
}

mkdir -p "$out"
run_config "$out/werror" "" -Dwerror=true -Dbuildtype=debugoptimized || status=1
# clang, for libFuzzer (-Dfuzz=true). The desktop app stays out (-Dgui=
# disabled): GTK, GLib and fontconfig keep caches for the life of the
# process that LeakSanitizer reports, and its AT-SPI tests need the
# accessibility bus of the werror run; the code it shares (reportlib,
# chartkit's figures) runs under the sanitizers through the other suites.
CC=clang run_config "$out/asan" "" -Db_sanitize=address,undefined -Db_lundef=false \
	-Dbuildtype=debug -Dfuzz=true -Dgui=disabled || status=1
run_config "$out/release" "--suite unit" -Dwerror=true -Dbuildtype=release || status=1
run_config "$out/tsan" "test_threads test_progress test_sql test_trace test_trace_reopen" -Db_sanitize=thread \
	-Dexamples=false -Dbuildtype=debug || status=1

[ $failed -gt 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
