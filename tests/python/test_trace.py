"""tilescope.openTrace against `tilescope trace --json` on the sample
trace: label statistics, totals per channel and thread, counters and the
call tree, whole and in a window; the lazy span sequences; hostile files
(the fuzz corpus and damaged copies) raise and never crash."""
import gc
import glob
import math
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import tilescope
from conftest import ROOT, tilescope_json

SAMPLE = os.path.join(ROOT, "sample-reports", "tut5_ml", "tut5_ml.pvti")
# (tilescope trace's arguments, openTrace's keywords) of the views compared.
VIEWS = [((), {}), (("--thread", "0", "--from", "150", "--to", "300"),
                    {"thread": 0, "fromMs": 150, "toMs": 300})]


@pytest.fixture(scope="module")
def trace():
    return tilescope.openTrace(SAMPLE)


def kw_of(trace, kw):
    """openTrace keywords from milliseconds after the start, as the CLI's."""
    kw = dict(kw)
    for key in ("fromMs", "toMs"):
        if key in kw:
            kw[key[:-2] + "Ns"] = trace.startNs + kw.pop(key) * 1_000_000
    return kw


def node_dict(n):
    return {"channel": n.channel, "name": n.name, "count": n.count,
            "inclusive_ns": n.inclusiveNs, "exclusive_ns": n.exclusiveNs,
            "children": [node_dict(c) for c in n.children]}


def test_header(trace):
    doc = tilescope_json("trace", "--json", SAMPLE)
    t = doc["trace"]
    assert (t["files"], t["threads"], t["spans"], t["start_ns"], t["end_ns"],
            t["origin_wall_ns"], t["complete"]) == (
        len(trace.processes), len(trace.threads), trace.spanCount, trace.startNs,
        trace.endNs, trace.originWallNs, trace.complete)
    assert [{"path": p["path"], "pid": p["pid"], "host": p["host"], "name": p["name"],
             "complete": p["complete"]} for p in doc["processes"]] == [
        {"path": p.path, "pid": p.pid, "host": p.host, "name": p.name, "complete": p.complete}
        for p in trace.processes]
    assert set(trace.channels) >= {c["name"] for c in doc["channels"]}


@pytest.mark.parametrize("args,kw", VIEWS, ids=["whole", "window"])
def test_figures_equal_the_cli(trace, args, kw):
    doc = tilescope_json("trace", "--json", "--call-tree", *args, SAMPLE)
    kw = kw_of(trace, kw)
    stats = trace.labelStats(**kw)
    assert stats and len(stats) == len(doc["labels"])
    assert [{"channel": s.channel, "name": s.name, "count": s.count, "total_ns": s.totalNs,
             "self_ns": s.selfNs, "mean_ns": pytest.approx(s.meanNs, 1e-14), "median_ns": s.medianNs,
             "median_exact": s.medianExact, "min_ns": s.minNs, "max_ns": s.maxNs}
            for s in stats] == doc["labels"]
    totals = trace.totals(**kw)
    assert totals.spans == doc["spans"]
    assert [{"name": n, "spans": c.spans, "self_ns": c.selfNs}
            for n, c in totals.channels.items()] == doc["channels"]
    for th in doc["threads"]:
        mine, tt = trace.threads[th["thread"]], totals.threads[th["thread"]]
        assert (mine.process, mine.tid, mine.name, tt.spans, tt.busyNs, mine.firstNs,
                mine.lastNs) == (th["process"], th["tid"], th["name"], th["spans"],
                                 th["busy_ns"], th["first_ns"], th["last_ns"])
    tree = trace.callTree(**kw)
    assert (tree.spans, tree.inclusiveNs) == (doc["call_tree"]["spans"],
                                             doc["call_tree"]["inclusive_ns"])
    assert [node_dict(r) for r in tree.roots] == doc["call_tree"]["roots"]
    window = {k: v for k, v in kw.items() if k != "thread"}
    assert len(doc["series"]) == len(trace.series) > 0
    for s, js in zip(trace.series, doc["series"]):
        assert (s.process, s.graph, s.name, s.unit) == (js["process"], js["graph"], js["name"],
                                                        js["unit"])
        buckets = trace.counterBuckets(s.index, **window)
        assert len(buckets) == (1 if js["samples"] else 0)
        # The command's JSON numbers keep 15 digits.
        assert buckets[0].count == js["samples"]
        assert (buckets[0].min, buckets[0].max) == pytest.approx((js["min"], js["max"]), 1e-14)
    assert len(doc["heatmaps"]) == len(trace.heatmaps) > 0
    for h, jh in zip(trace.heatmaps, doc["heatmaps"]):
        assert trace.heatmapCounts(h.index, **window) == [jh["counts"]]
        h = trace.heatmaps[h.index]  # its skipped rows are known now
        assert (h.process, h.name, h.unit, list(h.edges), h.samples, h.firstNs, h.lastNs,
                h.skipped) == (jh["process"], jh["name"], jh["unit"], jh["edges"],
                               jh["samples"], jh["first_ns"], jh["last_ns"], jh["skipped"])
        cols = trace.heatmapCounts(h.index, **window, columns=4)
        assert len(cols) == 4 and [sum(c) for c in zip(*cols)] == jh["counts"]


def test_spans_are_a_lazy_sequence(trace):
    """spans(thread) holds every span of the thread once; it indexes
    (negative too), slices and iterates as a list of them would, and its
    durations add up to the label statistics."""
    for th in trace.threads:
        spans = trace.spans(th.index)
        assert len(spans) == th.spans
        every = list(spans)
        assert [s.seq for s in every] != [] and sorted(s.seq for s in every) == \
            list(range(th.spans))
        assert spans[-1] == every[-1] and spans[-len(every)] == every[0]
        assert spans[1:5] == every[1:5] and spans[::-3] == every[::-3]
        assert spans[5:2] == [] and spans[-2:] == every[-2:]
        with pytest.raises(IndexError):
            spans[len(every)]
        with pytest.raises(IndexError):
            spans[-len(every) - 1]
        assert all(s.kind == "event" and s.count == 1 and s.busyNs == s.endNs - s.startNs
                   and s.thread == th.index for s in every)
        totals = {}
        for s in every:
            totals[(s.channel, s.name)] = totals.get((s.channel, s.name), 0) + s.busyNs
        assert totals == {(l.channel, l.name): l.totalNs
                          for l in trace.labelStats(thread=th.index)}
    # A window: the spans that overlap it, at most those of the thread.
    mid = (trace.startNs + trace.endNs) // 2
    part = trace.spans(0, fromNs=mid, toNs=mid + 10_000_000)
    assert 0 < len(part) < len(trace.spans(0))
    assert all(s.startNs < mid + 10_000_000 and s.endNs > mid for s in part)
    # At a coarse resolution fewer items (runs of narrow spans merged)
    # stand for every span.
    coarse = trace.spans(0, resolutionNs=100_000_000)
    assert sum(s.count for s in coarse) == len(trace.spans(0)) > len(coarse)
    assert {s.kind for s in coarse} == {"merged"}
    with pytest.raises(IndexError):
        trace.spans(len(trace.threads))


def test_objects_keep_their_trace_alive():
    spans = tilescope.openTrace(SAMPLE).spans(0)
    gc.collect()
    assert spans[0].name == "Graph construction" and len(spans[2:4]) == 2


def test_threads_share_a_trace(trace):
    """Threads querying one Trace at once (each call holds its lock, the
    long ones without the GIL) get what one thread gets."""
    def answers():
        return (trace.labelStats(), trace.callTree(), trace.spans(0)[::7],
                trace.counterBuckets(0, bucketNs=1_000_000), trace.totals(thread=1))
    expected, got = answers(), []

    def worker():
        got.extend(answers() for _ in range(20))
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 80 and all(a == expected for a in got)


def test_errors_raise_with_reportlib_message(tmp_path):
    with pytest.raises(tilescope.Error, match="no-such.pvti"):
        tilescope.openTrace(str(tmp_path / "no-such.pvti"))
    with pytest.raises(tilescope.Error):
        tilescope.openTrace(os.path.join(ROOT, "sample-reports", "tut5_ml", "profile.pop"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(tilescope.Error, match="no trace"):
        tilescope.openTrace(str(tmp_path / "empty"))
    with pytest.raises(TypeError):
        tilescope.openTrace()
    t = tilescope.openTrace(SAMPLE)
    with pytest.raises(IndexError):
        t.counterBuckets(len(t.series))
    with pytest.raises(IndexError):
        t.heatmapCounts(len(t.heatmaps))
    with pytest.raises(ValueError):
        t.heatmapCounts(0, columns=0)
    with pytest.raises(tilescope.Error):
        t.labelStats(fromNs=10, toNs=5)
    with pytest.raises(TypeError):
        t.labelStats(thread="main")


HOSTILE = """
    import os, sys, tilescope
    opened = failed = 0
    for path in sys.argv[1:]:
        try:
            t = tilescope.openTrace(path)
        except tilescope.Error as e:
            assert str(e) and "\\n" not in str(e), repr(e)
            failed += 1
            continue
        opened += 1
        calls = [t.labelStats, t.totals, t.callTree, t.instants,
                 lambda: t.labelStats(median=False)]
        calls += [lambda i=i: list(t.spans(i)) + list(t.spans(i, resolutionNs=1000))
                  for i in range(len(t.threads))]
        calls += [lambda i=i: t.counterBuckets(i, bucketNs=1000) for i in range(len(t.series))]
        try:
            calls += [lambda i=i: t.heatmapCounts(i, columns=7) for i in range(len(t.heatmaps))]
        except tilescope.Error as e:
            assert str(e) and "\\n" not in str(e), repr(e)
        for call in calls:
            try:
                call()
            except (tilescope.Error, IndexError) as e:
                assert str(e) and "\\n" not in str(e), repr(e)
    print(opened, failed)
"""


def test_hostile_files_raise_and_never_crash(tmp_path):
    """The fuzz corpus's traces and Chrome files, and damaged copies of a
    trace (truncated, bytes overwritten), each open and answer or raise
    Error; the interpreter (a subprocess here) never dies."""
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus")
    paths = sorted(glob.glob(os.path.join(corpus, "trace", "*")) +
                   glob.glob(os.path.join(corpus, "chrome_json", "*")))
    data = open(SAMPLE, "rb").read()
    for i, cut in enumerate((100, 4096, len(data) // 2, len(data) - 512)):
        damaged = bytearray(data[:cut])
        if i % 2:
            for at in range(2048, len(damaged), 997):
                damaged[at] ^= 0x5A
        (tmp_path / f"damaged{i}.pvti").write_bytes(bytes(damaged))
        paths.append(str(tmp_path / f"damaged{i}.pvti"))
    assert len(paths) > 10
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(HOSTILE), *paths],
                       capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr[-3000:]
    opened, failed = map(int, p.stdout.split())
    assert opened + failed == len(paths) and opened > 0 and failed > 0
