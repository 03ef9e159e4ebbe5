"""tilescope.pva against the `tilescope` command (summary --json, sql,
diff --format=json) on the sample reports: every attribute of the object
model, its lazy sequences, its errors and its lifetimes."""
import gc
import glob
import json
import os
import shutil
import subprocess
import sys
import threading

import pytest

import pva
import tilescope
from conftest import ROOT, SAMPLES, _env, sql, tilescope_json


@pytest.fixture(scope="module")
def rep(path):
    return pva.openReport(path)


@pytest.fixture(scope="module")
def summary(path):
    return tilescope_json("summary", "--json", path)


def test_installed_where_the_interpreter_reads():
    """`meson install` puts pva.py and the package in a directory of this
    interpreter's sys.path when the prefix has one (/usr/local on Debian)."""
    installed = os.path.join(os.environ["TILESCOPE_BUILD_ROOT"], "meson-info",
                             "intro-installed.json")
    with open(installed) as f:
        dests = {os.path.dirname(d) for d in json.load(f).values()
                 if d.endswith(("/pva.py", "/tilescope/__init__.py"))}
    site = min(dests)
    assert dests == {site, os.path.join(site, "tilescope")}
    prefix = site.split("/lib/")[0] + "/"
    if any(p.startswith(prefix) and p.endswith("-packages") for p in sys.path):
        assert site in sys.path


def test_pva_is_tilescope_pva():
    assert pva.openReport is tilescope.pva.openReport
    assert pva.Error is tilescope.Error and issubclass(pva.Error, RuntimeError)


def test_target_and_graph(rep, summary, path):
    t, s = rep.compilation.target, summary["target"]
    # One replica's IPUs, tiles and memory, as compilation.tiles lists them.
    assert (t.numIPUs, t.tilesPerIpu, t.numTiles, t.numReplicas, t.ipusPerReplica) == (
        s["ipusPerReplica"], s["tilesPerIpu"], s["tilesPerReplica"], s["numReplicas"],
        s["ipusPerReplica"])
    assert (t.bytesPerTile, t.totalMemory, t.clockFrequency, t.type, t.arch) == (
        s["memoryPerTile"], s["memoryPerReplica"], s["clockFrequency"], s["type"],
        s["ipuVersion"])
    assert t.bytesPerIPU == t.bytesPerTile * t.tilesPerIpu
    assert vars(rep.compilation.graph) == summary["graph"]
    (version,) = sql(path, "SELECT value FROM meta WHERE key = 'tilescope_version'")[0]
    assert rep.poplarVersion.string == version


def test_summary_is_the_commands(rep, summary):
    assert rep.summary() == summary


def test_tiles_memory(rep, summary, path):
    tiles, m = rep.compilation.tiles, summary["memory"][0]
    assert len(tiles) == rep.compilation.target.numTiles
    rows = sql(path, "SELECT total_including_gaps, total, interleaved, non_interleaved, "
                     "overflowed, non_interleaved_including_gaps FROM tile_memory ORDER BY tile")
    got = [(t.memory.total.includingGaps, t.memory.total.excludingGaps,
            t.memory.region.interleaved.total, t.memory.region.nonInterleaved.total,
            t.memory.region.overflowed.total, t.memory.region.nonInterleaved.includingGaps)
           for t in tiles]
    assert got == rows
    assert sum(r[0] for r in got) == m["includingGaps"]
    assert tiles.maxMemory == m["maxTileIncludingGaps"]["bytes"] == max(r[0] for r in got)
    # Every category the format has, summed over tiles, is the summary's.
    by_type = m["byDataType"]
    cats = [vars(t.memory.category) for t in tiles]
    for cat in tilescope.pva._WORDS["categories"]:
        want = by_type["notOverlapped"].get(cat, 0) + by_type["overlapped"].get(cat, 0)
        assert sum(c[cat].total for c in cats) == want, cat
    ipus = rep.compilation.ipus
    assert len(ipus) == rep.compilation.target.numIPUs
    assert [t.number for t in ipus[-1].tiles][:2] == [
        (len(ipus) - 1) * rep.compilation.target.tilesPerIpu + i for i in range(2)]
    assert sum(ipu.tiles.maxMemory >= 0 for ipu in ipus) == len(ipus)


def test_ipus(rep, summary, path):
    """Each IPU's tiles and fullest tile, and a step's bytes by IPU."""
    c = rep.compilation
    per_ipu = sql(path, "SELECT ipu, min(tile), count(*), max(total_including_gaps) "
                        "FROM tile_memory GROUP BY ipu ORDER BY ipu")
    assert [(i.id, i.tiles[0].number, len(i.tiles), i.tiles.maxMemory) for i in c.ipus] == per_ipu
    assert c.target.numReplicas == summary["target"]["numReplicas"]
    if len(c.livenessProgramSteps):
        step = c.livenessProgramSteps[summary["liveness"]["peakStep"]]
        by_ipu = [step.notAlwaysLiveMemoryForIpu(i).bytes for i in range(len(c.ipus))]
        by_tile = [step.notAlwaysLiveMemoryForTile(t).bytes for t in range(len(c.tiles))]
        n = c.target.tilesPerIpu
        assert by_ipu == [sum(by_tile[i * n:(i + 1) * n]) for i in range(len(c.ipus))]


def test_liveness(rep, summary, path):
    steps, live = rep.compilation.livenessProgramSteps, summary["liveness"]
    rows = sql(path, "SELECT program, not_always_live_bytes FROM liveness_step ORDER BY id")
    assert [(s.program._id, s.notAlwaysLiveMemory.bytes) for s in steps] == rows
    assert rep.compilation.alwaysLiveMemory.bytes == live["alwaysLiveBytes"]
    if steps:
        peak = max(range(len(steps)), key=lambda i: (steps[i].notAlwaysLiveMemory.bytes, -i))
        assert peak == live["peakStep"]
        assert live["alwaysLiveBytes"] + steps[peak].notAlwaysLiveMemory.bytes == \
            live["maxLiveBytes"]
        by_tile = [steps[peak].notAlwaysLiveMemoryForTile(t).bytes
                   for t in range(len(rep.compilation.tiles))]
        by_ipu = [steps[peak].notAlwaysLiveMemoryForIpu(i).bytes
                  for i in range(len(rep.compilation.ipus))]
        assert sum(by_tile) == sum(by_ipu)
        names = {v.name for v in steps[peak].notAlwaysLiveMemory.variables}
        assert all(not v.alwaysLive for v in steps[peak].notAlwaysLiveMemory.variables)
        want = {r[0] for r in sql(path, f"SELECT s.text FROM variable v JOIN string s ON "
                                        f"s.id = v.name WHERE NOT v.always_live AND "
                                        f"v.live_from <= {peak} AND {peak} <= v.live_to")}
        assert names == want
    alv = rep.compilation.alwaysLiveVariables
    assert sum(v.size for v in alv) == sql(
        path, "SELECT coalesce(sum(bytes), 0) FROM variable WHERE always_live")[0][0]


def test_programs_variables_compute_sets(rep, path):
    c = rep.compilation
    progs = sql(path, "SELECT type, name FROM v_program ORDER BY id")
    assert [(p.type.name, p.name or None) for p in c.programs] == \
        [(t, n or None) for t, n in progs]
    assert isinstance(c.programs[0].type, pva.Program.Type)
    assert [(v._id, v.name, v.size) for v in c.variables[:50]] == \
        sql(path, "SELECT id, name, bytes FROM v_variable ORDER BY id LIMIT 50")
    assert len(c.variables) == sql(path, "SELECT count(*) FROM variable")[0][0]
    assert [(cs.name, cs.cycles) for cs in c.computeSets] == \
        sql(path, "SELECT name, cycles FROM v_compute_set ORDER BY id")
    ops = c.operations
    assert len(ops) == sql(path, "SELECT count(*) FROM debug_context")[0][0]
    assert all(o.softwareLayer for o in ops)
    for p in c.programs[:200]:
        if p.type == pva.Program.Type.OnTileExecute:
            assert p.cycles == p.computeSet.cycles
            break


def test_execution(rep, summary, path):
    runs = rep.execution.runs
    assert [(r.program, r.cycles, len(r.steps)) for r in runs] == \
        sql(path, "SELECT program, cycles, num_steps FROM run ORDER BY id")
    assert rep.execution.totalCycles == summary.get("execution", {}).get("totalCycles")
    if not runs:
        return
    last = runs[-1]
    assert last.name == summary["execution"]["programName"]
    steps = sql(path, f"SELECT type, cycles_from, cycles_to FROM v_step WHERE run = "
                      f"{len(runs) - 1} ORDER BY id LIMIT 300")
    assert [(s.type, s.cyclesFrom, s.cyclesTo) for s in last.steps[:300]] == steps
    for s in last.steps[:300]:
        if s.type == "OnTileExecute":
            assert max(s.cyclesByTile) == s.computeSet.cycles
            break


def test_lazy_sequences(rep):
    tiles = rep.compilation.tiles
    n = len(tiles)
    assert tiles[-1].number == n - 1 and tiles[-n].number == 0
    with pytest.raises(IndexError):
        tiles[n]
    with pytest.raises(IndexError):
        tiles[-n - 1]
    assert [t.number for t in tiles[2:10:3]] == [2, 5, 8]
    assert [t.number for t in tiles[-3:]] == [n - 3, n - 2, n - 1]
    assert [t.number for t in tiles[::-700]] == list(range(n - 1, -1, -700))
    assert len(tiles[5:1]) == 0 and list(tiles[5:1]) == []
    sub = tiles[10:20][2:4]
    assert [t.number for t in sub] == [12, 13] and sub[-1].number == 13
    steps = rep.compilation.livenessProgramSteps
    assert sum(1 for _ in steps) == len(steps)


def test_objects_keep_the_report_alive(path):
    tiles = pva.openReport(path).compilation.tiles
    steps = pva.openReport(path).compilation.livenessProgramSteps
    gc.collect()
    assert tiles[0].memory.total.includingGaps >= 0
    assert all(s.program is not None for s in steps[:3])


def test_closed_report_raises(path):
    r = pva.openReport(path)
    tiles, runs = r.compilation.tiles, r.execution.runs
    r.close()
    with pytest.raises(pva.Error, match="closed"):
        tiles[0].memory
    with pytest.raises(pva.Error, match="closed"):
        r.summary()
    if len(runs):
        with pytest.raises(pva.Error, match="closed"):
            runs[0]
    r.close()  # twice is no crash either


def test_sql(rep, path):
    q = "SELECT id, cycles FROM run WHERE cycles >= ? AND 'a?' = ? ORDER BY id"
    assert rep.sql(q, (0, "a?")) == sql(path, q.replace("?", "0", 1).replace("= ?", "= 'a?'"))
    assert rep.sql("SELECT ?, ?, ?", [None, 1.5, "it's"]) == [(None, 1.5, "it's")]
    for bad in ("DELETE FROM run", "SELECT 1; SELECT 2", "ATTACH 'x' AS y",
                "PRAGMA user_version = 3", "SELECT * FROM nowhere"):
        with pytest.raises(pva.Error):
            rep.sql(bad)
    with pytest.raises(pva.Error, match="parameters"):
        rep.sql("SELECT ?")


def test_compare_is_the_diff():
    base, new = SAMPLES[3], SAMPLES[2]
    got = tilescope.compare(pva.openReport(base), pva.openReport(new))
    diff = tilescope_json("diff", "--format=json", base, new)
    want = [{k: v for k, v in d.items() if k != "group"} for d in diff["deltas"]]
    for d in want:  # the JSON's 17 digits
        d["percent"] = d["percent"] and pytest.approx(d["percent"], rel=1e-12)
    assert got["deltas"] == want
    assert got["programs"] == diff["programs"]
    same = tilescope.compare(pva.openReport(base), pva.openReport(base))
    assert {d["verdict"] for d in same["deltas"]} == {"same"}



@pytest.mark.parametrize("limits, options, exceeded", [
    ({"max_cycles_increase": 1, "max_tile_memory": "600KB", "fail_on_oom": True,
      "max_category_increase": {"stack": "2%"}},
     ["--max-cycles-increase=1", "--max-tile-memory=600KB", "--fail-on-oom",
      "--max-category-increase=stack:2%"], True),
    ({"max_cycles_increase": "400%", "max_memory_increase": "40MB",
      "max_increase": {"graph.edges": 100, "memory.max_tile": "30KB"}},
     ["--max-cycles-increase=400%", "--max-memory-increase=40MB",
      "--max-increase=graph.edges:100", "--max-increase=memory.max_tile:30KB"], False),
], ids=["exceeded", "within"])
def test_compare_limits_are_the_diffs(limits, options, exceeded):
    base, new = SAMPLES[3], SAMPLES[2]
    got = tilescope.compare(pva.openReport(base), pva.openReport(new), **limits)
    run = subprocess.run([os.environ.get("TILESCOPE", "tilescope"), "diff", "--format=json",
                          *options, base, new], capture_output=True, text=True, env=_env())
    assert run.returncode == (1 if exceeded else 0), run.stderr
    diff = json.loads(run.stdout)
    assert got["regression"] is diff["regression"] is exceeded
    for k in diff["limits"]:
        k["percent"] = k["percent"] and pytest.approx(k["percent"], rel=1e-12)
    assert got["limits"] == diff["limits"]
    assert len(got["limits"]) == len(options) + ("max_memory_increase" in limits)


@pytest.mark.parametrize("limits, option", [
    ({"max_tile_memory": "5%"}, "--max-tile-memory=5%"),
    ({"max_category_increase": {"noSuchCategory": 5}},
     "--max-category-increase=noSuchCategory:5"),
    ({"max_increase": "cycles.vertex_type.Typo:5"}, "--max-increase=cycles.vertex_type.Typo:5"),
])
def test_compare_bad_limit_says_what_diff_says(limits, option):
    base, new = SAMPLES[3], SAMPLES[2]
    run = subprocess.run([os.environ.get("TILESCOPE", "tilescope"), "diff", option, base, new],
                         capture_output=True, text=True, env=_env())
    assert run.returncode == 2
    message = run.stderr.splitlines()[0].removeprefix("tilescope: ")
    with pytest.raises(ValueError) as e:
        tilescope.compare(pva.openReport(base), pva.openReport(new), **limits)
    assert str(e.value) == message
    with pytest.raises(TypeError, match="max_speed"):
        tilescope.compare(pva.openReport(base), pva.openReport(new), max_speed=1)

def test_errors_carry_reportlibs_message(tmp_path):
    with pytest.raises(pva.Error, match="no such file|not found|No such"):
        pva.openReport(tmp_path / "missing.pop")
    junk = tmp_path / "profile.pop"
    junk.write_bytes(b"this is not a report\n" * 100)
    with pytest.raises(pva.Error, match="profile.pop"):
        pva.openReport(junk)
    # A debug.cbor of another report: stale, found when it is read.
    stale = pva.openReport(os.path.join(SAMPLES[0], "profile.pop"),
                           os.path.join(SAMPLES[1], "debug.cbor"))
    with pytest.raises(pva.Error, match="debug.cbor"):
        stale.compilation.operations
    with pytest.raises(pva.Error, match="no such file"):
        pva.openReport(os.path.join(SAMPLES[0], "profile.pop"), tmp_path / "none.cbor")
    # The message names the file given, not the link that paired it.
    with pytest.raises(pva.Error, match=f"^'{junk}'"):
        pva.openReport(junk, os.path.join(SAMPLES[1], "debug.cbor"))
    # A directory and its own debug.cbor open as the directory.
    same = pva.openReport(SAMPLES[1], os.path.join(SAMPLES[1], "debug.cbor"))
    assert len(same.compilation.operations) > 0


def _exercise(r):
    """Reads everything the object model has, one item of each list."""
    c = r.compilation
    for seq in (c.tiles, c.livenessProgramSteps, c.programs, c.variables, c.computeSets,
                r.execution.runs):
        for i in (0, -1):
            if len(seq):
                item = seq[i]
                for name in dir(item):
                    if not name.startswith("__"):
                        getattr(item, name)
    for t in (c.tiles[0], c.tiles[-1]):
        m = t.memory
        m.total, m.region, m.category, m.alwaysLiveBytes
    if len(c.livenessProgramSteps):
        s = c.livenessProgramSteps[-1]
        s.notAlwaysLiveMemory.variables, s.notAlwaysLiveMemoryForTile(0), s.cycles
    c.operations, c.alwaysLiveVariables, c.tiles.maxMemory, r.summary()
    if len(r.execution.runs) and len(r.execution.runs[-1].steps):
        s = r.execution.runs[-1].steps[-1]
        s.cyclesByTile and s.cyclesByTile[0]


@pytest.mark.parametrize("pop", sorted(glob.glob(os.path.join(
    ROOT, "tests", "fuzz", "corpus", "report", "*.pop"))), ids=os.path.basename)
def test_hostile_reports_raise(pop):
    try:
        r = pva.openReport(pop)
    except pva.Error as e:
        assert str(e)
        return
    try:
        _exercise(r)
    except (pva.Error, IndexError) as e:
        assert str(e)


@pytest.mark.parametrize("cbor", sorted(glob.glob(os.path.join(
    ROOT, "tests", "fuzz", "corpus", "debug_cbor", "*.cbor"))), ids=os.path.basename)
def test_hostile_debug_cbor_raises(cbor, tmp_path):
    shutil.copy(os.path.join(ROOT, "tests", "fuzz", "debug-cbor-profile.pop"),
                tmp_path / "profile.pop")
    shutil.copy(cbor, tmp_path / "debug.cbor")
    r = pva.openReport(tmp_path)
    try:
        r.compilation.operations
    except pva.Error as e:
        assert "debug.cbor" in str(e)


def test_threads_share_a_report():
    r = pva.openReport(SAMPLES[1])
    want = r.summary()
    got = []
    ts = [threading.Thread(target=lambda: got.append(r.summary())) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == [want] * 4
