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

# The man pages and the shell completions, where man and bash-completion
# look for them; each page renders without a warning.
man1=$(find "$tmp/root" -type d -path "*/share/man/man1" | head -n 1)
share=${man1%/man/man1}
pages="tilescope tilescope-summary tilescope-diff tilescope-trace tilescope-export tilescope-sql"
progs="tilescope"
[ -e "$build/graph-analyser/tilescope-graph-analyser" ] &&
	pages="$pages tilescope-graph-analyser tilescope-system-analyser" &&
	progs="$progs tilescope-graph-analyser tilescope-system-analyser"
for page in $pages; do
	f="$man1/$page.1"
	if [ ! -f "$f" ]; then
		fail "no man page $page.1 installed"
		continue
	fi
	warnings=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
	[ -z "$warnings" ] || fail "$page.1 renders with warnings: $warnings"
	MANWIDTH=80 man -l "$f" 2>"$tmp/man.err" | grep -q "^SYNOPSIS" && [ ! -s "$tmp/man.err" ] ||
		fail "man -l $page.1 does not show a SYNOPSIS quietly: $(cat "$tmp/man.err")"
done
for prog in $progs; do
	[ -f "$share/bash-completion/completions/$prog" ] ||
		fail "no bash completion for $prog in share/bash-completion/completions"
	[ -f "$share/zsh/site-functions/_$prog" ] ||
		fail "no zsh completion for $prog in share/zsh/site-functions"
done
bash -c '. "$1" && complete -p tilescope' sh "$share/bash-completion/completions/tilescope" \
	>/dev/null 2>&1 || fail "the installed bash completion does not register for tilescope"
[ $status -eq 0 ] && pass "man pages render without warnings; completions installed"

# The desktop apps' settings schemas (what they remember), where GSettings
# looks for them; they compile as a real install's post-install step (or a
# package's trigger after --destdir) compiles them, and gsettings then
# reads their keys from the installed tree alone.
if [ -e "$build/graph-analyser/tilescope-graph-analyser" ]; then
	before=$status
	schemas=$share/glib-2.0/schemas
	ids="org.tilescope.GraphAnalyser org.tilescope.SystemAnalyser"
	for id in $ids; do
		[ -f "$schemas/$id.gschema.xml" ] || fail "no $id.gschema.xml in share/glib-2.0/schemas"
	done
	if glib-compile-schemas --strict "$schemas" >"$tmp/schemas.log" 2>&1; then
		for id in $ids; do
			GSETTINGS_BACKEND=memory gsettings --schemadir "$schemas" list-keys "$id" \
				>"$tmp/keys" 2>&1 && grep -qx window-width "$tmp/keys" ||
				fail "gsettings does not read $id from the installed schemas: $(cat "$tmp/keys")"
		done
	else
		fail "the installed schemas do not compile: $(cat "$tmp/schemas.log")"
	fi
	[ $status -eq $before ] && pass "the apps' settings schemas are installed and compile"
fi
exit $status
