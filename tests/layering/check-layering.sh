#!/bin/sh
# The layering of ../shared/DESIGN.md, checked on what the build made:
#   1. `tilescope` and libtilescope-report load no runtime library (ldd);
#   2. with PVTI_OPTIONS set, `tilescope summary` and `tilescope trace`
#      write no trace anywhere (they do not carry the tracer);
#   3. each shared library exports only its own prefix (nm -D);
#   4. the vocabulary of the formats (memory categories, sync kinds) is
#      spelled in db-schema/'s one table alone, outside comments and tests;
#   5. the ground floor stands on nothing above it: no file of db-schema/
#      or base/ includes a header of the runtime, the tracer or reportlib,
#      and their meson.build files take no include directory from them.
# usage: check-layering.sh SOURCE_ROOT TILESCOPE LIBREPORT LIBINSTRUMENT LIBPVTI LIBBASE SAMPLE_DIR
src=$1 ts=$2 libreport=$3 libinstrument=$4 libpvti=$5 libbase=$6 samples=$7
. "$src/tests/cli/cli-test-lib.sh"
ts=$(absolute "$ts")
libreport=$(absolute "$libreport")
libinstrument=$(absolute "$libinstrument")
libpvti=$(absolute "$libpvti")
libbase=$(absolute "$libbase")
samples=$(absolute "$samples")
enter_tmp

# 1. What the command and the reader load.
for bin in "$ts" "$libreport"; do
	if ldd "$bin" | grep -Eq 'libtilescope-(instrument|pvti)'; then
		fail "$(basename "$bin") loads the simulator: $(ldd "$bin" | grep tilescope | tr -s ' \t' ' ')"
	else
		pass "$(basename "$bin") loads neither the runtime nor the tracer"
	fi
done

# 2. No self-tracing: a trace directory, and the working directory, stay
# empty of .pvti files whatever the command reads.
mkdir traces work
(
	cd work || exit 1
	export PVTI_OPTIONS="{\"enable\":\"true\",\"directory\":\"$tmp/traces\"}"
	"$ts" summary "$samples/tut4_profiling" >summary.txt 2>&1 || echo "summary failed" >>errors
	"$ts" trace "$samples/tut5_ml" >trace.txt 2>&1 || echo "trace failed" >>errors
)
if [ -s work/errors ]; then
	fail "the commands failed under PVTI_OPTIONS: $(cat work/errors)"
fi
found=$(find "$tmp" -name '*.pvti' | head -n 3)
if [ -n "$found" ]; then
	fail "tilescope wrote traces of itself: $found"
elif ! grep -q 'Memory Usage' work/summary.txt; then
	fail "tilescope summary printed no summary under PVTI_OPTIONS"
else
	pass "tilescope summary and trace write no trace under PVTI_OPTIONS"
fi

# 3. Exported symbols: defined (type T, D, B, R ...) dynamic symbols only,
# each library its own prefix (the runtime and its error/log helpers
# share tsi_; base adds its allocator, tsb_).
exports() { nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | grep -v '^_'; }
check_exports() { # LIBRARY PREFIX MIN
	bad=$(exports "$1" | grep -v "^$2" | head -n 5)
	count=$(exports "$1" | grep -c "^$2")
	if [ -n "$bad" ]; then
		fail "$(basename "$1") exports others than $2: $(echo $bad)"
	elif [ "$count" -lt "$3" ]; then
		fail "$(basename "$1"): only $count $2 exports read (nm -D failed?)"
	else
		pass "$(basename "$1") exports $count symbols, all $2"
	fi
}
check_exports "$libreport" tsr_ 50
check_exports "$libinstrument" tsi_ 100
check_exports "$libpvti" pvti_ 20
check_exports "$libbase" "ts[ib]_" 5

# 4. The vocabulary's one home. String literals of a few categories, of
# the sync kinds and of the IPU versions and their target names, outside
# comment lines, in the libraries and the command.
cd "$src" || exit 1
words='"controlCode"|"vertexInstanceState"|"internalExchangeCode"|"Internal"|"External"|"Global"|"Mk1"|"Mk2"|"ipu1"|"ipu2"'
# Comments are taken off each line first: a same-line /* ... */, a line
# inside a block comment (" * ..."), and // to the end.
hits=$(grep -rEn --include='*.c' --include='*.h' --include='*.def' "$words" instrument reportlib cli-summary db-schema |
	sed -E 's#/\*([^*]|\*+[^*/])*\*+/##g; s#//.*$##' |
	grep -Ev '^[^:]*:[0-9]+:[[:space:]]*(\*|/\*)' | grep -E "$words" | cut -d: -f1 | sort -u)
if [ "$hits" = "db-schema/include/tilescope/vocabulary.def" ]; then
	pass "memory categories, sync kinds and IPU versions are spelled in db-schema's vocabulary.def only"
else
	fail "the vocabulary is spelled in: $(echo $hits)"
fi

# 5. No include runs up from the ground floor. Each #include of a file
# under db-schema/ or base/ is resolved as the compiler would: beside the
# file, then in the floor's own include directories. One that does not
# resolve there but names a header of the runtime (instrument/), the
# tracer (pvti/) or reportlib/ (their public tilescope/X.h, or a private
# header of theirs by name) runs upward. A system header resolves nowhere
# here and names none of theirs.
upper_public=$(cd "$src" && ls instrument/include/tilescope/*.h pvti/include/tilescope/*.h \
	reportlib/include/tilescope/*.h 2>/dev/null | sed 's#.*/include/##')
upper_private=$(cd "$src" && find instrument/src pvti/src reportlib/src -name '*.h' 2>/dev/null |
	sed 's#.*/##' | sort -u)
up=""
for f in $(find db-schema base -type f \( -name '*.h' -o -name '*.c' -o -name '*.def' -o -name '*.in' \) | sort); do
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$f"); do
		found=""
		for d in "$dir" db-schema db-schema/include base/include; do
			if [ -f "$d/$inc" ]; then
				found=$d
				break
			fi
		done
		[ -n "$found" ] && continue
		if printf '%s\n' $upper_public | grep -qxF "$inc" ||
			printf '%s\n' $upper_private | grep -qxF "$(basename "$inc")"; then
			up="$up $f:$inc"
		fi
	done
done
dirs=$(grep -n "include_directories" db-schema/meson.build base/meson.build |
	grep -E "\.\./(instrument|pvti|reportlib)" | cut -d: -f1,2 | tr '\n' ' ')
if [ -n "$up" ]; then
	fail "db-schema/ or base/ includes a header of a floor above it:$up"
elif [ -n "$dirs" ]; then
	fail "db-schema/ or base/ builds with an include directory of a floor above it: $dirs"
else
	pass "no file of db-schema/ or base/ includes the runtime, the tracer or reportlib"
fi

# 6. The utilities' one home (issue 27.2): thousands grouping, JSON string
# escaping, UTF-8 decoding and axis ticks (issue 31.4) are written in
# base/ alone, and every other library and app calls tsb_format_*,
# tsb_json_*, tsb_utf8_* and tsb_axis_*. Their telltales: digits grouped
# by "% 3 == 0", a hand-made \u escape, a UTF-8 lead-byte range test, a
# tick's decade as floor(log10(...)).
copies=$(grep -rlF --include='*.c' --include='*.h' -e '% 3 == 0' -e '\\u%04x' -e '\\u00"' \
	-e '>= 0xc2' -e '>= 0xC2' -e 'floor(log10(' instrument pvti db-schema reportlib cli-summary \
	chartkit desktop graph-analyser system-analyser 2>/dev/null | sort -u)
if [ -n "$copies" ]; then
	fail "grouping, JSON escaping, UTF-8 decoding or axis ticks written again outside base/: $(echo $copies)"
else
	pass "grouping, JSON escaping, UTF-8 decoding and axis ticks are base's only"
fi

[ $status -eq 0 ] && echo "layering: all checks passed"
exit $status
