#!/usr/bin/env python3
"""Where a run's cycles go, by layer: each execution step is charged to
the first DEPTH parts of its program's name ("test/fc/logits/Partials"
is layer "test/fc" at depth 2), as layer-analysis scripts over libpva do.

    layer_breakdown.py REPORT [--run N] [--depth DEPTH]
"""
import argparse
import collections
import sys

import pva


def breakdown(run, depth):
    """{layer: [steps, cycles]} over the run's steps."""
    layers = collections.defaultdict(lambda: [0, 0])
    for step in run.steps:
        name = step.program.name
        layer = "/".join(name.split("/")[:depth]) if name else "(unnamed)"
        layers[layer][0] += 1
        layers[layer][1] += step.cycles
    return layers


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--run", type=int, default=-1, help="run index (default: the last)")
    ap.add_argument("--depth", type=int, default=2)
    args = ap.parse_args()
    try:
        runs = pva.openReport(args.report).execution.runs
        run = runs[args.run]
    except (pva.Error, IndexError) as e:
        sys.exit(f"layer_breakdown: {e or 'no such run'}")
    layers = breakdown(run, args.depth)
    total = sum(c for _, c in layers.values()) or 1
    print(f"run {args.run % len(runs)} ({run.name}): {run.cycles} cycles")
    print(f"{'layer':40} {'steps':>7} {'cycles':>12} {'share':>7}")
    for layer, (n, cycles) in sorted(layers.items(), key=lambda kv: -kv[1][1]):
        print(f"{layer:40} {n:7} {cycles:12} {cycles * 100.0 / total:6.1f}%")


if __name__ == "__main__":
    main()
