#!/bin/sh
# `meson install --destdir` of this build, then an example program built
# outside the tree with `pkg-config --cflags --libs tilescope-report
# tilescope-instrument` only, run on a sample report.
# usage: check-install.sh BUILD_DIR SOURCE_DIR SAMPLE_REPORT VERSION
build=$1 src=$2 report=$3 version=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilescope-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM # a meson timeout too: the EXIT trap still runs
status=0
fail() { echo "FAIL: $*"; status=1; }
pass() { echo "PASS: $*"; }

if ! meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	fail "meson install --destdir failed"
	exit 1
fi
pcdir=$(dirname "$(find "$tmp/root" -name tilescope-report.pc | head -n 1)")
[ -f "$pcdir/tilescope-instrument.pc" ] || fail "no tilescope-instrument.pc installed"
export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
flags=$(pkg-config --cflags --libs tilescope-report tilescope-instrument) ||
	{ fail "pkg-config does not know the libraries"; exit 1; }
# Each library installs only its own headers (and no build file).
inc=$(find "$tmp/root" -type d -path "*/include/tilescope" | head -n 1)/..
for h in format.h vocabulary.h event-chunk.h tile-runs.h leb128.h report-private.h ipu-private.h meson.build; do
	[ -e "$inc/tilescope/$h" ] && fail "a private header was installed: $h"
done
. "$src/tests/install/example-lib.sh"
build_example "$flags"
# The example must run on the installed libraries, not the build's.
run_example "$(dirname "$pcdir")" "$tmp/root"
[ $status -eq 0 ] && pass "an out-of-tree program builds with pkg-config and runs"
exit $status
