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
if ! ${CC:-cc} -o "$tmp/example" "$src/tests/install/example.c" $flags 2>"$tmp/cc.log"; then
	cat "$tmp/cc.log"
	fail "the example does not build with the build tree's pkg-config flags: $flags"
	exit 1
fi
# The libraries are where pkg-config's -L flags point.
libpath=$(pkg-config --libs-only-L tilescope-report tilescope-instrument tilescope-pvti tilescope-base |
	tr ' ' '\n' | sed -n 's/^-L//p' | tr '\n' ':')
out=$(LD_LIBRARY_PATH="$libpath" "$tmp/example" "$report") || fail "the example failed: $out"
echo "$out"
echo "$out" | grep -qx "version $version" || fail "the version header does not say $version"
echo "$out" | grep -qx "report tiles [1-9][0-9]*" || fail "reportlib read no target"
echo "$out" | grep -qx "runtime tiles 1472" || fail "the runtime's Mk2 target is not 1472 tiles"
LD_LIBRARY_PATH="$libpath" ldd "$tmp/example" | grep tilescope | grep -vq "$build" &&
	fail "the example loads libraries from outside the build tree"
[ $status -eq 0 ] && pass "a program builds and runs with the build tree's pkg-config files"
exit $status
