# Shared by the check-cli-*.sh scripts (sourced, not run): a temporary
# working directory removed on exit, PASS / FAIL lines with a running
# status, absolute paths for what meson passes relative to the build
# directory, and the check of an error path.

# Prints the absolute form of path $1.
absolute() {
	case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac
}

# Makes the temporary directory, enters it and arranges its removal.
enter_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-cli.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
	cd "$tmp" || exit 1
}

status=0
fail() { echo "FAIL: $*"; status=1; }
pass() { echo "PASS: $*"; }
# The checks read plain output: no colours, no progress lines.
unset NO_COLOR CLICOLOR CLICOLOR_FORCE
export TILESCOPE_PROGRESS=never

# check_error PATTERN ARG...: `$ts ARG...` must exit 2, print nothing on
# stdout, and its first stderr line must match PATTERN (grep).
check_error() {
	want=$1
	shift
	"$ts" "$@" >stdout.txt 2>stderr.txt
	rc=$?
	first=$(head -n 1 stderr.txt)
	if [ $rc -ne 2 ]; then
		fail "tilescope $* exited $rc, expected 2"
	elif ! printf '%s\n' "$first" | grep -q -- "$want"; then
		fail "tilescope $*: '$first' does not say '$want'"
	elif [ -s stdout.txt ]; then
		fail "tilescope $*: output on stdout"
	else
		pass "tilescope $* -> $first"
	fi
}
