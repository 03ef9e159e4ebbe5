#!/usr/bin/env bash
# Sets everything up and runs every test suite, as CI does:
#   1. a -Dwerror=true build running all suites (unit, integration, gui,
#      browser: the HTML pages in headless Chromium, python: pytest over
#      the Python module, when python3-dev is there);
#   2. an ASan+UBSan build with clang running every suite but gui and
#      browser (the pages' writers run under the sanitizers in integration)
#      (python, the interpreter given the sanitizer runtime by
#      tests/python/meson.build; unit, integration, fuzz-smoke, fault: the
#      report and writer paths with each allocation site failed in turn,
#      tests/fault/; and fuzz: each libFuzzer target of tests/fuzz/ for
#      a bounded time over its corpus);
#   3. a release -Dwerror=true build (optimisation finds other warnings)
#      running the unit suite;
#   4. a ThreadSanitizer build running reportlib's tests that use threads
#      (the thread contract, progress and cancel, SQL, traces, two handles
#      sharing a Chrome JSON trace).
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
#
# --busy (or TILESCOPE_TEST_BUSY=1) runs the same with three busy loops
# pinned on CPU 0 beside the suites, as a loaded laptop or CI machine
# would be, and gives every test a longer meson timeout: no test may
# depend on the machine's speed, and this is how to check it before
# pushing. TILESCOPE_TIMEOUT_MULTIPLIER overrides meson's
# --timeout-multiplier (default 3; 6 with --busy).
set -u
cd "$(dirname "$0")/.."

usage() {
	cat <<'EOF'
usage: scripts/test.sh [--busy]

Installs what is missing (apt-get), builds four configurations in
build-tests/ (werror, ASan+UBSan with libFuzzer, release, TSan) and runs
every test suite; ends with "N passed, N failed" and exits non-zero when
anything fails.

  --busy   run with three busy loops pinned on CPU 0 beside the suites
           (also TILESCOPE_TEST_BUSY=1), to check that no test depends on
           the machine's speed
  -h, --help  this text

Environment: TILESCOPE_BUILD_ROOT (default build-tests),
TILESCOPE_TIMEOUT_MULTIPLIER (meson's --timeout-multiplier; default 3,
6 with --busy).
EOF
}

busy=${TILESCOPE_TEST_BUSY:-0}
case "$busy" in 0 | 1) ;; *) echo "test.sh: TILESCOPE_TEST_BUSY must be 0 or 1, not '$busy'" >&2; exit 2 ;; esac
for arg in "$@"; do
	case "$arg" in
	--busy) busy=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "test.sh: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
	esac
done
if [ "$busy" = 1 ]; then
	multiplier=${TILESCOPE_TIMEOUT_MULTIPLIER:-6}
else
	multiplier=${TILESCOPE_TIMEOUT_MULTIPLIER:-3}
fi
case "$multiplier" in
'' | *[!0-9]*) echo "test.sh: TILESCOPE_TIMEOUT_MULTIPLIER must be a whole number, not '$multiplier'" >&2; exit 2 ;;
esac

# Wall time of each phase, printed at the end ("where the time went").
timings=""
run_start=$(date +%s)
phase_start=$run_start
phase_done() { # phase_done NAME: records the time since the last call
	local now
	now=$(date +%s)
	timings="$timings$(printf '  %-34s %5d s' "$1" $((now - phase_start)))
"
	phase_start=$now
}

. scripts/deps.sh
tilescope_install_deps || exit 1
phase_done "install missing packages"

busy_pids=""
stop_busy() {
	[ -n "$busy_pids" ] && kill $busy_pids 2>/dev/null
	busy_pids=""
}
trap stop_busy EXIT
trap 'stop_busy; exit 130' INT TERM
if [ "$busy" = 1 ]; then
	# Each loop in a session of its own: with the kernel's autogroup
	# scheduling, loops sharing one session share one slice of the CPU
	# against each test (meson starts every test in its own session),
	# and slow a test only about 2x instead of 4x.
	for i in 1 2 3; do
		setsid taskset -c 0 sh -c 'while :; do :; done' &
		busy_pids="$busy_pids $!"
	done
	echo "=== busy: three loops pinned on CPU 0 (pids$busy_pids); meson timeouts x$multiplier"
fi

out=${TILESCOPE_BUILD_ROOT:-build-tests}
passed=0
failed=0
status=0

# Configures and builds one meson configuration (configure_build DIR
# MESON_ARGS...); its logs are DIR.setup.log and DIR.build.log, and
# DIR.built exists when it built. A configuration that does not configure
# or build counts as one failure in the last line (see run_tests), so it
# never reads "0 failed".
configure_build() {
	local dir=$1
	shift
	rm -f "$dir.built"
	echo "=== configure $dir ($*)"
	# A tree from an earlier run takes this run's options (meson
	# configure), so changing them here reaches every checkout.
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "$@" >"$dir.setup.log" 2>&1
	else
		meson setup "$dir" "$@" >"$dir.setup.log" 2>&1
	fi || return 1
	ninja -C "$dir" >"$dir.build.log" 2>&1 || return 1
	touch "$dir.built"
}

# configure_build at the lowest CPU priority (niced_configure_build DIR
# MESON_ARGS...), for the trees built beside the werror suites: nice runs
# a program, not a shell function, so a child bash is given the
# function's text. An assignment before the call (CC=clang) reaches it as
# for any command, and lasts only for that call.
niced_configure_build() {
	nice -n 19 bash -c "$(declare -f configure_build); configure_build \"\$@\"" _ "$@"
}

# Runs the suites of a configured and built tree (run_tests DIR SUITES);
# adds its counts from meson's summary.
run_tests() {
	local dir=$1 suites=$2 name ok fail
	name=$(basename "$dir")
	if [ ! -e "$dir.built" ]; then
		cat "$dir.setup.log" "$dir.build.log" 2>/dev/null | tail -n 60
		echo "=== $dir: configure or build failed (logs: $dir.setup.log, $dir.build.log)"
		failed=$((failed + 1))
		return 1
	fi
	echo "=== test $dir"
	meson test -C "$dir" $suites --print-errorlogs --num-processes 2 \
		--timeout-multiplier "$multiplier" 2>&1 | tee "$dir.test.log"
	phase_done "$name: tests"
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir.test.log" | tail -1)
	fail=$(awk '/^(Fail|Unexpected Pass|Timeout):/ {s += $NF} END {print s + 0}' "$dir.test.log")
	passed=$((passed + ${ok:-0}))
	failed=$((failed + fail))
	[ "$fail" -eq 0 ] && [ -n "$ok" ]
}

mkdir -p "$out"
configure_build "$out/werror" -Dwerror=true -Dbuildtype=debugoptimized
phase_done "werror: configure and build"
# The other three configurations build beside the werror suites, at the
# lowest priority: the desktop tests spend much of their time waiting on
# the apps (AT-SPI round trips, worker threads), which leaves the cores
# part idle.
(
	# clang, for libFuzzer (-Dfuzz=true). The desktop app stays out
	# (-Dgui=disabled): GTK, GLib and fontconfig keep caches for the life
	# of the process that LeakSanitizer reports, and its AT-SPI tests need
	# the accessibility bus of the werror run; the code it shares
	# (reportlib, chartkit's figures) runs under the sanitizers through the
	# other suites. -O1, as AddressSanitizer's authors advise: the
	# instrumented code at -O0 took 35-40 % more CPU (tut4's profile
	# invariants 6.0 s against 3.5 s), and this build's suites are most of
	# the run.
	CC=clang niced_configure_build "$out/asan" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug -Doptimization=1 -Dfuzz=true -Dgui=disabled
	niced_configure_build "$out/release" -Dwerror=true -Dbuildtype=release
	niced_configure_build "$out/tsan" -Db_sanitize=thread -Dexamples=false -Dbuildtype=debug
) >"$out/later-builds.log" 2>&1 &
later_builds=$!
run_tests "$out/werror" "" || status=1
wait "$later_builds"
cat "$out/later-builds.log"
phase_done "asan, release, tsan: build (rest)"
run_tests "$out/asan" "--no-suite browser" || status=1
run_tests "$out/release" "--suite unit" || status=1
run_tests "$out/tsan" "test_threads test_progress test_sql test_trace test_trace_reopen" || status=1
stop_busy

echo "=== where the time went"
printf '%s' "$timings"
printf '  %-34s %5d s\n' "total" $(($(date +%s) - run_start))
[ $failed -gt 0 ] && status=1
echo "$passed passed, $failed failed"
exit $status
