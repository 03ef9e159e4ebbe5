"""What a tracepoint costs from Python (issue 30): `with Tracepoint(ch,
name): pass` while a trace records, and while none is open, as run.sh
figure lines. Each figure is the best of several runs of a loop, less
the cost of the same loop with an empty body; the decorator's figure is
less a plain call of the function it wraps.

usage: PYTHONPATH=BUILD/python python3 tests/bench/python-pvti.py
"""
import os
import tempfile
import time

N, REPEATS = 50_000, 25
tmp = tempfile.TemporaryDirectory(prefix="tilescope-bench-pvti.")
# Read by the tracer when the module is loaded, as for a C program.
os.environ["PVTI_OPTIONS"] = f'{{"enable":true,"directory":"{tmp.name}"}}'
from tilescope import pvti  # noqa: E402

ch = pvti.createTraceChannel("Bench")
Tracepoint = pvti.Tracepoint


def empty(n):
    for _ in range(n):
        pass


def with_block(n):
    for _ in range(n):
        with Tracepoint(ch, "step"):
            pass


def plain():
    pass


@Tracepoint(ch, "decorated")
def decorated():
    pass


def calls(fn):
    def loop(n):
        for _ in range(n):
            fn()
    return loop


def best_ns(loop):
    """The best time per iteration of `loop`, in ns."""
    best = float("inf")
    for _ in range(REPEATS):
        t = time.perf_counter()
        loop(N)
        best = min(best, time.perf_counter() - t)
    return best / N * 1e9


def figures():
    base, call = best_ns(empty), best_ns(calls(plain))
    return {"tracepoint": best_ns(with_block) - base,
            "decorated_call": best_ns(calls(decorated)) - call}


enabled = figures()
assert pvti.getCurrentTraceFilename(), "PVTI_OPTIONS did not start a trace"
pvti.closeTrace()
# Every span of the enabled loops was recorded (the figure is real work).
import tilescope  # noqa: E402
recorded = tilescope.openTrace(tmp.name).spanCount
assert recorded == 2 * N * REPEATS, f"{recorded} spans recorded, not {2 * N * REPEATS}"
disabled = figures()
print(f"python.tracepoint.enabled_us {enabled['tracepoint'] / 1000:.3f} us (target <= 2)")
print(f"python.tracepoint.disabled_us {disabled['tracepoint'] / 1000:.3f} us (target <= 0.2)")
print(f"python.decorated_call.enabled_us {enabled['decorated_call'] / 1000:.3f} us")
print(f"python.decorated_call.disabled_us {disabled['decorated_call'] / 1000:.3f} us")
