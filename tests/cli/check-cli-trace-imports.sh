#!/bin/sh
# What `tilescope trace` and `export --chrome-trace` say about the files
# they read (issue 33, items 6 and 9):
#   - a Chrome JSON import that skipped events says so, one line per kind
#     on stderr ("9,750 events skipped: nested past 250 levels"), where
#     the statistics alone showed 250 spans for a file of 10,000; a
#     complete import says nothing;
#   - a JSON file with more than 512 bytes of leading white space is JSON;
#   - a byte for byte copy of a trace (beside it, or in a directory) is
#     read once (by reportlib, so the apps agree), and a line names a copy given by name.
#
# usage: check-cli-trace-imports.sh TILESCOPE SAMPLE_DIR
set -u
. "$(dirname "$0")/cli-test-lib.sh"
[ $# -eq 2 ] || { echo "usage: check-cli-trace-imports.sh TILESCOPE SAMPLE_DIR" >&2; exit 2; }
ts=$(absolute "$1")
samples=$(absolute "$2")
enter_tmp

# 10,000 X spans each inside the previous, a B never ended, an X of
# negative dur and two async events.
awk 'BEGIN {
	printf "["
	for (i = 0; i < 10000; i++)
		printf "{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n", i, 100000 - 2 * i
	printf "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":2,\"ts\":3},\n"
	printf "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":3,\"ts\":3,\"dur\":-1},\n"
	printf "{\"ph\":\"b\",\"name\":\"a\",\"id\":1,\"pid\":1,\"tid\":3,\"ts\":3},\n"
	printf "{\"ph\":\"b\",\"name\":\"a\",\"id\":2,\"pid\":1,\"tid\":3,\"ts\":4}]\n"
}' >deep.json

cat >want-skips.txt <<'EOF'
tilescope: deep.json: 9,750 events skipped: nested past 250 levels
tilescope: deep.json: 1 event skipped: begun (B) and never ended
tilescope: deep.json: 1 event skipped: a negative duration, or an end before the begin
tilescope: deep.json: 2 events skipped: phases not read (b)
EOF
"$ts" trace --json deep.json >deep-trace.json 2>err.txt || fail "trace deep.json exited $?"
grep -q '"spans":[[:space:]]*250' deep-trace.json || fail "trace deep.json did not keep 250 spans"
cmp -s err.txt want-skips.txt && pass "trace says what the import skipped" ||
	fail "trace deep.json said: $(cat err.txt)"
"$ts" trace --compare deep.json deep.json >/dev/null 2>err.txt || fail "trace --compare exited $?"
grep -q 'nested past 250 levels' err.txt || fail "trace --compare did not say what was skipped"
"$ts" export --chrome-trace -o out.json deep.json 2>err.txt || fail "export deep.json exited $?"
cmp -s err.txt want-skips.txt && pass "export says what the import skipped" ||
	fail "export deep.json said: $(cat err.txt)"
# The export holds what was kept, and reads back without a skip.
"$ts" trace out.json >/dev/null 2>err.txt || fail "trace of the export exited $?"
[ -s err.txt ] && fail "the export's import skipped: $(cat err.txt)"
# A .pvti says nothing.
"$ts" trace "$samples/tut5_ml/tut5_ml.pvti" >/dev/null 2>err.txt || fail "trace .pvti exited $?"
[ -s err.txt ] && fail "trace of a .pvti wrote on stderr: $(cat err.txt)"

# --- Leading white space ------------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 2000; i++) printf (i % 3 ? " " : "\n") }' >spaced.json
cat out.json >>spaced.json
"$ts" trace --json spaced.json >spaced-trace.json 2>err.txt &&
	grep -q '"spans":[[:space:]]*250' spaced-trace.json &&
	pass "2,000 bytes of white space before the JSON: read as JSON" ||
	fail "spaced.json: $(cat err.txt)"

# --- Copies ----------------------------------------------------------------------------
cp "$samples/tut5_ml/tut5_ml.pvti" a.pvti
cp a.pvti b.pvti
"$ts" trace --json a.pvti >one.json 2>err.txt || fail "trace a.pvti exited $?"
"$ts" trace --json a.pvti b.pvti >two.json 2>err.txt || fail "trace a.pvti b.pvti exited $?"
grep -q '"files":[[:space:]]*1,' two.json && pass "a copy is not a second process" ||
	fail "a byte for byte copy was counted as another process"
sed 's/"path":[[:space:]]*"[^"]*"/"path": ""/' one.json >one-paths.json
sed 's/"path":[[:space:]]*"[^"]*"/"path": ""/' two.json >two-paths.json
cmp -s one-paths.json two-paths.json || fail "a trace and its copy do not read as the trace"
grep -q 'b.pvti: the same trace as another file given: read once' err.txt &&
	[ "$(wc -l <err.txt)" -eq 1 ] && pass "$(cat err.txt)" || fail "the copy was not named: $(cat err.txt)"
mkdir copies
cp a.pvti copies/run1.pvti
cp a.pvti copies/run2.pvti
"$ts" trace --json copies >dir.json 2>err.txt || fail "trace of a directory of copies exited $?"
grep -q '"files":[[:space:]]*1,' dir.json || fail "a directory of two copies read as two processes"
"$ts" export --chrome-trace a.pvti >one-export.json 2>/dev/null
"$ts" export --chrome-trace a.pvti b.pvti >two-export.json 2>/dev/null
cmp -s one-export.json two-export.json || fail "the export of a trace and its copy differs"
# Two different traces stay two.
"$ts" trace --json a.pvti deep.json >mixed.json 2>/dev/null
grep -q '"files":[[:space:]]*2,' mixed.json || fail "two different traces were not two processes"

exit $status
