#!/bin/sh
# Each call whose meaning changed was renamed so that code written for the
# old meaning fails to compile (NEWS.md). Every file in old-api/
# is such code: it must fail to compile, and the compiler's message must
# match the file's "expect:" line, an extended regular expression: the
# replacement for a renamed call (its `unavailable` message names it in
# gcc and clang alike), the old member named as missing for a renamed
# field (gcc adds "did you mean" with the new name, clang may not, so the
# snippet's comment names it).
# usage: check-old-api.sh CC SNIPPET_DIR -I DIR...
cc=$1 dir=$2
shift 2
status=0
n=0
for f in "$dir"/*.c; do
	n=$((n + 1))
	want=$(sed -n 's/^ \* expect: \(.*[^ ]\) *\*\/$/\1/p; s/^ \* expect: \(.*[^ ]\) *$/\1/p' "$f" | head -n 1)
	if [ -z "$want" ]; then
		echo "FAIL: $(basename "$f") has no ' * expect: PATTERN' line"
		status=1
		continue
	fi
	if out=$($cc -c -o /dev/null "$f" "$@" 2>&1); then
		echo "FAIL: $(basename "$f") compiles; old code would silently take the new meaning"
		status=1
	elif ! printf '%s\n' "$out" | grep -Eq -- "$want"; then
		printf '%s\n' "$out"
		echo "FAIL: $(basename "$f") fails to compile but the message does not name '$want'"
		status=1
	fi
done
[ $status -eq 0 ] && echo "PASS: $n old-API snippets fail to compile, naming what replaced them"
exit $status
