"""tilescope.pvti: Python programs trace themselves into .pvti files that
`tilescope trace` reads, honouring PVTI_OPTIONS as a C program does.
Each traced program runs in a subprocess of its own (the tracer reads
PVTI_OPTIONS once, when the module is loaded), writing into a temporary
directory."""
import glob
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT, tilescope_json
import tilescope
from tilescope import pvti

EXAMPLE = os.path.join(ROOT, "examples", "python", "traced_loop.py")


def run(code_or_file, tmp_path, options, *args, cwd=None):
    """Runs Python code (or a script) with PVTI_OPTIONS = `options` (None:
    unset); its completed process."""
    env = {k: v for k, v in os.environ.items() if k != "PVTI_OPTIONS"}
    if options is not None:
        env["PVTI_OPTIONS"] = options if isinstance(options, str) else json.dumps(options)
    cmd = [sys.executable, code_or_file, *args] if code_or_file.endswith(".py") else \
        [sys.executable, "-c", textwrap.dedent(code_or_file), *args]
    p = subprocess.run(cmd, env=env, cwd=cwd or tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return p


def trace_json(path, *args):
    return tilescope_json("trace", "--json", "--call-tree", *args, path)


def labels(doc):
    return {(l["channel"], l["name"]): l for l in doc["labels"]}


def test_traced_loop_example(tmp_path):
    """The example's epochs, steps and loss series are in the trace
    `tilescope trace` reads: one span per epoch holding its steps, one
    sample per epoch with the losses it printed."""
    p = run(EXAMPLE, tmp_path, {"enable": "true", "directory": str(tmp_path / "tr")},
            "--epochs", "4", "--steps", "7")
    (trace,) = glob.glob(str(tmp_path / "tr" / "*.pvti"))
    assert p.stdout.rstrip().endswith(trace)
    losses = [float(l.split("loss ")[1]) for l in p.stdout.splitlines() if "loss" in l]
    assert len(losses) == 4 and losses[-1] < losses[0]
    doc = trace_json(trace)
    got = labels(doc)
    for e in range(4):
        assert got[("Training", f"Epoch {e}")]["count"] == 1
    assert got[("Training", "train_step")]["count"] == 4 * 7
    assert got[("Training", "make_data")]["count"] == 1
    roots = {r["name"]: r for r in doc["call_tree"]["roots"]}
    assert [c["name"] for c in roots["Epoch 2"]["children"]] == ["train_step"]
    assert roots["Epoch 2"]["children"][0]["count"] == 7
    (series,) = doc["series"]
    assert (series["graph"], series["name"], series["samples"]) == ("Loss", "epoch mean", 4)
    # The command's JSON numbers keep 15 digits.
    assert (series["min"], series["max"]) == pytest.approx((min(losses), max(losses)), 1e-14)
    t = tilescope.openTrace(trace)
    assert [i.name for i in t.instants()] == [f"Epoch {e} begin" for e in range(4)]
    epoch0 = next(s for s in t.spans(0) if s.name == "Epoch 0")
    assert json.loads(t.eventMetadata(0, epoch0.seq)) == {"lr": 0.1}


# Every way of making a span, an instant and a sample, in one process.
FORMS = """
    import contextlib, json, sys
    from tilescope import pvti
    ch = pvti.createTraceChannel("Py")
    series = pvti.Graph("Rate", "%").addSeries("hits")
    heat = pvti.HeatmapDouble("sizes", [1.0, 10.0], "bytes")
    counts = pvti.HeatmapInt64("counts", [10, 100])

    @pvti.Tracepoint(ch, "decorated")
    def decorated(x, *, y=0):
        "its doc"
        return x + y

    @pvti.instrument_fn(ch)
    def instrumented():
        return decorated(1, y=2)

    class Model:
        @pvti.Tracepoint(ch, "method")
        def method(self, v):
            return self, v

    tp = pvti.Tracepoint(ch, "reused")
    def recurse(n):
        with tp:
            return n and recurse(n - 1)

    with pvti.Tracepoint(ch, "outer", '{"k": [1, 2]}'):
        for i in range(3):
            with pvti.Tracepoint(ch, "ctx"):
                assert decorated(i) == i and instrumented() == 3
            series.add(i * 10.0)
        m = Model()
        assert m.method(5) == (m, 5)
        pvti.Tracepoint.begin(ch, "begin-end")
        pvti.Tracepoint.event(ch, "via event")
        pvti.Tracepoint.end(ch, "begin-end")
        pvti.instantEvent(pvti.traceFramework, "instant")
        recurse(3)
        with contextlib.ExitStack() as stack:
            stack.enter_context(pvti.Tracepoint(ch, "stacked"))
        by_hand = pvti.Tracepoint(ch, "by hand")
        assert by_hand.__enter__() is by_hand
        by_hand.__exit__(None, None, None)
        heat.add([0.5, 5, 50, 500])
        counts.add([1, 2, 3, 100])
    try:
        with pvti.Tracepoint(ch, "raises"):
            raise KeyError("x")
    except KeyError:
        pass
    assert decorated.__name__ == "decorated" and decorated.__doc__ == "its doc"
    assert decorated.__wrapped__(4, y=1) == 5
    pvti.setTraceMetadata("run", '{"seed": 7}')
    print(pvti.getCurrentTraceFilename())
"""


def test_decorator_and_context_manager_record(tmp_path):
    """Context managers, decorators (on functions and methods, with
    keyword arguments), instrument_fn, begin/end, instants, series and
    heatmaps all land in the trace, nested as they ran."""
    p = run(FORMS, tmp_path, {"directory": str(tmp_path)})
    trace = p.stdout.strip()
    assert glob.glob(str(tmp_path / "*.pvti")) == [trace]
    doc = trace_json(trace)
    counts = {name: l["count"] for (ch, name), l in labels(doc).items() if ch == "Py"}
    assert counts == {"outer": 1, "ctx": 3, "decorated": 6, "instrumented": 3, "method": 1,
                      "begin-end": 1, "reused": 4, "raises": 1, "stacked": 1, "by hand": 1}
    (outer,) = [r for r in doc["call_tree"]["roots"] if r["name"] == "outer"]
    kids = {c["name"]: c for c in outer["children"]}
    assert set(kids) == {"ctx", "method", "begin-end", "reused", "stacked", "by hand"}
    ctx_kids = {c["name"]: c["count"] for c in kids["ctx"]["children"]}
    assert ctx_kids == {"decorated": 3, "instrumented": 3}
    depth, node = 0, kids["reused"]
    while node["children"]:
        (node,) = node["children"]
        depth += 1
    assert depth == 3 and node["name"] == "reused"
    (s,) = doc["series"]
    assert (s["graph"], s["name"], s["unit"], s["samples"], s["min"], s["max"]) == (
        "Rate", "hits", "%", 3, 0.0, 20.0)
    assert [(h["name"], h["edges"], h["counts"]) for h in doc["heatmaps"]] == [
        ("sizes", [1.0, 10.0], [1, 1, 2]), ("counts", [10, 100], [3, 0, 1])]
    t = tilescope.openTrace(trace)
    assert [(i.channel, i.name) for i in t.instants()] == [("Py", "via event"),
                                                          ("Framework", "instant")]
    outer_span = next(s for s in t.spans(0) if s.name == "outer")
    assert json.loads(t.eventMetadata(0, outer_span.seq)) == {"k": [1, 2]}
    assert json.loads(t.processes[0].metadata["run"]) == {"seed": 7}
    assert [(h.name, h.unit, h.edges, h.samples) for h in t.heatmaps] == [
        ("sizes", "bytes", (1.0, 10.0), 1), ("counts", "", (10.0, 100.0), 1)]
    assert t.heatmapCounts(0) == [[1, 1, 2]] and t.heatmapCounts(1) == [[3, 0, 1]]
    assert t.processes[0].metadata["pvti.unbalanced_ends"] == "0"


def test_threads_and_unbalanced_ends(tmp_path):
    """Each Python thread is a thread of the trace, named by setThreadName;
    an end with no span open on its channel is counted, not recorded, as
    pvti_end does."""
    code = """
        import threading
        from tilescope import pvti
        ch = pvti.createTraceChannel("Workers")

        def work(i):
            pvti.setThreadName(f"worker {i}")
            for _ in range(i + 1):
                with pvti.Tracepoint(ch, "job"):
                    pass
        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        pvti.Tracepoint.end(ch)
    """
    run(code, tmp_path, {"directory": str(tmp_path)})
    (trace,) = glob.glob(str(tmp_path / "*.pvti"))
    doc = trace_json(trace)
    spans = {t["name"]: t["spans"] for t in doc["threads"] if t["spans"]}
    assert spans == {"worker 0": 1, "worker 1": 2, "worker 2": 3}
    assert tilescope.openTrace(trace).processes[0].metadata["pvti.unbalanced_ends"] == "1"


def test_options_as_a_c_program(tmp_path):
    """PVTI_OPTIONS unset, disabled, with a channel list, and unparseable:
    what the C library does for a C program."""
    code = """
        from tilescope import pvti
        a, b = pvti.createTraceChannel("A"), pvti.createTraceChannel("B")
        with pvti.Tracepoint(a, "in a"):
            with pvti.Tracepoint(b, "in b"):
                pvti.instantEvent(b, "b instant")
        print(pvti.getCurrentTraceFilename(), pvti.checkTraceChannel(a),
              pvti.checkTraceChannel(b), pvti.listTraceChannel()[3:])
    """
    for options in (None, "", {"enable": False}, {"enable": "false"}):
        p = run(code, tmp_path, options)
        # No file name, and the channels on (they would be recorded).
        assert p.stdout.split() == ["True", "True", "[['A',", "True],", "['B',", "True]]"]
        assert os.listdir(tmp_path) == []
    p = run(code, tmp_path, {"directory": "sub", "channels": ["A"]})
    trace = p.stdout.split()[0]
    assert p.stdout.split()[1:3] == ["True", "False"]
    assert os.path.dirname(trace) == "sub"
    doc = trace_json(str(tmp_path / trace))
    assert list(labels(doc)) == [("A", "in a")]
    os.remove(tmp_path / trace)
    # Unparseable: traced with the defaults (here: the working directory)
    # and one line on stderr saying why.
    p = run(code, tmp_path, "{not json")
    (trace,) = glob.glob(str(tmp_path / "*.pvti"))
    assert p.stdout.split()[0] == "./" + os.path.basename(trace)
    assert len(p.stderr.splitlines()) == 1 and "PVTI" in p.stderr
    assert set(labels(trace_json(trace))) == {("A", "in a"), ("B", "in b")}


def test_one_trace_with_the_runtime(tmp_path):
    """A process that traces from Python and runs the IPU runtime (here
    through ctypes) writes one .pvti holding both: the runtime's "Graph
    construction" span on the Poplar channel inside the Python span."""
    build = os.path.dirname(os.path.dirname(os.environ["TILESCOPE"]))
    lib = os.path.join(build, "instrument", "libtilescope-instrument.so")
    assert os.path.exists(lib), f"{lib}: build the runtime first"
    code = """
        import ctypes, sys
        from tilescope import pvti
        rt = ctypes.CDLL(sys.argv[1])
        rt.tsi_device_get_target.restype = ctypes.c_void_p
        dev, graph = ctypes.c_void_p(), ctypes.c_void_p()
        with pvti.Tracepoint(pvti.traceFramework, "model"):
            assert rt.tsi_device_new_cpu(ctypes.byref(dev)) == 0
            target = ctypes.c_void_p(rt.tsi_device_get_target(dev))
            assert rt.tsi_graph_new(ctypes.byref(graph), target, 1) == 0
            rt.tsi_graph_free(graph)
        rt.tsi_device_free(dev)
    """
    run(code, tmp_path, {"directory": str(tmp_path)}, lib)
    (trace,) = glob.glob(str(tmp_path / "*.pvti"))
    (model,) = [r for r in trace_json(trace)["call_tree"]["roots"] if r["name"] == "model"]
    assert model["channel"] == "Framework"
    assert [(c["channel"], c["name"]) for c in model["children"]] == [
        ("Poplar", "Graph construction")]


def test_bad_arguments_raise():
    """Wrong arguments raise at once, whether or not a trace is open."""
    ch = pvti.createTraceChannel("Checks")
    assert ch == pvti.createTraceChannel("Checks") and ch.name == "Checks"
    assert pvti.createTraceChannel("Drivers") == pvti.traceDrivers
    for bad in ((ch,), (ch, 3), ("ch", "name"), (ch, "n", 5), (ch, "n", None, 1)):
        with pytest.raises(TypeError):
            pvti.Tracepoint(*bad)
    for bad in ((42,), (print, 1), (None, None, None, None)):
        with pytest.raises(TypeError):
            pvti.Tracepoint(ch, "n")(*bad)
    with pytest.raises(TypeError):
        pvti.Tracepoint.__enter__(42)
    with pytest.raises(TypeError):
        pvti.Tracepoint.__exit__(pvti.Tracepoint(ch, "n"))
    with pytest.raises(TypeError):
        pvti.instantEvent(ch)
    with pytest.raises(TypeError):
        pvti.createTraceChannel(None)
    with pytest.raises(ValueError):
        pvti.createTraceChannel("")
    with pytest.raises(TypeError):
        pvti.Graph("g").addSeries("s").add("not a number")
    with pytest.raises(ValueError):
        pvti.HeatmapDouble("h", [2.0, 1.0])
    with pytest.raises(TypeError):
        with pvti.instrument_fn(ch):
            pass


def test_bad_metadata_raises_when_recording(tmp_path):
    """Metadata that is not JSON raises ValueError with the library's
    message, and leaves no span open."""
    code = """
        from tilescope import pvti
        ch = pvti.createTraceChannel("M")
        try:
            with pvti.Tracepoint(ch, "bad", "{not json"):
                raise SystemExit("the block ran")
        except ValueError as e:
            print(e)
        with pvti.Tracepoint(ch, "good"):
            pass
    """
    p = run(code, tmp_path, {"directory": str(tmp_path)})
    assert "not valid JSON" in p.stdout
    (trace,) = glob.glob(str(tmp_path / "*.pvti"))
    doc = trace_json(trace)
    assert {r["name"] for r in doc["call_tree"]["roots"]} == {"bad", "good"}
    assert all(not r["children"] for r in doc["call_tree"]["roots"])
