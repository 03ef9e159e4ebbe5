#!/usr/bin/env bash
# Every benchmark of issues 8 and 29 in one command. Builds an optimised tree
# (build-bench/, or $TILESCOPE_BENCH_BUILD), runs each benchmark and prints
# one line per figure:
#
#   NAME VALUE UNIT (target OP VALUE)
#
# (lines without a target are context). Benchmarks report; nothing here
# fails on a timing. The machine is noisy: every ratio below compares
# two measurements taken in this one run, alternating, best of a few.
# A benchmark that fails or crashes is named on stderr, and the script
# exits 1 once the others have run.
#
# usage: tests/bench/run.sh [--quick] [--apps | --html]
#   --quick   the small bert_synth size and 1 M-span traces (a smoke run
#             of this script, not the figures of record)
#   --apps    only the desktop apps' figures (sections 7 and 8: the Graph
#             Analyser on the large model's own report, the System
#             Analyser on a 5 M-span trace)
#   --html    only the HTML pages' figures (section 3b)
# TILESCOPE_BENCH_LARGE_REPORT=DIR: the large model's report to measure
# the Graph Analyser and the HTML pages on (else the first profiled run's
# of section 2, or one made with autoReport.all when --apps or --html
# skips it). TILESCOPE_BENCH_LARGE_REPORT_B=DIR: the report the diff page
# compares it with (else the second profiled run's, or the report itself).
# TILESCOPE_BENCH_PAIRS=N: interleaved plain/profiled pairs of section 2
# (default 5; the overhead is quoted as best of each side and as the
# median of the pairs' ratios with their range).
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
quick=0
apps=0
html=0
for arg in "$@"; do
	case $arg in
	--quick) quick=1 ;;
	--apps) apps=1 ;;
	--html) html=1 ;;
	-h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) echo "usage: tests/bench/run.sh [--quick] [--apps | --html]" >&2; exit 2 ;;
	esac
done
[ $((apps + html)) -le 1 ] || { echo "run.sh: --apps and --html each run one section; give one" >&2; exit 2; }

. scripts/deps.sh
tilescope_install_deps >&2 || exit 1

build=${TILESCOPE_BENCH_BUILD:-$root/build-bench}
echo "# building an optimised tree in $build" >&2
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Dbuildtype=release >"$build.setup.log" 2>&1 ||
		{ cat "$build.setup.log" >&2; exit 1; }
fi
# --apps and --html build only what they run (what the tree has of it: no GUI, no apps).
targets=()
[ $html -eq 0 ] || targets=(instrument/examples/bert_synth cli-summary/tilescope)
[ $apps -eq 0 ] || for t in instrument/examples/bert_synth \
	tests/bench/bench-{report-open,graph-analyser,system-analyser,system-analyser-search}; do
	ninja -C "$build" -t query "$t" >/dev/null 2>&1 && targets+=("$t")
done
ninja -C "$build" "${targets[@]}" >"$build.build.log" 2>&1 || { tail -n 30 "$build.build.log" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

bert=$build/instrument/examples/bert_synth
tilescope=$build/cli-summary/tilescope
if [ $quick -eq 1 ]; then
	bert_size=(--size small)
	spans=1000000
	sa_spans=1000000
else
	bert_size=(--size large)
	spans=10000000
	sa_spans=5000000
fi

# Runs a command; prints "SECONDS PEAK_RSS_KB CPU_SECONDS" of it (its
# children included; CPU is user + system time of all its threads) on
# stdout and exits with its status; its own output goes to $BENCH_OUT and
# $BENCH_ERR.
measure() {
	python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
start = time.monotonic()
with open(os.environ["BENCH_OUT"], "w") as out, open(os.environ["BENCH_ERR"], "w") as err:
    rc = subprocess.run(sys.argv[1:], stdout=out, stderr=err).returncode
elapsed = time.monotonic() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{elapsed:.3f} {use.ru_maxrss} {use.ru_utime + use.ru_stime:.3f}")
sys.exit(rc)
PY
}
export BENCH_OUT=$tmp/last.out BENCH_ERR=$tmp/last.err

# Prints a figure line.
figure() { # NAME VALUE UNIT [TARGET]
	if [ $# -ge 4 ]; then printf '%s %s %s (target %s)\n' "$1" "$2" "$3" "$4"
	else printf '%s %s %s\n' "$1" "$2" "$3"; fi
}
fail() { echo "run.sh: $*" >&2; exit 1; }
# Runs a benchmark that prints figure lines (its '#' lines dropped), with
# its stderr to ERR (a file, or - to keep it). A grep hides the benchmark's
# own status, so it is read here: one that fails, after some figures or
# none, is named on stderr and the script exits 1 at the end, after the
# other benchmarks have run. (A file, not a variable: a figure may run in
# a pipeline's subshell.)
bench() { # NAME ERR COMMAND...
	local name=$1 err=$2 rc
	shift 2
	if [ "$err" = - ]; then "$@"; else "$@" 2>"$err"; fi | grep -v '^#'
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] && return 0
	echo "run.sh: $name FAILED (exit status $rc$([ "$rc" -gt 128 ] &&
		echo ", signal $(kill -l $((rc - 128)))")); its figures are missing or incomplete" >&2
	[ "$err" = - ] || tail -n 3 "$err" >&2
	echo "$name" >>"$tmp/failed"
}
min() { awk 'NR == 1 || $1 < m { m = $1 } END { print m }'; }
# Runs a GTK benchmark on the display, or on an Xvfb of its own.
on_display() {
	if [ -z "${DISPLAY:-}" ] && command -v xvfb-run >/dev/null 2>&1; then
		GSK_RENDERER=cairo xvfb-run -a "$@"
	else
		GSK_RENDERER=cairo "$@"
	fi
}

# Sets $large to the large model's report: TILESCOPE_BENCH_LARGE_REPORT,
# else section 2's first profiled run, else one made here.
large_report() {
	large=${TILESCOPE_BENCH_LARGE_REPORT:-$tmp/run1}
	[ -f "$large/profile.pop" ] || [ -z "${TILESCOPE_BENCH_LARGE_REPORT:-}" ] ||
		fail "no profile.pop in TILESCOPE_BENCH_LARGE_REPORT=$large"
	if [ ! -f "$large/profile.pop" ]; then
		large=$tmp/large
		[ -f "$large/profile.pop" ] && return
		echo "# bert_synth ${bert_size[*]} with autoReport.all: the report to open" >&2
		POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$large\"}" \
			measure "$bert" "${bert_size[@]}" >/dev/null ||
			fail "bert_synth with autoReport.all failed: $(tail -n 3 "$BENCH_ERR")"
	fi
}

# --- 3b. The HTML pages of the large report ----------------------------------
# `summary --format=html` of the large report and `diff --format=html` of
# it against TILESCOPE_BENCH_LARGE_REPORT_B (else section 2's second run,
# else itself): the page's size and the command's wall time (reading the
# report included), 5 interleaved repeats (summary then diff, the order
# swapped every other time), median and lowest..highest, and its median
# CPU time.
html_pages() {
	local a b i kind r rc
	large_report
	a=$large
	b=${TILESCOPE_BENCH_LARGE_REPORT_B:-}
	if [ -z "$b" ]; then
		b=$a
		[ -z "${TILESCOPE_BENCH_LARGE_REPORT:-}" ] && [ -f "$tmp/run2/profile.pop" ] && b=$tmp/run2
	fi
	[ -f "$b/profile.pop" ] || fail "no profile.pop in TILESCOPE_BENCH_LARGE_REPORT_B=$b"
	echo "# tilescope summary and diff --format=html on the large report ($a; diff against $b)" >&2
	: >"$tmp/summary_html.txt"
	: >"$tmp/diff_html.txt"
	for i in 1 2 3 4 5; do
		for kind in $([ $((i % 2)) -eq 1 ] && echo summary diff || echo diff summary); do
			if [ $kind = summary ]; then
				r=$(measure "$tilescope" summary --format=html -o "$tmp/summary.html" "$a")
			else
				r=$(measure "$tilescope" diff --format=html -o "$tmp/diff.html" "$a" "$b")
			fi
			rc=$?
			# diff exits 1 when B regressed: the page is written all the same.
			[ $rc -eq 0 ] || { [ $kind = diff ] && [ $rc -eq 1 ]; } ||
				fail "tilescope $kind --format=html failed: $(cat "$BENCH_ERR")"
			echo "$r" >>"$tmp/${kind}_html.txt"
		done
	done
	for kind in summary diff; do
		figure "html.$kind.size_mb" "$(awk -v b="$(stat -c %s "$tmp/$kind.html")" \
			'BEGIN { printf "%.2f", b / 1e6 }')" MB "<= 10"
		figure "html.$kind.write_s_median" "$(sort -n "$tmp/${kind}_html.txt" | median)" s "<= 1"
		figure "html.$kind.write_s_range" "$(sort -n "$tmp/${kind}_html.txt" | range)" s
		# CPU time (user + system), steadier than wall time on a shared machine.
		figure "html.$kind.cpu_s_median" "$(awk '{ print $3 }' "$tmp/${kind}_html.txt" | sort -n | median)" s "<= 1"
	done
}
median() { awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
range() { awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo ".." hi }'; }
if [ $html -eq 1 ]; then
	html_pages
	exit 0
fi

# --apps goes straight to section 7.
if [ $apps -eq 0 ]; then

# --- 1. Compiling the large model: phases, profile.pop -----------------------
echo "# bert_synth ${bert_size[*]} --compile-only, with autoReport.all" >&2
r=$(POPLAR_LOG_LEVEL=INFO POPLAR_LOG_DEST="$tmp/compile.log" \
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$tmp/rep1\"}" \
	measure "$bert" "${bert_size[@]}" --compile-only) ||
	fail "bert_synth --compile-only failed: $(tail -n 3 "$BENCH_ERR")"
count() { sed -n "s/^counts\.$1 \([0-9]*\)$/\1/p" "$BENCH_OUT"; }
figure model.compute_sets "$(count compute_sets)" count ">= 20000"
figure model.vertices "$(count vertices)" count ">= 1000000"
figure model.variables "$(count variables)" count ">= 100000"
set -- $r
# compile.engine_s is tsi_engine_new (checks, the compiler model, the
# profile.pop and debug.cbor writes); the peak is the whole process's,
# graph construction included.
figure compile.total_s "$1" s
figure compile.peak_rss_mb "$(($2 / 1024))" MB "<= 1024"
figure compile.graph_construction_s "$(sed -n 's/^build_s //p' "$BENCH_OUT")" s
figure compile.engine_s "$(sed -n 's/^compile_s //p' "$BENCH_OUT")" s "<= 5"
sed -n 's/.*Compiler model: \(.*\) done in \([0-9.]*\) s$/\1|\2/p' "$tmp/compile.log" |
	while IFS='|' read -r phase secs; do
		figure "compile.phase.$(echo "$phase" | tr ' ' '_')_s" "$secs" s
	done
write_s=$(sed -n "s/.*Wrote the graph profile to .* in \([0-9.]*\) s$/\1/p" "$tmp/compile.log")
debug_s=$(sed -n "s/.*Wrote debug information to .* in \([0-9.]*\) s$/\1/p" "$tmp/compile.log")
figure profile_pop.write_s "${write_s:-?}" s
figure debug_cbor.write_s "${debug_s:-?}" s
pop_mb=$(awk -v b="$(stat -c %s "$tmp/rep1/profile.pop")" 'BEGIN { printf "%.1f", b / 1e6 }')
figure profile_pop.size_mb "$pop_mb" MB "<= 100"
figure debug_cbor.size_mb "$(awk -v b="$(stat -c %s "$tmp/rep1/debug.cbor")" \
	'BEGIN { printf "%.1f", b / 1e6 }')" MB

# --- 2. Running it with and without profiling --------------------------------
# Interleaved pairs (plain then profiled, the order swapped every other
# pair so a drifting machine load favours neither), $pairs of them
# (TILESCOPE_BENCH_PAIRS, default 5). The target line is the best of each
# side; on a shared machine the median of the pairs' ratios, with their
# range, is the steadier figure, and CPU time (all threads: the graph
# profile is written on a thread of its own while the program loads and
# runs, which costs CPU but no wall time when a core is free) says what
# the profiling costs when none is.
pairs=${TILESCOPE_BENCH_PAIRS:-5}
case $pairs in '' | *[!0-9]* | 0 | 1) fail "TILESCOPE_BENCH_PAIRS must be a number of at least 2" ;; esac
echo "# bert_synth ${bert_size[*]}: one run, without and with autoReport.all + PVTI ($pairs pairs)" >&2
: >"$tmp/plain.txt"
: >"$tmp/profiled.txt"
run_plain() {
	measure "$bert" "${bert_size[@]}" >>"$tmp/plain.txt" ||
		fail "bert_synth failed: $(tail -n 3 "$BENCH_ERR")"
	cp "$BENCH_OUT" "$tmp/plain.out"
}
run_profiled() { # REPORT_DIR
	rm -rf "$1"
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$1\"}" \
		PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$1\"}" \
		measure "$bert" "${bert_size[@]}" >>"$tmp/profiled.txt" ||
		fail "bert_synth with profiling failed: $(tail -n 3 "$BENCH_ERR")"
}
for i in $(seq 1 "$pairs"); do
	if [ $((i % 2)) -eq 1 ]; then
		run_plain
		run_profiled "$tmp/run$i"
	else
		run_profiled "$tmp/run$i"
		run_plain
	fi
	# Section 3 reads the reports of pairs 1 and 2 (run1, run2).
	[ "$i" -le 2 ] || rm -rf "$tmp/run$i"
done
steps=$(sed -n 's/^counts\.steps //p' "$tmp/plain.out")
run_only=$(sed -n 's/^run_s //p' "$tmp/plain.out")
figure model.steps_per_run "$steps" count ">= 50000"
figure run.program_s "$run_only" s
plain=$(min <"$tmp/plain.txt")
profiled=$(min <"$tmp/profiled.txt")
figure run.plain_s "$plain" s
figure run.profiled_s "$profiled" s
figure run.profiling_overhead "$(awk -v a="$profiled" -v b="$plain" \
	'BEGIN { printf "%.2f", a / b }')" x "<= 1.05"
# The pairs' ratios: median, then "lowest..highest" of the pairs.
ratios() { # COLUMN (1: wall, 3: CPU)
	paste -d' ' "$tmp/plain.txt" "$tmp/profiled.txt" |
		awk -v c="$1" -v n=3 '{ printf "%.3f\n", $(c + n) / $c }' | sort -n
}
figure run.profiling_overhead_median "$(ratios 1 | median)" x
figure run.profiling_overhead_range "$(ratios 1 | range)" x
figure run.profiling_cpu_overhead_median "$(ratios 3 | median)" x
figure run.profiling_cpu_overhead_range "$(ratios 3 | range)" x

# --- 2b. The first run against later ones -------------------------------------
# tsi_engine_load lays out each compute set's scratch (its plan), so the
# first run should cost what later ones do; load.total_s is the whole load.
# Best of three processes of --runs 3; the peak is the whole process's
# (graph, compiled model, device memory and plans).
echo "# bert_synth ${bert_size[*]} --runs 3: the first run against the later ones" >&2
: >"$tmp/runs.txt"
for i in 1 2 3; do
	r=$(measure "$bert" "${bert_size[@]}" --runs 3) || fail "bert_synth --runs 3 failed: $(tail -n 3 "$BENCH_ERR")"
	echo "$(sed -n 's/^first_run_s //p' "$BENCH_OUT") $(sed -n 's/^later_run_s //p' "$BENCH_OUT") ${r#* }" \
		"$(sed -n 's/^load_s //p' "$BENCH_OUT")" >>"$tmp/runs.txt"
done
read -r first later peak _cpu load < <(sort -n "$tmp/runs.txt" | head -n 1)
figure load.total_s "$load" s
figure run.first_s "$first" s
figure run.later_s "$later" s
figure run.first_to_later "$(awk -v a="$first" -v b="$later" 'BEGIN { printf "%.2f", a / b }')" x "<= 1.5"
figure run.peak_rss_mb "$((peak / 1024))" MB "<= 1536"

# --- 2c. A 20-layer variant of the large model ----------------------------------
# Seven layers more than the preset: it must compile with no tile out of
# memory, run, and match its plain-C reference.
if [ $quick -eq 0 ]; then
	echo "# bert_synth --size large --layers 20 --check: compiles, fits, runs, checks" >&2
	r=$(POPLAR_LOG_LEVEL=INFO POPLAR_LOG_DEST="$tmp/layers20.log" \
		measure "$bert" --size large --layers 20 --check) ||
		fail "bert_synth --layers 20 failed: $(tail -n 3 "$BENCH_ERR")"
	set -- $r
	figure layers20.vertices "$(sed -n 's/^counts\.vertices \([0-9]*\)$/\1/p' "$BENCH_OUT")" count
	figure layers20.compile_s "$(sed -n 's/^compile_s //p' "$BENCH_OUT")" s
	figure layers20.oom_tiles "$(sed -n 's/.*, \([0-9]*\) out-of-memory tiles$/\1/p' "$tmp/layers20.log")" \
		tiles "== 0"
	figure layers20.check "$(sed -n 's/^reference: .*: \([A-Z]*\)$/\1/p' "$BENCH_OUT")" "" "== OK"
	figure layers20.peak_rss_mb "$(($2 / 1024))" MB
fi

# --- 3. Reading the large report: summary and diff ----------------------------
# The reports of two profiled runs (graph and execution profiles).
echo "# tilescope summary and diff on the large reports" >&2
: >"$tmp/summary.txt"
for i in 1 2 3; do
	measure "$tilescope" summary "$tmp/run1" >>"$tmp/summary.txt" ||
		fail "tilescope summary failed: $(cat "$BENCH_ERR")"
done
figure summary.time_s "$(min <"$tmp/summary.txt")" s "<= 1"
figure summary.peak_rss_mb "$(awk '{ print int($2 / 1024) }' "$tmp/summary.txt" | sort -n | head -n 1)" \
	MB "<= 200"
# Every part: the liveness tree lists each step's live variables (it
# scanned and sorted every variable per step: hours on a large report).
: >"$tmp/summary_all.txt"
for i in 1 2 3; do
	measure "$tilescope" summary --all "$tmp/run1" >>"$tmp/summary_all.txt" ||
		fail "tilescope summary --all failed: $(cat "$BENCH_ERR")"
done
figure summary_all.time_s "$(min <"$tmp/summary_all.txt")" s "<= 10"
: >"$tmp/diff.txt"
for i in 1 2 3; do
	r=$(measure "$tilescope" diff "$tmp/run1" "$tmp/run2")
	rc=$?
	[ $rc -le 1 ] || fail "tilescope diff failed: $(cat "$BENCH_ERR")"
	echo "$r" >>"$tmp/diff.txt"
done
figure diff.time_s "$(min <"$tmp/diff.txt")" s "<= 2"
figure diff.peak_rss_mb "$(awk '{ print int($2 / 1024) }' "$tmp/diff.txt" | sort -n | head -n 1)" MB
html_pages
# The same report from Python (issue 30), when the module was built.
if ls "$build"/python/tilescope/_native.*.so >/dev/null 2>&1; then
	echo "# import pva on the large report" >&2
	bench python-pva.py - env PYTHONPATH="$build/python" TILESCOPE="$build/cli-summary/tilescope" \
		"$(command -v /usr/bin/python3 || command -v python3)" tests/bench/python-pva.py "$tmp/run1"
fi

# --- 4. The simulator against plain C -----------------------------------------
echo "# the simulator against a plain C loop (tut5_ml's arithmetic)" >&2
bench bench-simulator - "$build/tests/bench/bench-simulator"

# --- 5. Tracepoints and the trace viewport ------------------------------------
echo "# tracepoint costs" >&2
bench bench-pvti - "$build/tests/bench/bench-pvti"
# A tracepoint from Python, when the Python module was built (issue 30).
if ls "$build"/python/tilescope/pvti.*.so >/dev/null 2>&1; then
	bench python-pvti.py - env PYTHONPATH="$build/python" \
		"$(command -v /usr/bin/python3 || command -v python3)" tests/bench/python-pvti.py
fi
echo "# viewport queries on a ${spans}-span trace" >&2
bench bench-trace-viewport - "$build/tests/bench/bench-trace-viewport" "$spans"
echo "# statistics of half a ${spans}-span trace over 64 threads" >&2
bench bench-trace-stats - "$build/tests/bench/bench-trace-stats" "$spans" 64
echo "# Chrome trace-event JSON import (a synthetic PyTorch-shaped file)" >&2
bench bench-chrome-import - "$build/tests/bench/bench-chrome-import"
echo "# graph profile JSON export of the sample reports, and the JSON writer under it" >&2
bench bench-export - "$build/tests/bench/bench-export" sample-reports/tut5_ml \
	sample-reports/tut7_mk1
echo "# the history store: 10,000 runs x 500 metrics, grown by add" >&2
bench bench-history - "$build/tests/bench/bench-history" sample-reports/tut7_mk1 10000 500 \
	"$build/cli-summary/tilescope" sample-reports/tut5_ml/tut5_ml.pvti
echo "# history changes over 10,000 commits x 500 metrics (the analysis, not the reads)" >&2
bench bench-history-changes - "$build/tests/bench/bench-history-changes"

# --- 6. The chart kit: snapshots of a 5,888-tile chart over a zoom sweep -------
# Only when the GTK kit was built (meson option gui); it needs a display.
if [ -x "$build/tests/bench/bench-chartkit" ]; then
	echo "# chart kit: 200 snapshots of 5,888 tiles x 25 regions over a zoom/pan sweep" >&2
	bench bench-chartkit "$tmp/chartkit.err" on_display "$build/tests/bench/bench-chartkit"
fi
fi # [ $apps -eq 0 ]

# --- 7. The Graph Analyser on the large model's own report -----------------
# Issue 29's figures: launch to Summary, each view's first paint, the
# Operations layer switch's worst case, peak RSS after every view (ga.*),
# on the large model's report with its execution profile; then the same
# on the synthetic 4-IPU report of bench-report-open (ga.synth.*).
if [ -x "$build/tests/bench/bench-graph-analyser" ]; then
	large_report
	echo "# Graph Analyser on the large model's report ($large)" >&2
	bench bench-graph-analyser "$tmp/ga.err" on_display "$build/tests/bench/bench-graph-analyser" "$large"
	echo "# Graph Analyser on the synthetic large report" >&2
	mkdir -p "$tmp/ga-report"
	"$build/tests/bench/bench-report-open" --write "$tmp/ga-report/profile.pop" ||
		fail "writing the large report failed"
	bench "bench-graph-analyser (synthetic report)" "$tmp/ga-synth.err" \
		on_display "$build/tests/bench/bench-graph-analyser" "$tmp/ga-report" | sed 's/^ga\./ga.synth./'
fi

# --- 8. The System Analyser on a large trace ----------------------------------
# It writes its own trace ($sa_spans spans over 64 threads) with the pvti API.
if [ -x "$build/tests/bench/bench-system-analyser" ]; then
	echo "# System Analyser: open to first paint, timeline sweep, statistics on $sa_spans spans" >&2
	bench bench-system-analyser "$tmp/sa.err" on_display "$build/tests/bench/bench-system-analyser" "$sa_spans"
fi
# Its search (no display needed): $sa_spans spans over 64 threads, written
# by the benchmark itself; the answers are checked against tsr_trace_search.
if [ -x "$build/tests/bench/bench-system-analyser-search" ]; then
	echo "# System Analyser: search on $sa_spans spans" >&2
	bench bench-system-analyser-search "$tmp/sa-search.err" \
		"$build/tests/bench/bench-system-analyser-search" "$sa_spans"
fi
if [ -s "$tmp/failed" ]; then
	echo "run.sh: $(wc -l <"$tmp/failed") benchmark(s) failed: $(paste -sd, "$tmp/failed")" >&2
	exit 1
fi
