#!/bin/sh
# -o behaves like the shell's `>` where a user would notice (issue 33,
# item 5), and a write past `ulimit -f` is an error, not a kill (item 8):
#   - /dev/stdout, /dev/fd/1, /proc/self/fd/1 (and a link to /dev/stdout)
#     are the descriptor the shell gave: `{ echo header; tilescope summary
#     -o /dev/stdout rep; } >> log` keeps the header;
#   - a FIFO nobody reads is refused with one line (timeout 60 only guards
#     against the old endless wait); one with a reader gets the output;
#   - a file the user may not write (0444) is refused, as `>` refuses it;
#   - a replaced file keeps its mode and owner; its hard links see the
#     new output (it is written into, not renamed over);
#   - a file the command reads is never written: -o onto profile.pop,
#     debug.cbor, a hard link of one, the trace read, a --limits file, the
#     SQL's file, or standard output redirected onto the report;
#   - `ulimit -f`: exit 2, one line naming the file, no temporary left,
#     the old file as it was.
#
# usage: check-cli-output-safety.sh TILESCOPE SAMPLE_DIR
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-output-safety.sh TILESCOPE SAMPLE_DIR" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
enter_tmp
# Another user (root runs the checks as nobody) reads the inputs here.
chmod 755 "$tmp"
cp -r "$samples/tut4_profiling" rep
cp "$samples/tut5_ml/tut5_ml.pvti" trace.pvti
"$ts" summary rep >plain.txt 2>err.txt || fail "summary exited $?: $(cat err.txt)"
[ -s plain.txt ] || fail "summary printed nothing"
cp rep/profile.pop profile.orig
cp rep/debug.cbor debug.orig

# one_line FILE WHAT: FILE holds exactly one line, which matches WHAT.
one_line() {
	if [ "$(wc -l <"$1")" -ne 1 ]; then
		fail "$2: not one line on stderr: $(cat "$1")"
	elif ! grep -q -- "$2" "$1"; then
		fail "'$(cat "$1")' does not say '$2'"
	else
		pass "$(cat "$1")"
	fi
}

# --- Descriptors ----------------------------------------------------------------
for target in /dev/stdout /dev/fd/1 /proc/self/fd/1 mystdout; do
	[ "$target" = mystdout ] && ln -s /dev/stdout mystdout
	[ "$target" = /proc/self/fd/1 ] && [ ! -e /proc/self/fd/1 ] && continue
	rm -f log
	{ echo header; "$ts" summary -o "$target" rep; echo footer; } >>log 2>err.txt ||
		fail "-o $target exited: $(cat err.txt)"
	{ echo header; cat plain.txt; echo footer; } >want.txt
	if cmp -s log want.txt; then
		pass "-o $target appends where the shell's >> points"
	else
		fail "-o $target: the log is not header, summary, footer ($(head -n 1 log))"
	fi
	[ -L log ] || [ -f log ] || fail "-o $target: the log is no longer a file"
done

# --- FIFOs ------------------------------------------------------------------------
mkfifo fifo
timeout 60 "$ts" summary -o fifo rep >out.txt 2>err.txt
rc=$?
if [ $rc -eq 124 ]; then
	fail "-o onto a FIFO without a reader still waits for one"
else
	[ $rc -eq 2 ] || fail "-o onto a FIFO without a reader exited $rc"
	one_line err.txt 'fifo: cannot write: no process is reading this FIFO'
fi
[ -p fifo ] || fail "the FIFO was replaced"
# A reader (this shell holds it open for reading and writing, so no
# reader has to start in time): the summary goes through it whole.
exec 3<>fifo
timeout 60 "$ts" summary -o fifo rep 2>err.txt || fail "-o onto a read FIFO exited $?: $(cat err.txt)"
size=$(wc -c <plain.txt)
timeout 60 head -c "$size" <&3 >through.txt
exec 3<&-
cmp -s through.txt plain.txt && pass "a FIFO with a reader gets the summary" ||
	fail "what came through the FIFO differs from the summary"

# --- Permissions, owner, links -------------------------------------------------------
echo old >ro.txt
chmod 444 ro.txt
if [ "$(id -u)" -eq 0 ]; then
	# Root writes anything, with `>` too: the refusal is a user's.
	chmod 777 "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ts" summary -o ro.txt rep 2>err.txt
	rc=$?
	chmod 755 "$tmp"
else
	"$ts" summary -o ro.txt rep 2>err.txt
	rc=$?
fi
[ $rc -eq 2 ] || fail "-o onto a 0444 file exited $rc"
one_line err.txt 'ro.txt: cannot write: Permission denied'
[ "$(cat ro.txt)" = old ] || fail "the 0444 file was replaced"
[ "$(stat -c %a ro.txt)" = 444 ] || fail "the 0444 file's mode changed"

echo old >mode.txt
chmod 640 mode.txt
"$ts" summary -o mode.txt rep 2>err.txt || fail "-o onto a 0640 file exited $?: $(cat err.txt)"
cmp -s mode.txt plain.txt || fail "-o onto a 0640 file: wrong content"
[ "$(stat -c %a mode.txt)" = 640 ] && pass "a replaced file keeps its mode" ||
	fail "the mode became $(stat -c %a mode.txt)"
if [ "$(id -u)" -eq 0 ]; then
	echo old >owned.txt
	chown 65534:65534 owned.txt
	"$ts" summary -o owned.txt rep 2>err.txt || fail "-o onto nobody's file exited $?"
	cmp -s owned.txt plain.txt || fail "-o onto nobody's file: wrong content"
	[ "$(stat -c %u:%g owned.txt)" = 65534:65534 ] && pass "a replaced file keeps its owner" ||
		fail "root's -o made nobody's file $(stat -c %U:%G owned.txt)'s"
	# nobody replacing root's 0666 file in a directory it may write: a new
	# file would be nobody's, so the output goes into the old one.
	mkdir shared
	chmod 777 shared
	echo old >shared/roots.txt
	chmod 666 shared/roots.txt
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ts" summary -o shared/roots.txt rep \
		2>err.txt || fail "nobody's -o onto root's 0666 file exited $?: $(cat err.txt)"
	cmp -s shared/roots.txt plain.txt || fail "nobody's -o onto root's file: wrong content"
	[ "$(stat -c %u shared/roots.txt)" = 0 ] && pass "a file another user owns stays theirs" ||
		fail "nobody's -o gave root's file away"
	ls -A shared | grep -q tmp && fail "a temporary was left in shared/"
fi

echo old >linked.txt
ln linked.txt other-name.txt
inode=$(stat -c %i linked.txt)
"$ts" summary -o linked.txt rep 2>err.txt || fail "-o onto a hard-linked file exited $?"
cmp -s other-name.txt plain.txt && pass "a hard link sees the new output" ||
	fail "the other hard link kept the old bytes"
[ "$(stat -c %i linked.txt)" = "$inode" ] || fail "the hard-linked file was replaced by a new one"
[ "$(stat -c %h linked.txt)" = 2 ] || fail "the hard link was broken"

# --- Inputs ----------------------------------------------------------------------------
check_input() {
	want=$1
	shift
	"$ts" "$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq 2 ] || fail "tilescope $* exited $rc"
	one_line err.txt "$want"
}
ln rep/profile.pop hardlink.pop
echo '{"max_cycles_increase": 5}' >lim.json
cp lim.json lim.orig
cp trace.pvti trace.orig
check_input 'rep/profile.pop: not written: this command reads it' summary -o rep/profile.pop rep
check_input 'rep/debug.cbor: not written' summary --show-operations -o rep/debug.cbor rep
check_input 'hardlink.pop: not written: it is .*rep/profile.pop' export --graph-profile \
	-o hardlink.pop rep
check_input 'rep/profile.pop: not written' diff -o rep/profile.pop rep "$samples/tut4_profiling"
check_input 'lim.json: not written' diff --limits lim.json -o lim.json rep rep
check_input 'rep/profile.pop: not written' sql rep 'SELECT 1' -o rep/profile.pop
check_input 'trace.pvti: not written' trace -o trace.pvti trace.pvti
check_input 'trace.pvti: not written' export --chrome-trace -o trace.pvti .
"$ts" summary rep >>rep/profile.pop 2>err.txt
[ $? -eq 2 ] || fail "summary >> rep/profile.pop did not refuse"
one_line err.txt 'standard output: not written: it is .*profile.pop'
cmp -s rep/profile.pop profile.orig && cmp -s rep/debug.cbor debug.orig &&
	cmp -s lim.json lim.orig && cmp -s trace.pvti trace.orig &&
	pass "no input was changed" || fail "an input was overwritten"

# --- ulimit -f ---------------------------------------------------------------------------
# The graph profile is 1.3 MB; 200 blocks are 100 or 200 KB (the shell's
# block). The old file stays, no temporary is left.
echo old >big.json
(ulimit -f 200 && exec "$ts" export --graph-profile -o big.json rep) 2>err.txt
rc=$?
[ $rc -eq 2 ] || fail "a write past ulimit -f exited $rc (153: killed by SIGXFSZ)"
one_line err.txt 'big.json: write failed: File too large'
[ "$(cat big.json)" = old ] || fail "big.json was changed"
ls -A | grep -q '\.tmp\.' && fail "a temporary was left: $(ls -A | grep '\.tmp\.')"
(ulimit -f 200 && exec "$ts" export --graph-profile rep) >stdout.json 2>err.txt
rc=$?
[ $rc -eq 2 ] || fail "a redirected write past ulimit -f exited $rc"
one_line err.txt 'standard output: write failed: File too large'

exit $status
