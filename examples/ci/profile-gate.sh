#!/bin/sh
# The work of the CI examples beside this script (github-actions.yml,
# gitlab-ci.yml): build the model, profile it with autoReport, and compare
# its report with the base branch's through `tilescope diff`, writing each
# format a CI system shows. The workflows only fetch, upload and comment,
# so what CI runs is this script, which tests/docs/check-ci-examples.py
# runs on the sample reports. docs/ci.md is the cookbook.
#
# usage: profile-gate.sh build SRC BUILD
#        profile-gate.sh profile BUILD REPORT
#        profile-gate.sh base REF SRC BUILD REPORT
#        profile-gate.sh diff [--limits FILE] BASE NEW OUT
#
#   build    configure SRC into BUILD with meson (once) and build the
#            tilescope command and the model
#   profile  run the model built in BUILD with autoReport into REPORT
#            (replaced): REPORT/profile.pop and REPORT/debug.cbor
#   base     build and profile commit REF of the git checkout SRC (in a
#            worktree of its own, removed after) into BUILD and REPORT: the
#            base report when no base pipeline left one
#   diff     tilescope diff BASE NEW into OUT: diff.txt (also printed),
#            diff.md, junit.xml, diff.html, metrics.txt (OpenMetrics) and
#            summary.html (NEW's summary page); --limits FILE is the
#            JSON limits file of `tilescope diff --limits`
#
# Environment:
#   MODEL       the model's executable, relative to BUILD, also its ninja
#               target (default instrument/examples/tut7_matrix_vector_opt)
#   MODEL_ARGS  its arguments, split at spaces (when unset: --ipu mk1 2000 1000)
#   TILESCOPE   the tilescope command (default: tilescope on the PATH)
#
# Exit status: diff's, 0 within every limit, 1 a limit exceeded, 2 an
# error; the other commands 0 done, 2 an error.
set -eu

MODEL=${MODEL:-instrument/examples/tut7_matrix_vector_opt}
MODEL_ARGS=${MODEL_ARGS---ipu mk1 2000 1000}
TILESCOPE=${TILESCOPE:-tilescope}

# usage [STATUS]: the usage lines of the comment above, on stderr and
# status 2 for a bad command line, on stdout for --help.
usage() {
	if [ "${1:-2}" -eq 0 ]; then
		usage_lines
	else
		usage_lines >&2
	fi
	exit "${1:-2}"
}

usage_lines() {
	sed -n 's/^# usage: /usage: /p; s/^#        profile-gate/       profile-gate/p' "$0"
}

die() {
	echo "profile-gate.sh: $*" >&2
	exit 2
}

build() {
	[ -f "$2/build.ninja" ] || meson setup "$2" "$1" -Dbuildtype=release -Dtests=false ||
		die "meson setup $2 failed"
	ninja -C "$2" cli-summary/tilescope "$MODEL" || die "building $MODEL in $2 failed"
}

profile() {
	# The path goes into a JSON string unescaped.
	case $2 in *'"'* | *\\*) die "$2: a report directory with '\"' or '\\' in its name" ;; esac
	[ -x "$1/$MODEL" ] || die "$1/$MODEL: no such model (build it first)"
	# Replaces a report, never another directory given by mistake.
	if [ -e "$2" ] && [ ! -f "$2/profile.pop" ] && ! rmdir "$2" 2>/dev/null; then
		die "$2 is there and holds no profile.pop: not replacing it"
	fi
	rm -rf "$2"
	# shellcheck disable=SC2086 # MODEL_ARGS is a list of words
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$2\"}" \
		"$1/$MODEL" $MODEL_ARGS || die "$1/$MODEL $MODEL_ARGS failed"
	[ -f "$2/profile.pop" ] || die "$1/$MODEL wrote no $2/profile.pop"
}

base() {
	ref=$1 src=$2
	tree=$(mktemp -d "${TMPDIR:-/tmp}/profile-gate.XXXXXX")
	git -C "$src" worktree add --quiet --detach "$tree/src" "$ref" >/dev/null ||
		{ rm -rf "$tree"; die "$ref: no such commit in $src"; }
	rc=0
	(build "$tree/src" "$3" && profile "$3" "$4") || rc=$?
	git -C "$src" worktree remove --force "$tree/src"
	rm -rf "$tree"
	return $rc
}

# One more run of tilescope diff $base $new with the options after $1,
# into $out/$1: its stderr repeats the text run's, so it is shown only
# when its status is not the text's ($rc).
diff_to() {
	file=$1
	shift
	set +e
	"$TILESCOPE" diff "$@" ${limits:+"--limits=$limits"} "$base" "$new" -o "$out/$file" \
		2>"$out/stderr.txt"
	got=$?
	set -e
	if [ $got -ne "$rc" ]; then
		cat "$out/stderr.txt" >&2
		die "tilescope diff $* exited $got where the text output exited $rc"
	fi
	rm -f "$out/stderr.txt"
}

diff_all() {
	limits=""
	if [ "${1:-}" = --limits ]; then
		[ $# -ge 2 ] || usage
		[ -f "$2" ] || die "$2: no such limits file"
		limits=$2
		shift 2
	fi
	[ $# -eq 3 ] || usage
	base=$1 new=$2 out=$3
	mkdir -p "$out" || die "cannot make $out"
	set +e
	"$TILESCOPE" diff ${limits:+"--limits=$limits"} "$base" "$new" -o "$out/diff.txt"
	rc=$?
	set -e
	# 2: tilescope said why, in one line.
	[ $rc -le 2 ] || die "$TILESCOPE diff $base $new failed (exit $rc)"
	[ $rc -le 1 ] || exit 2
	cat "$out/diff.txt" 2>/dev/null || die "tilescope diff $base $new wrote no $out/diff.txt"
	for pair in markdown:diff.md junit:junit.xml html:diff.html openmetrics:metrics.txt; do
		diff_to "${pair#*:}" --format="${pair%%:*}"
	done
	"$TILESCOPE" summary --format=html -o "$out/summary.html" "$new" ||
		die "tilescope summary --format=html $new failed"
	exit $rc
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
build) [ $# -eq 2 ] || usage; build "$@" ;;
profile) [ $# -eq 2 ] || usage; profile "$@" ;;
base) [ $# -eq 4 ] || usage; base "$@" ;;
diff) diff_all "$@" ;;
-h | --help) usage 0 ;;
*) echo "profile-gate.sh: unknown command '$cmd'" >&2; usage ;;
esac
