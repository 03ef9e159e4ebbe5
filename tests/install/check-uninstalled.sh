#!/bin/sh
# The build tree's pkg-config files (meson-uninstalled/) build a program
# against the libraries without installing them (issue 27): the same
# example as check-install.sh, with its headers and libraries taken from
# the source and build trees, run on a sample report.
# usage: check-uninstalled.sh BUILD_DIR SOURCE_DIR SAMPLE_REPORT VERSION
build=$1 src=$2 report=$3 version=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-uninstalled.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
pass() { echo "PASS: $*"; }

export PKG_CONFIG_PATH="$build/meson-uninstalled"
for pc in tilescope-base tilescope-pvti tilescope-report tilescope-instrument; do
	[ -f "$PKG_CONFIG_PATH/$pc-uninstalled.pc" ] || fail "no $pc-uninstalled.pc in $PKG_CONFIG_PATH"
done
flags=$(pkg-config --cflags --libs tilescope-report tilescope-instrument) ||
	{ fail "pkg-config does not know the uninstalled libraries"; exit 1; }
. "$src/tests/install/example-lib.sh"
build_example "$flags"
# The libraries are where pkg-config's -L flags point, in the build tree.
libpath=$(pkg-config --libs-only-L tilescope-report tilescope-instrument tilescope-pvti tilescope-base |
	tr ' ' '\n' | sed -n 's/^-L//p' | tr '\n' ':')
run_example "$libpath" "$build"
[ $status -eq 0 ] && pass "a program builds and runs with the build tree's pkg-config files"
exit $status
