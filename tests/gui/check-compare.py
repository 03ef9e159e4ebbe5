#!/usr/bin/python3
"""Compare mode, used as a person would, against `tilescope diff`.

1. Opens the two tutorial 7 sizes (`tilescope-graph-analyser A B`, A the
   base). The window's title must say "A vs B". In the Summary every
   compare figure shown (named by its row and column, as a reader says a
   table's cell: "METRIC, A" / "B" / "Δ" / "%") must equal `tilescope diff --format=json A B`'s delta of
   METRIC (values, change, the diff's percent text and its better/worse
   verdict after the value in the change's description), and every total, category and
   step type of the diff must be shown; the "Filter metrics" entry must
   leave only matching metrics. Memory's difference caption must name
   the largest increase and decrease and their tiles as computed here
   from both files' tile_memory (`tilescope sql`). Liveness must caption
   B's peak with B's maximum live bytes (`tilescope summary --json B`).
   Close the Comparison (main menu) must leave report A alone.
2. Opens tutorial 4 against tutorial 5 (operations in one report only):
   the Operations view's A, B and Δ of an operation must equal the
   diff's cycles.operation.<path>, memory and FLOPs, and operations in
   one report only must be listed in the "Only in A" / "Only in B"
   sections, as must the Summary's metrics of one report only. "Sort by"
   "Cycles B" must order each section by the diff's cycles of B, largest
   first, and chosen again smallest first; "Memory" unchecked in the
   compare page's columns must leave no memory figure shown.
3. A missing report B ends on the error page naming report B and its
   path.

    check-compare.py APP TILESCOPE SAMPLES_DIR
Run through run-gui-test.sh (Xvfb, D-Bus session, AT-SPI bus).
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

import pyatspi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_util import (click, compare_figures, find, finish, is_figure,  # noqa: E402
                        other_views, plain, running_app, show_view, text_of, verdict_of,
                        wait_for)

KEYS = ("base", "new", "change", "percent")


def run(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def diff(tilescope, a, b):
    """The diff's deltas by metric. Exit status 1 is a regression, not an
    error."""
    p = subprocess.run([tilescope, "diff", "--format=json", a, b], capture_output=True,
                       text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"FAIL: tilescope diff failed: {p.stderr}")
    return {d["metric"]: d for d in json.loads(p.stdout)["deltas"]}


def sql(tilescope, report, query):
    return list(csv.DictReader(io.StringIO(run([tilescope, "sql", "--csv", report, query]))))


def expected_text(d, key):
    """What the view must show for delta d's figure `key`, as the diff's
    text output formats it."""
    b, n = d["base"], d["new"]
    if key == "base":
        return f"{b:,}" if d["in_base"] else "—"
    if key == "new":
        return f"{n:,}" if d["in_new"] else "—"
    if key == "change":
        c = d["change"]
        return ("+" if c > 0 else "-" if c < 0 else "") + f"{abs(c):,}"
    if n == b:
        return ""
    if b == 0:
        return "new"
    return f"{(n - b) * 100.0 / b:+.1f}%"


def compare_labels(app, view):
    """{(metric, key): accessible} of the compare figures shown in `view`."""
    return compare_figures(app, view)


def in_section(acc, title):
    """Whether acc sits in the grid named `title`."""
    a = acc.parent
    while a is not None:
        if a.name == title:
            return True
        a = a.parent
    return False


def check_figures(labels, deltas, failures, what):
    """Every shown figure against the diff; returns the metrics checked."""
    metrics = set()
    for (metric, key), acc in labels.items():
        d = deltas.get(metric)
        if d is None:
            failures.append(f"{what}: {metric} is shown but tilescope diff has no such metric")
            continue
        shown, want = text_of(acc), expected_text(d, key)
        if shown != want:
            failures.append(f"{what}: {metric}.{key} shows {shown!r}, tilescope diff says "
                            f"{want!r}")
        if key == "change":
            verdict = verdict_of(acc)
            if verdict != d["verdict"]:
                failures.append(f"{what}: {metric} is marked {verdict!r}, tilescope diff says "
                                f"{d['verdict']!r}")
        metrics.add(metric)
    return metrics


def tile_bytes(tilescope, report):
    return {int(r["tile"]): int(r["total"]) for r in
            sql(tilescope, report, "SELECT tile, total FROM tile_memory ORDER BY tile")}


def expected_difference(tilescope, a, b):
    """The difference caption's figures: (largest increase, its tile),
    (largest decrease, its tile), the first tile of equals."""
    ta, tb = tile_bytes(tilescope, a), tile_bytes(tilescope, b)
    inc, inc_tile, dec, dec_tile = 0, 0, 0, 0
    grew = shrank = 0
    for t in range(max(len(ta), len(tb))):
        d = tb.get(t, 0) - ta.get(t, 0)
        grew += d > 0
        shrank += d < 0
        if d > inc:
            inc, inc_tile = d, t
        if d < dec:
            dec, dec_tile = d, t
    text = "B − A per tile, excluding gaps: "
    text += f"largest increase +{inc:,} B on tile {inc_tile}" if inc > 0 else "no tile grew"
    text += f"; largest decrease -{-dec:,} B on tile {dec_tile}" if dec < 0 else \
        "; no tile shrank"
    text += f"; {grew:,} tiles grew"
    return text


def check_tut7(app_path, tilescope, a, b, failures):
    deltas = diff(tilescope, a, b)
    peak_b = json.loads(run([tilescope, "summary", "--json", b]))["liveness"]["maxLiveBytes"]
    with running_app(app_path, [a, b]) as (proc, app, tmp):
        frame = find(app, lambda x: x.getRole() == pyatspi.ROLE_FRAME and " vs " in (x.name or ""))
        want_title = f"{os.path.basename(a)} vs {os.path.basename(b)}"
        if frame is None or not frame.name.startswith(want_title):
            failures.append(f"the window's title is not '{want_title} — …'")
        if show_view(app, "Summary") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Summary'")
        first = find(app, lambda x: x.name == "cycles.total, Δ",
                     prune=other_views("Summary"))
        if first is None:
            raise SystemExit("FAIL: the Summary shows no compare figure 'cycles.total, Δ'")
        labels = compare_labels(app, "Summary")
        shown = check_figures(labels, deltas, failures, "Summary")
        for metric, d in deltas.items():
            small_group = d["group"] in ("total", "category", "step_type")
            if small_group and metric not in shown:
                failures.append(f"Summary: tilescope diff's {metric} is not shown")
            for key in KEYS:
                if metric in shown and (metric, key) not in labels:
                    failures.append(f"Summary: {metric} has no {key} figure")
        print(f"Summary: {len(shown)} metrics, {len(labels)} figures match tilescope diff")

        entry = find(app, lambda x: x.name == "Filter metrics" and
                     x.getRole() in (pyatspi.ROLE_TEXT, pyatspi.ROLE_ENTRY),
                     prune=other_views("Summary"))
        if entry is None:
            failures.append("the Summary has no 'Filter metrics' entry")
        else:
            entry.queryEditableText().setTextContents("step_type")
            gone = wait_for(lambda: find(app, lambda x: x.name == "cycles.total, Δ",
                                         timeout=0.5, prune=other_views("Summary")) is None)
            after = set(m for m, _ in compare_labels(app, "Summary"))
            want = set(m for m in deltas if "step_type" in m)
            if not gone or after != want:
                failures.append(f"Summary: the filter 'step_type' shows {sorted(after)}, "
                                f"expected {sorted(want)}")
            entry.queryEditableText().setTextContents("")

        show_view(app, "Memory")
        want_caption = expected_difference(tilescope, a, b)
        caption = find(app, lambda x: x.getRole() == pyatspi.ROLE_LABEL and
                       text_of(x).startswith("B − A per tile"), prune=other_views("Memory"))
        if caption is None:
            failures.append("Memory: no difference caption ('B − A per tile …')")
        elif not text_of(caption).startswith(want_caption):
            failures.append(f"Memory: the difference caption says {text_of(caption)!r}; "
                            f"from the files: {want_caption!r}")
        else:
            print("Memory:", text_of(caption))
        chart = find(app, lambda x: x.name == "Memory difference by tile (B − A)",
                     prune=other_views("Memory"))
        if chart is None:
            failures.append("Memory: no chart named 'Memory difference by tile (B − A)'")

        show_view(app, "Liveness")
        want_peak = f"maximum live bytes (including always-live) {peak_b:,}"
        cap = find(app, lambda x: x.getRole() == pyatspi.ROLE_LABEL and
                   text_of(x).startswith("B — "), prune=other_views("Liveness"))
        if cap is None or want_peak not in text_of(cap):
            failures.append(f"Liveness: B's caption is {text_of(cap) if cap else None!r}, "
                            f"expected it to say {want_peak!r}")
        else:
            print("Liveness:", text_of(cap))

        # Close the Comparison (main menu): back to A alone.
        menu = find(app, lambda x: x.name == "Main Menu" and
                    x.getRole() in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON))
        item = None
        if menu is not None:
            click(menu)
            item = find(app, lambda x: x.getRole() == pyatspi.ROLE_MENU_ITEM and
                        "Close the Comparison" in plain(x.name))
        if item is None:
            failures.append("the main menu has no 'Close the Comparison'")
        else:
            click(item)
            alone = f"{os.path.basename(a)} — "
            if not wait_for(lambda: find(app, lambda x: x.getRole() == pyatspi.ROLE_FRAME,
                                         timeout=1).name.startswith(alone)):
                failures.append(f"after Close the Comparison the title is not '{alone}…'")
            show_view(app, "Summary")
            single = find(app, lambda x: is_figure(x, "Number of vertices"),
                          prune=other_views("Summary"))
            if single is None or text_of(single) != f"{deltas['graph.vertices']['base']:,}":
                failures.append("after Close the Comparison the Summary does not show report "
                                "A's graph.numVertices")
            else:
                print("Closed the comparison: the Summary shows A alone")


def check_operations(app_path, tilescope, a, b, failures):
    deltas = diff(tilescope, a, b)
    ops = {}
    for metric, d in deltas.items():
        for prefix in ("cycles.operation.", "memory.operation.", "flops.operation."):
            if metric.startswith(prefix):
                ops.setdefault(metric[len(prefix):], []).append(d)
    only_b = sorted(p for p, ds in ops.items() if not any(d["in_base"] for d in ds))
    only_a = sorted(p for p, ds in ops.items() if not any(d["in_new"] for d in ds))
    if not only_a or not only_b:
        raise SystemExit("FAIL: the pair has no operation in one report only")
    # The costliest operation of B, by cycles.
    pick = max(only_b, key=lambda p: (deltas.get("cycles.operation." + p, {}).get("new", 0), p))
    with running_app(app_path, [a, b]) as (proc, app, tmp):
        if show_view(app, "Operations") is None:
            raise SystemExit("FAIL: no sidebar entry named 'Operations'")
        name = f"{pick}, Cycles Δ"
        acc = find(app, lambda x: x.name == name, prune=other_views("Operations"))
        if acc is None:
            raise SystemExit(f"FAIL: Operations shows no figure named {name}")
        labels = compare_labels(app, "Operations")
        shown = check_figures(labels, deltas, failures, "Operations")
        for prefix in ("cycles", "memory", "flops"):
            metric = f"{prefix}.operation.{pick}"
            for key in ("base", "new", "change"):
                if (metric, key) not in labels:
                    failures.append(f"Operations: {metric}.{key} is not shown")
        for path, title in [(p, "Only in B") for p in only_b] + [(p, "Only in A") for p in only_a]:
            acc = labels.get((f"memory.operation.{path}", "change"))
            if acc is None or not in_section(acc, title):
                failures.append(f"Operations: {path} is not listed under {title!r}")
        print(f"Operations: {pick}: A {text_of(labels[('cycles.operation.' + pick, 'base')])!r}"
              f", B {text_of(labels[('cycles.operation.' + pick, 'new')])!r}, Δ "
              f"{text_of(labels[('cycles.operation.' + pick, 'change')])!r} cycles; "
              f"{len(shown)} metrics match tilescope diff; {len(only_a)} only in A and "
              f"{len(only_b)} only in B listed")

        check_sorting(app, deltas, failures)

        show_view(app, "Summary")
        one_side = [m for m, d in deltas.items() if d["in_base"] != d["in_new"]]
        first = next(m for m in one_side if deltas[m]["in_base"])
        acc = find(app, lambda x: x.name == first + ", A", prune=other_views("Summary"))
        if acc is None or not in_section(acc, "Only in A"):
            failures.append(f"Summary: {first} (only in A) is not listed under 'Only in A'")
        first_b = next(m for m in one_side if deltas[m]["in_new"])
        acc = find(app, lambda x: x.name == first_b + ", B", prune=other_views("Summary"))
        if acc is None or not in_section(acc, "Only in B"):
            failures.append(f"Summary: {first_b} (only in B) is not listed under 'Only in B'")
        elif text_of(acc) != expected_text(deltas[first_b], "new"):
            failures.append(f"Summary: {first_b}.new shows {text_of(acc)!r}")


def sorted_by_cycles_b(app, deltas, descending):
    """Whether every section lists its operations by the diff's cycles of
    B (ties by path), in that direction."""
    prefix = "cycles.operation."
    for title in ("In both", "Only in A", "Only in B"):
        shown = [m[len(prefix):] for (m, key), acc in compare_labels(app, "Operations").items()
                 if key == "new" and m.startswith(prefix) and in_section(acc, title)]
        want = sorted(shown, key=lambda p: (deltas[prefix + p]["new"], p), reverse=descending)
        if shown != want:
            return False
    return True


def choose(app, menu_name, choice_name):
    """Opens the menu button named `menu_name` in Operations and clicks its
    entry `choice_name`; False when either is missing."""
    prune = other_views("Operations")
    menu = find(app, lambda x: x.name == menu_name and x.childCount > 0 and
                x.getRole() in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON), prune=prune)
    if menu is None:
        return False
    opener = menu.getChildAtIndex(0)
    click(opener)
    choice = find(app, lambda x: x.name == choice_name and x is not opener and
                  x.getRole() in (pyatspi.ROLE_PUSH_BUTTON, pyatspi.ROLE_TOGGLE_BUTTON), prune=prune)
    if choice is None:
        return False
    click(choice)
    return True


def check_sorting(app, deltas, failures):
    """Sort by Cycles B both ways, then hide the Memory columns."""
    for descending in (True, False):
        if not choose(app, "Sort by", "Cycles B"):
            failures.append("Operations: no 'Sort by' menu with 'Cycles B'")
            return
        if not wait_for(lambda: sorted_by_cycles_b(app, deltas, descending)):
            failures.append("Operations: 'Sort by Cycles B' does not order the sections by "
                            f"tilescope diff's cycles of B, {'largest' if descending else 'smallest'}"
                            " first")
        else:
            print(f"Operations: sorted by Cycles B, {'largest' if descending else 'smallest'} first")
    if not choose(app, "Compared columns", "Memory"):
        failures.append("Operations: no 'Compared columns' menu with 'Memory'")
        return

    def metrics():
        return {m.split(".")[0] for m, _ in compare_labels(app, "Operations")}

    if not wait_for(lambda: metrics() == {"cycles", "flops"}):
        failures.append(f"Operations: with 'Memory' unchecked the figures shown are of "
                        f"{sorted(metrics())}, not cycles and FLOPs")
    else:
        print("Operations: 'Memory' unchecked, no memory figure shown")


def check_error(app_path, good, failures):
    """A missing report B ends on the error page naming report B."""
    with tempfile.TemporaryDirectory(prefix="ga-compare-") as tmp:
        missing = os.path.join(tmp, "no-such-report")
        with running_app(app_path, [good, missing]) as (proc, app, home):
            # GTK 4.8 names a label by its text once the text is set.
            msg = find(app, lambda x: x.getRole() == pyatspi.ROLE_LABEL and
                       text_of(x).startswith("Report B ("))
            if msg is None:
                failures.append("a missing report B does not end on an error naming report B")
            elif missing not in text_of(msg):
                failures.append(f"the error {text_of(msg)!r} does not name {missing}")
            else:
                print("Error page:", text_of(msg))


def main():
    app_path, tilescope, samples = sys.argv[1:4]
    failures = []
    check_tut7(app_path, tilescope, os.path.join(samples, "tut7_mk1"),
               os.path.join(samples, "tut7_mk1_small"), failures)
    check_operations(app_path, tilescope, os.path.join(samples, "tut4_profiling"),
                     os.path.join(samples, "tut5_ml"), failures)
    check_error(app_path, os.path.join(samples, "tut7_mk1"), failures)
    finish(failures)


if __name__ == "__main__":
    main()
