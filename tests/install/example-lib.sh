# What check-install.sh and check-uninstalled.sh share: building
# example.c with pkg-config's flags and checking what it prints.
# Sourced after fail() and pass() are defined, with $tmp, $src, $report
# and $version set.

# build_example FLAGS: builds $tmp/example, or fails and exits.
build_example() {
	if ! ${CC:-cc} -o "$tmp/example" "$src/tests/install/example.c" $1 2>"$tmp/cc.log"; then
		cat "$tmp/cc.log"
		fail "the example does not build with pkg-config's flags: $1"
		exit 1
	fi
}

# run_example LIBRARY_PATH WHERE: runs it on $report with the libraries of
# LIBRARY_PATH, checks its three lines, and that every tilescope library
# it loads is under WHERE.
run_example() {
	out=$(LD_LIBRARY_PATH="$1" "$tmp/example" "$report") || fail "the example failed: $out"
	echo "$out"
	echo "$out" | grep -qx "version $version" || fail "the version header does not say $version"
	echo "$out" | grep -qx "report tiles [1-9][0-9]*" || fail "reportlib read no target"
	echo "$out" | grep -qx "runtime tiles 1472" || fail "the runtime's Mk2 target is not 1472 tiles"
	LD_LIBRARY_PATH="$1" ldd "$tmp/example" | grep tilescope | grep -vq "$2" &&
		fail "the example loads libraries from outside $2"
}
