"""Shared fixtures of suite `python`: the sample reports and the
`tilescope` command whose figures the module must match."""
import json
import os
import subprocess

import pytest

ROOT = os.environ.get("TILESCOPE_SOURCE_ROOT",
                      os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLES = [os.path.join(ROOT, "sample-reports", n)
           for n in ("tut4_profiling", "tut5_ml", "tut7_mk1", "tut7_mk1_small")]
# The large model's report (tests/bench), checked by test_large_report
# when it is there.
LARGE = "/tmp/large"


def tilescope(*args):
    """Runs the `tilescope` command; its stdout. Without LD_PRELOAD: under
    ASan the suite preloads the shared runtime for the interpreter, and
    the command carries the static one."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    return subprocess.run([os.environ.get("TILESCOPE", "tilescope"), *args], check=True,
                          capture_output=True, text=True, env=env).stdout


def tilescope_json(*args):
    return json.loads(tilescope(*args))


def sql(path, query):
    """Rows of `tilescope sql --json` as tuples."""
    return [tuple(r.values()) for r in tilescope_json("sql", "--json", path, query)]


@pytest.fixture(params=SAMPLES, ids=os.path.basename, scope="module")
def path(request):
    return request.param
