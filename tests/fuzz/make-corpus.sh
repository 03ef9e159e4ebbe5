#!/usr/bin/env bash
# Makes the seed corpus of the libFuzzer targets again, in
# tests/fuzz/corpus/<target>/ (and debug-cbor-profile.pop, the valid
# report the debug_cbor target puts beside each input):
#   make-corpus.sh BUILD-DIR
# where BUILD-DIR is a -Dfuzz=true build (it runs its fuzz-make-seeds).
# Reports and traces come from the small models of reportlib's tests,
# vacuumed to 512-byte pages to stay small, then mutated at the SQL
# level the way a hostile or damaged file would be: lying counts,
# dangling ids, program cycles, a view and a trigger in the file, an
# oversize blob, per-tile blobs claiming INT64_MAX bytes or tiles, and
# the like. Needs the sqlite3 command. Every file is rewritten; files
# a campaign merged in (named by their SHA-1) are kept. The chrome_json
# seeds are small hand-written JSON files (and tut5's export) and are not
# made here, but for issue 33's two (skips.json, leading-space.json).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: make-corpus.sh BUILD-DIR (a -Dfuzz=true build)}
seeds_exe=$build/tests/fuzz/fuzz-make-seeds
[ -x "$seeds_exe" ] || { echo "error: $seeds_exe not built" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "error: needs the sqlite3 command" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$seeds_exe" "$tmp"
corpus=$here/corpus
mkdir -p "$corpus"/{report,trace,chrome_json,debug_cbor,engine_options,pvti_options}

# Vacuums a copy of $1 into $2 at 512-byte pages (the smallest SQLite
# allows) so that each seed is tens of KB rather than hundreds.
shrink() {
	cp "$1" "$2"
	sqlite3 "$2" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" >/dev/null
}

# mutant DIR NAME BASE SQL: a copy of BASE changed by SQL, vacuumed.
mutant() {
	local dir=$1 name=$2 base=$3 sql=$4
	cp "$base" "$tmp/m.db"
	sqlite3 "$tmp/m.db" "$sql" >/dev/null
	shrink "$tmp/m.db" "$corpus/$dir/$name"
	rm -f "$tmp/m.db"
}

# --- Reports ---------------------------------------------------------------
r=$tmp/matmul.pop
shrink "$tmp/matmul/profile.pop" "$r"
cp "$r" "$corpus/report/matmul.pop"
shrink "$tmp/oom/profile.pop" "$corpus/report/oom.pop"
cp "$r" "$here/debug-cbor-profile.pop"

# Tile runs (db-schema/tile-runs.c): 0x01, then (gap, count, value) LEB128s.
int64_max_bytes="X'0100' || X'01' || X'FFFFFFFFFFFFFFFF7F'"        # tile 0 holds INT64_MAX
uint64_max_bytes="X'0100' || X'02' || X'FFFFFFFFFFFFFFFFFF01'"     # two tiles of UINT64_MAX
huge_count="X'0100' || X'FFFFFFFFFFFFFFFF7F' || X'05'"             # INT64_MAX tiles of 5
huge_gap="X'01' || X'FFFFFFFFFFFFFFFF7F' || X'0101'"               # a run past every tile
mutant report lying-graph-counts.pop "$r" \
	"UPDATE graph SET num_compute_sets = 9223372036854775807, num_vars = -1, num_vertices = 4294967296;"
mutant report lying-run-counts.pop "$r" \
	"UPDATE run SET num_steps = num_steps * 1000 + 7, trace_length = 9223372036854775807;"
mutant report lying-target.pop "$r" \
	"UPDATE target SET num_ipus = 4294967295, tiles_per_ipu = 65536;"
mutant report variable-int64-max.pop "$r" \
	"UPDATE variable SET bytes_by_tile = $int64_max_bytes WHERE id = (SELECT min(id) FROM variable);"
mutant report per-tile-uint64-max.pop "$r" \
	"UPDATE variable SET bytes_by_tile = $uint64_max_bytes;
	 UPDATE compute_set SET cycles_by_tile = $uint64_max_bytes;"
mutant report per-tile-huge-runs.pop "$r" \
	"UPDATE variable SET bytes_by_tile = CASE id % 2 WHEN 0 THEN $huge_count ELSE $huge_gap END;"
mutant report dangling-ids.pop "$r" \
	"UPDATE program_child SET child = 99999 WHERE position = 0;
	 UPDATE step SET compute_set = 4242 WHERE compute_set IS NOT NULL;
	 UPDATE variable SET debug_context = 77777, name = 123456, live_from = 5000, live_to = 2;
	 UPDATE program_trace SET program = -3;"
mutant report program-cycle.pop "$r" \
	"INSERT INTO program_child (parent, position, child)
	   SELECT child, 1000, parent FROM program_child LIMIT 1;
	 UPDATE program_child SET child = parent
	   WHERE (parent, position) = (SELECT parent, position FROM program_child
	                               WHERE position = 0 ORDER BY parent DESC LIMIT 1);"
mutant report view-and-trigger.pop "$r" \
	"CREATE VIEW fuzz_view AS SELECT load_extension('/nonexistent') AS x;
	 CREATE TRIGGER fuzz_trigger AFTER INSERT ON meta BEGIN
	   SELECT load_extension('/nonexistent');
	 END;
	 ALTER TABLE string RENAME TO string_table;
	 CREATE VIEW string AS SELECT id, text || load_extension('/x') AS value FROM string_table;"
mutant report oversize-blob.pop "$r" \
	"UPDATE variable SET bytes_by_tile = X'01' || zeroblob(20000)
	   WHERE id = (SELECT min(id) FROM variable);
	 UPDATE string SET text = printf('%.*c', 8000, 'x') WHERE id = (SELECT min(id) FROM string);"
mutant report missing-rows.pop "$r" \
	"DELETE FROM target; DELETE FROM step WHERE id % 2 = 1; DELETE FROM tile_memory WHERE tile = 3;"

# --- Traces ------------------------------------------------------------------
t=$tmp/trace-small.pvti
shrink "$tmp/trace.pvti" "$t"
cp "$t" "$corpus/trace/trace.pvti"
mutant trace lying-chunk-counts.pvti "$t" \
	"UPDATE event_chunk SET count = count * 100000 + 1;
	 UPDATE thread SET events = 9223372036854775807;"
mutant trace dangling-ids.pvti "$t" \
	"UPDATE event_chunk SET thread = 999 WHERE id = (SELECT min(id) FROM event_chunk);
	 UPDATE instant SET name = 424242, channel = 77;
	 UPDATE sample SET series = 31337;
	 UPDATE label_stats SET name = name + 1000000;"
mutant trace truncated-chunks.pvti "$t" \
	"UPDATE event_chunk SET data = substr(data, 1, length(data) / 2);"
mutant trace times-backwards.pvti "$t" \
	"UPDATE event_chunk SET first_ns = 9223372036854775807, last_ns = -9223372036854775808;
	 UPDATE instant SET t_ns = -9223372036854775808;
	 UPDATE process SET start_wall_ns = 9223372036854775807;"
mutant trace lod-and-stats.pvti "$t" \
	"UPDATE timeline_lod SET width_ns = 0 WHERE level = 0;
	 UPDATE timeline_lod SET bucket = 9223372036854775807 - bucket WHERE level > 0;
	 UPDATE label_stats SET count = 0, min_ns = 10, max_ns = 1;"
mutant trace two-processes.pvti "$t" \
	"INSERT INTO process SELECT * FROM process;
	 UPDATE trace_metadata SET value = '{\"unterminated';
	 UPDATE event_metadata SET json = '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[';"
mutant trace view-and-trigger.pvti "$t" \
	"CREATE TRIGGER fuzz_trigger AFTER INSERT ON string BEGIN SELECT load_extension('/x'); END;
	 ALTER TABLE thread RENAME TO thread_table;
	 CREATE VIEW thread AS SELECT * FROM thread_table, thread_table AS b;"

# --- Issue 33's hostile files ---------------------------------------------------
# The markers let this part run alone over the corpus in the tree (sed it
# out, with $r and $t copies of report/matmul.pop and trace/trace.pvti,
# and shrink and mutant defined): how these four were made.
# issue33-begin
# A report with a name as long as a file may hold (TSF_MAX_NAME_BYTES,
# 16 KiB, in one-, two- and three-byte characters; a compute set's) and
# a variable's of 2 KiB (the seed stays under the corpus's largest, which
# sets libFuzzer's input size).
mutant report long-names.pop "$r" \
	"UPDATE string SET text = text || ' #' || id || ' ' || replace(printf('%.*c', 2700, 'x'), 'x', '-ü€')
	   WHERE id IN (SELECT name FROM compute_set LIMIT 1);
	 UPDATE string SET text = text || ' #' || id || ' ' || replace(printf('%.*c', 340, 'x'), 'x', '-ü€')
	   WHERE id IN (SELECT name FROM variable LIMIT 1);"
# A trace whose names are a generated column costing a second or two a
# row: the schema check refuses it before a row is read. The schema text
# is rewritten in place (the stored (id, value) rows read as (id, seed)),
# after the vacuum, which would compute the column.
cp "$t" "$corpus/trace/slow-schema.pvti"
sqlite3 "$corpus/trace/slow-schema.pvti" \
	"PRAGMA writable_schema = ON;
	 UPDATE sqlite_schema SET sql = 'CREATE TABLE string (id INTEGER PRIMARY KEY, seed TEXT NOT NULL, value TEXT GENERATED ALWAYS AS (CASE WHEN instr(printf(''%.*c'', 1000000, seed || ''a''), printf(''%.*c'', 100000, seed || ''a'') || ''b'') THEN '''' ELSE seed END) VIRTUAL)'
	   WHERE type = 'table' AND name = 'string';" >/dev/null
# Chrome JSON: 260 X spans each inside the previous (10 past the 250
# levels a .pvti holds), a B never ended and an X of negative dur; and a
# trace after 600 bytes of white space (JSON is sniffed past any).
awk 'BEGIN {
	printf "["
	for (i = 0; i < 260; i++)
		printf "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n", i, 1000 - 2 * i
	printf "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":2,\"ts\":3},\n"
	printf "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":3,\"ts\":3,\"dur\":-1}]\n"
}' >"$corpus/chrome_json/skips.json"
awk 'BEGIN {
	for (i = 0; i < 600; i++)
		printf (i % 3 ? " " : (i % 2 ? "\t" : "\n"))
	printf "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}\n"
}' >"$corpus/chrome_json/leading-space.json"
# issue33-end

# --- debug.cbor --------------------------------------------------------------
d=$corpus/debug_cbor
cp "$tmp/matmul/debug.cbor" "$d/matmul.cbor"
cp "$tmp/oom/debug.cbor" "$d/other-report.cbor"
head -c "$(( $(stat -c %s "$tmp/matmul/debug.cbor") / 2 ))" "$tmp/matmul/debug.cbor" >"$d/truncated.cbor"
: >"$d/empty.cbor"
printf '\x9b\xff\xff\xff\xff\xff\xff\xff\xff\x00' >"$d/huge-array.cbor"   # 2^64-1 items claimed
printf '\xbf\x61a\x9f\x01\x02\xff\xff' >"$d/indefinite.cbor"             # {_ "a": [_ 1, 2]}
head -c 2000 /dev/zero | tr '\0' '\201' >"$d/deep.cbor"                  # 2000 nested arrays
printf '\xd9\xd9\xf7\x7b\x00\x00\x00\x00\xff\xff\xff\xffabc' >"$d/long-string.cbor"

# --- Option strings ------------------------------------------------------------
e=$corpus/engine_options
dict=$corpus/engine_options.dict
: >"$dict"
i=0
while IFS=$'\t' read -r name type default accepted; do
	printf '"%s"\n' "$name" >>"$dict"
	case $type in
	bool|string) value="\"${default}\"" ;;
	integer|decimal) value=${default:-0} ;;
	enum) value="\"${accepted%%|*}\"" ;;
	*) value='""' ;;
	esac
	printf '{"%s": %s}' "$name" "$value" >"$e/option-$i.json"
	i=$((i + 1))
done <"$tmp/engine-options.tsv"
printf '{"autoReport.all":"true","autoReport.directory":"/nonexistent/r","debug.instrument":true}' >"$e/all.json"
printf '{"autoReport.all":true,"autoReport.all":"false","autoReport.executionProfileProgramRunCount":18446744073709551616}' >"$e/repeated.json"
printf '{"autoReport.al":"true"}' >"$e/near-miss.json"
printf '{"target.workerStackSizeInBytes":-1e309,"opt.internalExchangeOptimisationTarget":null}' >"$e/bad-values.json"
printf '[1,2,3]' >"$e/array.json"
printf '{"a":' >"$e/unterminated.json"
printf '  \t\n ' >"$e/blank.json"
printf '{"\\u0000x":"\\ud800"}' >"$e/escapes.json"

p=$corpus/pvti_options
printf '{"enable":"true","directory":"/nonexistent/t","channels":["Poplar","Framework"],"duration":1.5}' >"$p/all.json"
printf '{"enable":true,"channels":[]}' >"$p/empty-channels.json"
printf '{"enable":"maybe","channels":"Poplar","duration":"x"}' >"$p/wrong-kinds.json"
printf '{"channels":[1,null,{"a":[]}],"duration":-1e309}' >"$p/bad-channels.json"
printf '{"enable":"false","unknown":1}' >"$p/unknown-key.json"
printf 'true' >"$p/not-object.json"
printf '{"directory":"' >"$p/unterminated.json"
cat >"$corpus/pvti_options.dict" <<'DICT'
"enable"
"directory"
"channels"
"duration"
"true"
"false"
"Poplar"
"Framework"
"Drivers"
DICT
du -sh "$corpus" "$here/debug-cbor-profile.pop"
