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


def tilescope(*args):
    """Runs the `tilescope` command; its stdout. Programs run without
    LD_PRELOAD (_env): under ASan the suite preloads the shared runtime for
    the interpreter, and clang's executables carry the static one."""
    return subprocess.run([os.environ.get("TILESCOPE", "tilescope"), *args], check=True,
                          capture_output=True, text=True, env=_env()).stdout


def _env():
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def tilescope_json(*args):
    return json.loads(tilescope(*args))


def sql(path, query):
    """Rows of `tilescope sql --json` as tuples."""
    return [tuple(r.values()) for r in tilescope_json("sql", "--json", path, query)]


# multi_ipu_pipeline (2 IPUs, 2 replicas; the samples have one IPU each),
# when the examples were built: its report is made by the fixture.
PIPELINE = os.environ.get("TILESCOPE_PIPELINE")


@pytest.fixture(params=SAMPLES + ([PIPELINE] if PIPELINE else []), ids=os.path.basename,
                scope="module")
def path(request, tmp_path_factory):
    if request.param != PIPELINE:
        return request.param
    out = str(tmp_path_factory.mktemp("pipeline"))
    opts = json.dumps({"autoReport.all": "true", "autoReport.directory": out})
    subprocess.run([PIPELINE], check=True, capture_output=True,
                   env={**_env(), "POPLAR_ENGINE_OPTIONS": opts})
    return out
