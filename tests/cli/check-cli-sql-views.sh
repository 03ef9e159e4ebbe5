#!/bin/sh
# `tilescope sql` and the views the schemas ship (issue 26 item 6): v_step,
# v_program, v_variable and v_compute_set over the sample reports and
# tracepoint_stats over the sample trace answer, as CSV, byte for byte
# what the same query written out longhand answers; the file's own copy
# (main.v_step) is refused with what to do instead; a file whose stored
# v_step differs from the schema's is refused before anything is read;
# one with a table of made-up rows in v_step's place gets the schema's view.
#
# usage: check-cli-sql-views.sh TILESCOPE SAMPLE_REPORTS_DIR
ts=$1
samples=$2
. "$(dirname "$0")/cli-test-lib.sh"
ts=$(absolute "$ts")
samples=$(absolute "$samples")
enter_tmp

# same FILE MINROWS VIEW_SQL LONGHAND_SQL: both answer, identically, with
# at least MINROWS rows.
same() {
	file=$1 min=$2 view=$3 long=$4
	if ! "$ts" sql --csv "$file" "$view" >view.csv 2>view.err; then
		fail "$view on $file: $(head -n 1 view.err)"
		return
	fi
	if ! "$ts" sql --csv "$file" "$long" >long.csv 2>long.err; then
		fail "longhand on $file: $(head -n 1 long.err)"
		return
	fi
	rows=$(($(wc -l <view.csv) - 1))
	if ! cmp -s view.csv long.csv; then
		fail "$view on $file differs from the longhand query"
		diff view.csv long.csv | head -n 6
	elif [ "$rows" -lt "$min" ]; then
		fail "$view on $file: $rows rows, expected at least $min"
	else
		pass "$view on $(basename "$(dirname "$file")")/$(basename "$file"): $rows rows as longhand"
	fi
}

v_step_long="SELECT t.run, t.id, t.type, t.program, p.text AS program_name,
  t.compute_set, c.text AS compute_set_name, t.exchange, x.text AS exchange_name,
  t.sync_type, t.cycles_from, t.cycles_to, t.cycles, t.cycles_overlapped,
  t.active_tiles, t.tile_balance, t.active_tile_balance, t.thread_balance,
  t.total_data, t.data_balance
  FROM step t JOIN program pr ON pr.id = t.program
  LEFT JOIN string p ON p.id = pr.name
  LEFT JOIN compute_set cs ON cs.id = t.compute_set
  LEFT JOIN string c ON c.id = cs.name
  LEFT JOIN exchange ex ON ex.id = t.exchange
        AND ex.kind = CASE t.type WHEN 'DoExchange' THEN 'internal'
                                  WHEN 'GlobalExchange' THEN 'external'
                                  WHEN 'StreamCopy' THEN 'host' END
  LEFT JOIN string x ON x.id = ex.name ORDER BY t.run, t.id"

for report in "$samples/tut5_ml/profile.pop" "$samples/tut4_profiling/profile.pop"; do
	same "$report" 2 "SELECT * FROM v_step ORDER BY run, id" "$v_step_long"
	same "$report" 2 "SELECT * FROM v_program ORDER BY id" \
		"SELECT p.id, p.type, s.text AS name, p.compute_set, p.exchange, p.function,
		   p.sync_type, p.repeat_count, p.debug_context, p.instr_total
		   FROM program p LEFT JOIN string s ON s.id = p.name ORDER BY p.id"
	same "$report" 2 "SELECT * FROM v_variable ORDER BY id" \
		"SELECT v.id, s.text AS name, v.category, v.type, v.bytes, v.shape, v.tiles,
		   v.always_live, v.live_from, v.live_to, v.debug_context
		   FROM variable v JOIN string s ON s.id = v.name ORDER BY v.id"
	same "$report" 2 "SELECT * FROM v_compute_set ORDER BY id" \
		"SELECT cs.id, s.text AS name, cs.tiles, cs.cycles, cs.cycles_sum, cs.active_cycles,
		   cs.active_cycles_sum, cs.flops, cs.debug_context
		   FROM compute_set cs JOIN string s ON s.id = cs.name ORDER BY cs.id"
done
# The directory form, as docs/cli.md writes it.
same "$samples/tut5_ml" 2 \
	"SELECT type, program_name, cycles FROM v_step ORDER BY cycles DESC, run, id LIMIT 5" \
	"SELECT t.type, p.text AS program_name, t.cycles FROM step t JOIN program pr ON pr.id = t.program
	   LEFT JOIN string p ON p.id = pr.name ORDER BY t.cycles DESC, t.run, t.id LIMIT 5"

trace=$samples/tut5_ml/tut5_ml.pvti
stats_long="SELECT c.name AS channel, s.value AS name, l.count, l.total_ns, l.self_ns,
  l.min_ns, l.max_ns, l.total_ns / l.count AS mean_ns
  FROM label_stats AS l JOIN channel AS c ON c.id = l.channel
  JOIN string AS s ON s.id = l.name ORDER BY total_ns DESC, channel, name"
same "$trace" 5 "SELECT * FROM tracepoint_stats ORDER BY total_ns DESC, channel, name" \
	"$stats_long"
# docs/profiling.md's "top tracepoints", through tilescope instead of the shell.
same "$trace" 6 "SELECT channel, name, count, total_ns/1000 AS total_us,
                 self_ns/1000 AS self_us FROM tracepoint_stats
                 ORDER BY total_ns DESC LIMIT 6" \
	"SELECT c.name AS channel, s.value AS name, l.count, l.total_ns/1000 AS total_us,
	   l.self_ns/1000 AS self_us FROM label_stats l JOIN channel c ON c.id = l.channel
	   JOIN string s ON s.id = l.name ORDER BY l.total_ns DESC LIMIT 6"

# The file's own copy is not run; what to do instead is said.
check_error "name the view without a schema" sql "$samples/tut4_profiling" \
	"SELECT * FROM main.v_step"
check_error "name the view without a schema" sql "$trace" "SELECT * FROM main.tracepoint_stats"

# A stored v_step that differs from the schema's (here one that would
# run for hours) is refused before anything is read.
cp "$samples/tut5_ml/profile.pop" slow.pop
sqlite3 slow.pop "DROP VIEW v_step; CREATE VIEW v_step AS WITH RECURSIVE n(i) AS
  (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT step.* FROM step, n" ||
	fail "cannot edit slow.pop"
check_error "changes the view v_step that Tilescope writes: refusing" sql slow.pop \
	"SELECT count(*) FROM v_step"

# A table of made-up rows where v_step was (tables are the file's data,
# which the schema check leaves alone): the schema's view answers.
cp "$samples/tut5_ml/profile.pop" table.pop
sqlite3 table.pop "DROP VIEW v_step; CREATE TABLE v_step (run, id, type, cycles);
  INSERT INTO v_step VALUES (0, 0, 'forged', 1)" || fail "cannot edit table.pop"
same table.pop 2 "SELECT * FROM v_step ORDER BY run, id" "$v_step_long"
if "$ts" sql --csv table.pop "SELECT count(*) FROM v_step WHERE type = 'forged'" 2>&1 |
	tr -d '\r' | grep -qx '0'; then
	pass "the table in v_step's place is shadowed by the schema's view"
else
	fail "the file's table v_step answered instead of the schema's view"
fi
exit $status
