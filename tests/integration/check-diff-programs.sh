#!/bin/sh
# Issue 17 end to end, on a model with three layers as debug contexts
# (layers_model.c: model/fc1, model/fc2, model/fc3) profiled at batch 64
# and 128, as a user runs it:
#   - the step list of `tilescope summary --show-execution-steps` names
#     each layer's matmul with its path, never a bare "matmul/Partials";
#   - `tilescope diff` matches runs by program: by default every program,
#     its runs averaged, with cycles and steps per run (the training
#     program's cheaper run of fewer steps shows), layer-prefixed names;
#     also when the two reports ran their programs in another order;
#   - --program narrows to one program, a program neither ran is an error
#     naming the ones they did, --run keeps its positional meaning;
#   - total memory including and excluding gaps moving apart is neither
#     better nor worse, and the diff says so.
#
# usage: check-diff-programs.sh TILESCOPE LAYERS_MODEL
set -u
[ $# -eq 2 ] || { echo "usage: check-diff-programs.sh TILESCOPE LAYERS_MODEL" >&2; exit 2; }
ts=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
model=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
status=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; status=1; }
# has FILE TEXT WHAT: FILE contains the fixed string TEXT.
has() {
	if grep -qF -- "$2" "$1"; then pass "$3"; else fail "$3 (no '$2' in $1)"; fi
}

profile() { # DIR ARGS...: runs the model with autoReport into DIR
	dir=$1
	shift
	POPLAR_ENGINE_OPTIONS="{\"autoReport.all\":\"true\",\"autoReport.directory\":\"$dir\"}" \
		"$model" "$@" >"$dir.txt" 2>&1 || { cat "$dir.txt"; fail "layers_model $* failed"; exit 1; }
}
profile b64 --batch 64
profile b128 --batch 128
profile b128first --batch 128 --test-first

# The step list: every layer's compute sets carry the layer.
"$ts" summary --show-execution-steps b64 >steps.txt 2>err.txt || fail "summary: $(cat err.txt)"
for l in fc1 fc2 fc3; do
	has steps.txt "OnTileExecute" "steps listed"
	has steps.txt "): model/$l/matmul/Partials" "step list names model/$l/matmul/Partials"
	has steps.txt "): model/$l/relu" "step list names model/$l/relu"
done
if grep -q '): matmul/' steps.txt; then
	fail "a step is named matmul/... without its layer"
else
	pass "no step without its layer"
fi

# The default diff: programs matched, runs averaged, cycles per run.
"$ts" diff --all --top 0 b64 b128 >diff.txt 2>err.txt
rc=$?
[ $rc -eq 0 ] || fail "diff b64 b128 exited $rc: $(cat err.txt)"
has diff.txt "runs matched by program" "diff says runs are matched by program"
has diff.txt "train     base 2 runs, new 2 runs" "the training program's two runs averaged on each side"
has diff.txt "cycles.run.train" "cycles per run of the training program"
has diff.txt "steps.run.train" "steps per run of the training program"
has diff.txt "cycles.compute_set.model/fc2/matmul/Partials" "the diff names fc2's matmul with its layer"
has diff.txt "cycles.operation.model/fc3/matmul" "operations by layer path"
# Half as many steps per training run at batch 128 (8 repeats vs 4).
"$ts" diff --format=json b64 b128 >diff.json 2>err.txt || fail "diff json: $(cat err.txt)"
python3 - diff.json <<'EOF' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["metric"]: x for x in d["deltas"]}
ok = True
def check(cond, what):
    global ok
    print(("PASS: " if cond else "FAIL: ") + what)
    ok = ok and cond
check(d["base_run"] is None and d["new_run"] is None, "JSON: no positional runs when matched by program")
progs = {p["base"]: p for p in d["programs"]}
check(sorted(progs) == ["init", "test", "train"], "JSON: every program compared: %s" % sorted(progs))
check(progs.get("train", {}).get("base_runs") == 2, "JSON: train's two runs averaged")
t = m.get("steps.run.train")
check(t is not None and t["new"] < t["base"], "JSON: fewer steps per training run at batch 128")
c = m.get("cycles.run.train")
check(c is not None and c["unit"] == "cycles" and c["group"] == "run", "JSON: cycles.run.train in group run")
total = sum(m["cycles.run." + p]["base"] for p in progs)
check(abs(m["cycles.total"]["base"] - total) <= len(progs), "JSON: cycles.total is one run of each program")
sys.exit(0 if ok else 1)
EOF

# The same programs run in another order: matched by name, not position.
"$ts" diff --format=json b128 b128first >order.json 2>err.txt || fail "diff order: $(cat err.txt)"
python3 - order.json <<'EOF' || status=1
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["metric"]: x for x in d["deltas"]}
bad = [k for k, x in m.items() if k.startswith(("cycles.", "steps.")) and x["change"] != 0]
print(("PASS: " if not bad else "FAIL: ") + "runs in another order compare equal by program: %s" % bad[:5])
sys.exit(1 if bad else 0)
EOF
# ... whereas the positional last runs are different programs.
"$ts" diff --run 3 b128 b128first >pos.txt 2>err.txt || fail "diff --run 3: $(cat err.txt)"
has pos.txt "(run 3; the report keeps 4)" "--run N keeps its positional meaning"
has pos.txt "cycles.run.test" "--run 3 shows the base's program (test)"
has pos.txt "cycles.run.train" "and the new one's (train), unmatched"

# --program narrows; an unknown one is an error listing the others.
"$ts" diff --format=json --program train b64 b128 >train.json 2>err.txt ||
	fail "diff --program train: $(cat err.txt)"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["metric"]: x for x in d["deltas"]}
ok = [p["base"] for p in d["programs"]] == ["train"] and \
     m["cycles.total"]["base"] == m["cycles.run.train"]["base"] and "cycles.run.test" not in m
print(("PASS: " if ok else "FAIL: ") + "--program train compares the training runs only")
sys.exit(0 if ok else 1)' train.json || status=1
"$ts" diff --program nope b64 b128 >out.txt 2>err.txt
rc=$?
if [ $rc -eq 2 ] && grep -q "'nope'" err.txt && grep -q "init, train, test" err.txt; then
	pass "--program nope exits 2 naming the programs: $(cat err.txt)"
else
	fail "--program nope: exit $rc, '$(cat err.txt)'"
fi

# Memory including and excluding gaps moving apart: tile 0 holds 64 bytes
# more data in 64 bytes less address space.
cp -r b64 moved
sqlite3 moved/profile.pop "UPDATE tile_memory SET total = total + 64,
	non_interleaved = non_interleaved + 64,
	total_including_gaps = total_including_gaps - 64,
	non_interleaved_including_gaps = non_interleaved_including_gaps - 64 WHERE tile = 0" ||
	fail "tampering with the copy"
"$ts" diff b64 moved >moved.txt 2>err.txt || fail "diff moved: $(cat err.txt)"
has moved.txt "note: total memory excluding gaps went up but including gaps went down" \
	"the diff notes memory moving apart"
if grep -E '^  memory\.total(_including_gaps)? ' moved.txt | grep -qE 'better|worse'; then
	fail "a memory total moving apart is called better or worse: $(grep -E '^  memory\.total' moved.txt)"
else
	pass "the memory totals moving apart are 'changed'"
fi
"$ts" diff --format=json b64 moved >moved.json 2>err.txt
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = any("including gaps went down" in n for n in d["notes"])
print(("PASS: " if ok else "FAIL: ") + "JSON notes say so")
sys.exit(0 if ok else 1)' moved.json || status=1
# Summary layout: in "Cycles by vertex type" the columns stay apart and
# aligned whatever the width of the numbers (cycles made huge in a copy),
# and a run's instances are those of the compute sets it ran (the test
# run's fc1 matmul vertices, not the training program's too).
cp -r b64 huge
sqlite3 huge/profile.pop "UPDATE compute_set_vertex_type SET active_cycles = 123456789012345678" ||
	fail "tampering with the copy"
"$ts" summary huge >huge.txt 2>err.txt || fail "summary huge: $(cat err.txt)"
sed -n '/Cycles by vertex type:/,/^$/p' huge.txt | grep 'instances):' >rows.txt
if [ -s rows.txt ] && ! grep -q 'instances):[^ ]' rows.txt &&
	[ "$(awk '{ print length($0) }' rows.txt | sort -u | wc -l)" -eq 1 ]; then
	pass "vertex type columns apart and aligned with 22-digit cycles"
else
	fail "vertex type columns run together: $(head -n 3 rows.txt)"
fi
"$ts" summary --json --run 3 b64 >test.json 2>err.txt || fail "summary --run 3: $(cat err.txt)"
"$ts" summary --json --run 1 b64 >train.json 2>err.txt || fail "summary --run 1: $(cat err.txt)"
sqlite3 b64/profile.pop "SELECT instances FROM vertex_type JOIN string ON string.id = vertex_type.name
	WHERE string.text = 'poplin::MatMulPartial<float,float>'" >graph_mm.txt
python3 - test.json train.json graph_mm.txt <<'EOF2' || status=1
import json, sys
def instances(path):
    d = json.load(open(path))
    return {x["name"]: x["instances"] for x in d["execution"]["cyclesByVertexType"]}
t, r = instances(sys.argv[1]), instances(sys.argv[2])
graph = int(open(sys.argv[3]).read())
mm = "poplin::MatMulPartial<float,float>"
# Training and test each run their own three matmuls: each run counts its
# own, and together they are the graph's.
ok = mm in t and mm in r and t[mm] < graph and t[mm] + r[mm] == graph
print(("PASS: " if ok else "FAIL: ") + "a run's vertex instances are its own: test %s, train %s, graph %d"
      % (t.get(mm), r.get(mm), graph))
sys.exit(0 if ok else 1)
EOF2
# poprand's per-tile constants: one line per series with its count.
"$ts" summary --all b64 >all.txt 2>err.txt || fail "summary --all: $(cat err.txt)"
has all.txt "model/fc1/initW/params*" "the per-tile parameter constants are one line"
if grep -q 'initW/params[0-9]' all.txt; then
	fail "per-tile constants listed one by one: $(grep -c 'initW/params[0-9]' all.txt) lines"
elif grep 'model/fc1/initW/params\*' all.txt | grep -q '(.* variables)'; then
	pass "the series line gives its count: $(grep 'model/fc1/initW/params\*' all.txt)"
else
	fail "the series line has no count"
fi
# --show-operations: the layers and their ops, with memory, cycles, FLOPs
# and utilisation; the same in --json.
"$ts" summary --show-operations b64 >ops.txt 2>err.txt || fail "summary --show-operations: $(cat err.txt)"
has ops.txt "Operations (run shown; descendants included):" "the operations table is printed"
if grep -qE '^  model +user +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9.]+%$' ops.txt &&
	grep -qE '^      matmul +poplin ' ops.txt; then
	pass "operations by layer with memory, cycles, FLOPs and utilisation"
else
	fail "operations table: $(sed -n '/^Operations/,+6p' ops.txt)"
fi
"$ts" summary --json --show-operations b64 >ops.json 2>err.txt || fail "summary --json --show-operations"
python3 -c '
import json, sys
ops = json.load(open(sys.argv[1]))["operations"]
names = [o["name"] for o in ops if o["depth"] == 1]
ok = names[:3] == ["fc1", "fc2", "fc3"] and all(k in ops[0] for k in
     ("memoryBytes", "cycles", "flops", "utilisation", "layer"))
print(("PASS: " if ok else "FAIL: ") + "JSON operations: layers %s" % names[:3])
sys.exit(0 if ok else 1)' ops.json || status=1
exit $status
