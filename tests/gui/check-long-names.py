#!/usr/bin/python3
"""Names of 16 KiB in both apps (issue 33): shown cut, whole on request.

make-long-names rewrites every name of tutorial 4's report and of
tutorial 5's trace to 16,384 bytes (its old text, "#<row>", filler of
one-, two- and three-byte characters, "end#<row>"). Then, as a person
would:

1. The Graph Analyser opens the report to its Summary (polled, never a
   fixed wait; the app's CPU seconds are printed, not asserted: a
   benchmark prints figures). In each view a name is shown cut: a label
   whose text keeps the start and the end of one of the file's names
   around a middle ellipsis ("…") in at most 160 characters, with the
   whole name in its tooltip (GTK 4.8 gives it to assistive technology
   as the description), and the details panes hold whole names:
   - Summary: "Vertex data by type" and "Always-live variables";
   - Insights: "Largest always-live variables";
   - Memory: tiles 0-63 selected, the Variables tab's table;
   - Liveness: the "Always-live variables" table;
   - Program Tree: a regular-expression search selects a program; its
     row is cut and the details' "Name" holds the whole name;
   - Operations: filtered to one operation, the details' "Operation" whole;
   - Execution Trace: with the pointer on a compute step, the lanes'
     description names its compute set cut.
2. The System Analyser opens the trace: the Statistics' names are cut
   with the whole name as tooltip, a span found with Ctrl+F is named cut
   in the timeline's description and whole in the Span tab's Name, and
   the Call Tree's names are cut.

    check-long-names.py GRAPH_ANALYSER SYSTEM_ANALYSER MAKE_LONG_NAMES SAMPLE_REPORTS
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (find, finish, is_figure, other_views, running_app, show_view,  # noqa: E402
                        text_of, wait_for, walk)

ELLIPSIS = "…"
# tsd-name.h's TSD_NAME_MAX_CHARS: the most a cut name shows.
MAX_CHARS = 160
# A cut name may sit in a longer text ("OnTileExecute: …", "(tid 42)").
MAX_TEXT = MAX_CHARS + 80


def cpu_seconds(pid):
    """The process's user + system CPU time (/proc), for the figures."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def names_of(db, query):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute(query) if r[0]]
    finally:
        con.close()


def parts(text):
    """(start, end) of a cut text, or None when it holds no ellipsis."""
    if ELLIPSIS not in text:
        return None
    start, _, end = text.partition(ELLIPSIS)
    return start, end


def cut_of(text, fulls):
    """The full name `text` shows cut, or None: its start and end are the
    start and end of one of `fulls` (start may follow a prefix, end may
    precede a suffix such as " (tid 1)")."""
    p = parts(text or "")
    if p is None:
        return None
    start, end = p
    for full in fulls:
        # A prefix ("OnTileExecute: ") before the name's start, a suffix
        # after its end: the name's own 20 first and last characters
        # must be there.
        if full[:20] in start and full[-20:] in end and len(full) > MAX_CHARS:
            return full
    return None


def cut_labels(root, fulls, prune=None):
    """The labels below root showing one of `fulls` cut: [(label, full)]."""
    found = []
    for acc in walk(root, prune=prune):
        try:
            if acc.getRole() != pyatspi.ROLE_LABEL:
                continue
            full = cut_of(acc.name or "", fulls)
        except Exception:
            continue
        if full is not None:
            found.append((acc, full))
    return found


def check_cut(failures, what, root, fulls, prune=None, tooltip=True):
    """At least one label below root shows a name of `fulls` cut, in at
    most MAX_TEXT characters, with the whole name as its tooltip (the
    description). Waits (polling) for the view to fill."""
    got = []
    if not wait_for(lambda: got.__setitem__(slice(None), cut_labels(root, fulls, prune)) or got):
        sample = [a.name[:60] for a in walk(root, prune=prune)
                  if a.getRole() == pyatspi.ROLE_LABEL and a.name][:5]
        failures.append(f"{what}: no name shown cut with an ellipsis (labels: {sample})")
        return
    for acc, full in got:
        n = len(acc.name)
        if n > MAX_TEXT:
            failures.append(f"{what}: a label shows {n} characters: {acc.name[:60]!r}…")
        if tooltip and (acc.description or "") != full:
            failures.append(f"{what}: the tooltip of {acc.name[:50]!r}… is "
                            f"{len(acc.description or '')} characters, not the whole name "
                            f"({len(full)})")
    print(f"{what}: {len(got)} names cut, e.g. {got[0][0].name!r} "
          f"({len(got[0][0].name)} of {len(got[0][1])} characters)")


def details(app, key, prune):
    acc = find(app, lambda a: is_figure(a, key),
               timeout=1, prune=prune)
    return text_of(acc) if acc is not None else None


def check_lanes(failures, lanes, compute_sets):
    """Points at the compute lane until the lanes say the pointer is on a
    compute step: its compute set named cut, the description bounded."""
    x, y, w, h = lanes.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
    on = re.compile(r"Pointer on: OnTileExecute “([^”]*)”")
    if x < 0 or y < 0:
        # A window wider than the screen (names measured whole) puts the
        # lanes out of the pointer's reach.
        failures.append(f"Execution Trace: the lanes are off the screen at ({x}, {y})")
        return

    def point(px, py, on_plot):
        """Moves the pointer and waits for the lanes to say whether it is
        over the plot: the description then says what it is on."""
        subprocess.run(["xdotool", "mousemove", str(px), str(py)], check=True)
        return wait_for(lambda: ("Pointer on: " in (lanes.description or "")) == on_plot)

    for fy in (0.25, 0.3, 0.2, 0.35, 0.4, 0.15, 0.45):
        for fx in range(20, 95, 5):
            px, py = x + w * fx // 100, int(y + h * fy)
            # Off the plot (over the lanes' names) first, so that the next
            # point's answer is a change whatever it is.
            if not point(x + 4, py, False) or not point(px, py, True):
                continue
            m = on.search(lanes.description or "")
            if not m:
                continue
            if not cut_of(m.group(1), compute_sets):
                failures.append(f"Execution Trace: the step under the pointer is not named "
                                f"cut: {m.group(1)[:80]!r} ({len(m.group(1))} characters)")
            else:
                print(f"Execution Trace: pointer on {m.group(1)!r}")
            if len(lanes.description) > 2000:
                failures.append(f"Execution Trace: the description has "
                                f"{len(lanes.description)} characters")
            return
    failures.append(f"Execution Trace: the pointer found no compute step: "
                    f"{(lanes.description or '')[:300]!r}")


def check_graph_analyser(failures, app_path, report):
    pop = os.path.join(report, "profile.pop")
    vertex_types = names_of(pop, "SELECT s.text FROM vertex_type v JOIN string s ON s.id = v.name")
    always = names_of(pop, "SELECT s.text FROM variable v JOIN string s ON s.id = v.name "
                           "WHERE v.always_live = 1")
    variables = names_of(pop, "SELECT s.text FROM variable v JOIN string s ON s.id = v.name")
    programs = names_of(pop, "SELECT s.text FROM program p JOIN string s ON s.id = p.name "
                             "ORDER BY p.id")
    operations = names_of(pop, "SELECT s.text FROM debug_context d "
                               "JOIN string s ON s.id = d.name ORDER BY d.id")
    compute_sets = names_of(pop, "SELECT s.text FROM compute_set c JOIN string s ON s.id = c.name")
    if not (vertex_types and always and programs and operations) or \
            len(programs[0].encode()) < 16000:
        raise SystemExit("FAIL: make-long-names did not write long names into " + pop)
    t0 = time.time()
    with running_app(app_path, [report]) as (proc, app, tmp):
        summary = other_views("Summary")
        if find(app, lambda a: is_figure(a, "Number of IPUs") and text_of(a),
                prune=summary) is None:
            raise SystemExit("FAIL: the Summary never showed the Number of IPUs")
        print(f"Summary shown: {time.time() - t0:.2f} s after launch, "
              f"{cpu_seconds(proc.pid):.2f} s of the app's CPU")

        for name, fulls in (("Vertex data by type", vertex_types),
                            ("Always-live variables", always)):
            lst = find(app, lambda a: a.name == name and a.getRole() == pyatspi.ROLE_LIST,
                       prune=summary)
            if lst is None:
                failures.append(f"Summary: no list named {name!r}")
            else:
                check_cut(failures, f"Summary, {name}", lst, fulls)

        def visit(view):
            c0, w0 = cpu_seconds(proc.pid), time.time()
            if show_view(app, view) is None:
                raise SystemExit(f"FAIL: no sidebar entry named {view!r}")
            return c0, w0

        def shown(view, c0, w0):
            print(f"{view}: checked {time.time() - w0:.2f} s after selecting it, "
                  f"{cpu_seconds(proc.pid) - c0:.2f} s of the app's CPU")

        c0, w0 = visit("Insights")
        prune = other_views("Insights")
        lst = find(app, lambda a: a.name == "Largest always-live variables" and
                   a.getRole() == pyatspi.ROLE_LIST, prune=prune)
        if lst is None:
            failures.append("Insights: no list named 'Largest always-live variables'")
        else:
            check_cut(failures, "Insights, largest always-live variables", lst, always)
        shown("Insights", c0, w0)

        c0, w0 = visit("Memory")
        prune = other_views("Memory")
        entry = find(app, lambda a: a.name == "Select tiles" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
        if entry is None:
            failures.append("Memory: no 'Select tiles' entry")
        else:
            entry.queryEditableText().setTextContents("0-63")
            entry.queryAction().doAction(0)
            tab = find(app, lambda a: a.name == "Variables" and
                       a.getRole() == pyatspi.ROLE_PAGE_TAB, prune=prune)
            if tab is None:
                failures.append("Memory: no tab named 'Variables'")
            else:
                tab.parent.querySelection().selectChild(tab.getIndexInParent())
                table = find(app, lambda a: a.name == "Variables on the selection", prune=prune)
                if table is None:
                    failures.append("Memory: no table 'Variables on the selection'")
                else:
                    check_cut(failures, "Memory, variables on tiles 0-63", table, variables)
        shown("Memory", c0, w0)

        c0, w0 = visit("Liveness")
        prune = other_views("Liveness")
        table = find(app, lambda a: a.name == "Always-live variables" and
                     a.getRole() in (pyatspi.ROLE_TABLE, pyatspi.ROLE_TREE_TABLE), prune=prune)
        if table is None:
            failures.append("Liveness: no table 'Always-live variables'")
        else:
            check_cut(failures, "Liveness, always-live variables", table, always)
        shown("Liveness", c0, w0)

        c0, w0 = visit("Program Tree")
        prune = other_views("Program Tree")
        entry = find(app, lambda a: a.name == "Search programs" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
        # The last named program (the search selects its first match).
        want = programs[-1]
        if entry is None:
            failures.append("Program Tree: no 'Search programs' entry")
        else:
            entry.queryEditableText().setTextContents("^" + re.escape(want[:want.index(" #") + 8]))
            if not wait_for(lambda: details(app, "Name", prune) == want):
                got = details(app, "Name", prune)
                failures.append(f"Program Tree: the details' 'Name' holds "
                                f"{len(got) if got else None} characters, not the whole "
                                f"name ({len(want)})")
            else:
                print(f"Program Tree: the details' Name holds all {len(want)} characters")
        tree = find(app, lambda a: a.name == "Program tree" and
                    a.getRole() in (pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TABLE), prune=prune)
        check_cut(failures, "Program Tree, rows", tree if tree is not None else app, programs,
                  prune=prune)
        shown("Program Tree", c0, w0)

        c0, w0 = visit("Operations")
        prune = other_views("Operations")
        entry = find(app, lambda a: a.name == "Filter operations" and
                     a.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY), prune=prune)
        want = operations[-1]
        if entry is None:
            failures.append("Operations: no 'Filter operations' entry")
        else:
            check_cut(failures, "Operations, rows", app, operations, prune=prune)
            entry.queryEditableText().setTextContents(want[:want.index(" #") + 8])
            if not wait_for(lambda: details(app, "Operation", prune) == want):
                got = details(app, "Operation", prune)
                failures.append(f"Operations: the details' 'Operation' holds "
                                f"{len(got) if got else None} characters, not the whole "
                                f"name ({len(want)})")
            else:
                print(f"Operations: the details' Operation holds all {len(want)} characters")
        shown("Operations", c0, w0)

        c0, w0 = visit("Execution Trace")
        prune = other_views("Execution Trace")
        lanes = find(app, lambda a: a.name == "Execution trace" and
                     a.getRole() == pyatspi.ROLE_IMAGE, prune=prune)
        if lanes is None:
            failures.append("Execution Trace: no image named 'Execution trace'")
        else:
            check_lanes(failures, lanes, compute_sets)
        shown("Execution Trace", c0, w0)
        print(f"all views: {time.time() - t0:.2f} s, {cpu_seconds(proc.pid):.2f} s of the "
              f"app's CPU")


def key(*keys):
    subprocess.run(["xdotool", "key", *keys], check=True)


def check_system_analyser(failures, app_path, trace):
    labels = names_of(trace, "SELECT value FROM string")
    if not labels or min(len(x.encode()) for x in labels) < 16000:
        raise SystemExit("FAIL: make-long-names did not write long names into " + trace)
    t0 = time.time()
    with running_app(app_path, [trace]) as (proc, app, tmp):
        table = find(app, lambda a: a.name == "Statistics" and
                     a.getRole() in (pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TABLE))
        if table is None or not wait_for(
                lambda: (table.description or "").startswith("Whole trace")):
            raise SystemExit("FAIL: the Statistics never showed the whole trace")
        print(f"Statistics shown: {time.time() - t0:.2f} s after launch, "
              f"{cpu_seconds(proc.pid):.2f} s of the app's CPU")
        check_cut(failures, "Statistics", table, labels)
        timeline = find(app, lambda a: a.name == "Timeline" and a.getRole() == pyatspi.ROLE_IMAGE)
        if timeline is None:
            raise SystemExit("FAIL: no image named 'Timeline'")

        # Find a span by its name's start; the timeline names it cut, the
        # Span tab whole.
        want = [x for x in labels if x.startswith("Run program 1 (epoch)")]
        if len(want) != 1:
            raise SystemExit(f"FAIL: the trace has {len(want)} 'Run program 1 (epoch)' names")
        want = want[0]
        key("ctrl+f")
        subprocess.run(["xdotool", "type", "--delay", "30", "run program 1 (epoch)"], check=True)
        sel = re.compile(r"; selected (.*?), [\d.]+ [µnm]?s, on ")
        if not wait_for(lambda: sel.search(timeline.description or "") and
                        cut_of(sel.search(timeline.description).group(1), [want])):
            failures.append(f"the timeline does not name the span found cut: "
                            f"{(timeline.description or '')[:300]!r}")
        else:
            print(f"timeline: selected {sel.search(timeline.description).group(1)!r}")
        key("alt+4")
        name = []

        def span_name():
            # The value is the label after its field's (GTK 4.8 names
            # labels by their text).
            label = find(app, lambda a: a.name == "Name" and a.getRole() == pyatspi.ROLE_LABEL and
                         a.parent is not None and
                         a.parent.getRole() not in (pyatspi.ROLE_TABLE_CELL,
                                                    pyatspi.ROLE_COLUMN_HEADER) and
                         a.getIndexInParent() + 1 < a.parent.childCount and
                         a.parent.getChildAtIndex(a.getIndexInParent() + 1).getRole() ==
                         pyatspi.ROLE_LABEL, timeout=1)
            if label is None:
                return None
            value = label.parent.getChildAtIndex(label.getIndexInParent() + 1)
            name[:] = [text_of(value)]
            return name[0]

        if not wait_for(lambda: span_name() == want):
            failures.append(f"the Span tab's Name holds {len(name[0]) if name else None} "
                            f"characters, not the whole name ({len(want)})")
        else:
            print(f"Span tab: Name holds all {len(want)} characters")

        key("alt+2")
        tree = find(app, lambda a: a.name == "Call Tree" and
                    a.getRole() in (pyatspi.ROLE_TREE_TABLE, pyatspi.ROLE_TABLE))
        if tree is None:
            failures.append("no tree table named 'Call Tree'")
        else:
            check_cut(failures, "Call Tree", tree, labels)
        print(f"System Analyser: {time.time() - t0:.2f} s, {cpu_seconds(proc.pid):.2f} s of the "
              f"app's CPU")


def main():
    ga, sa, maker, samples = sys.argv[1:5]
    failures = []
    with tempfile.TemporaryDirectory(prefix="long-names-") as tmp:
        report = os.path.join(tmp, "report")
        os.mkdir(report)
        trace = os.path.join(tmp, "long.pvti")
        subprocess.run([maker, "report", os.path.join(samples, "tut4_profiling"), report],
                       check=True)
        subprocess.run([maker, "trace", os.path.join(samples, "tut5_ml", "tut5_ml.pvti"), trace],
                       check=True)
        check_graph_analyser(failures, ga, report)
        check_system_analyser(failures, sa, trace)
    finish(failures)


if __name__ == "__main__":
    main()
