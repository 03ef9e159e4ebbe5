"""examples/python/ run as a user runs them, on a sample report, their
figures checked against `tilescope summary --json` and `tilescope sql`."""
import os
import subprocess
import sys

from conftest import ROOT, SAMPLES, sql, tilescope_json

TUT5 = SAMPLES[1]


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", script),
                           *map(str, args)], capture_output=True, text=True)


def test_ci_check_passes_and_fails():
    s = tilescope_json("summary", "--json", TUT5)
    m, e = s["memory"][0], s["execution"]
    ok = ["--max-total", m["includingGaps"], "--max-tile", m["maxTileIncludingGaps"]["bytes"],
          "--compute-set", "logits/Partials$", "--max-peak-liveness",
          s["liveness"]["maxLiveBytes"], "--cycles", f"{e['programName']}={e['totalCycles']}"]
    p = run("ci_check.py", TUT5, *ok)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("ok ") == 6
    tight = ["--max-total", m["includingGaps"] - 1, "--max-tile",
             m["maxTileIncludingGaps"]["bytes"] - 1, "--compute-set", "^no such set$",
             "--max-peak-liveness", s["liveness"]["maxLiveBytes"] - 1,
             "--cycles", f"{e['programName']}={int(e['totalCycles'] * 1.2)}"]
    p = run("ci_check.py", TUT5, *tight)
    assert p.returncode == 1
    assert p.stdout.count("FAIL") == 5 and p.stdout.count("ok ") == 1, p.stdout
    p = run("ci_check.py", "/nonexistent/profile.pop")
    assert p.returncode == 1 and p.stderr.startswith("ci_check: ") and "\n" == p.stderr[-1]


def test_layer_breakdown_adds_up():
    p = run("layer_breakdown.py", TUT5, "--depth", "2")
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    layers = {r[0]: (int(r[1]), int(r[2])) for r in rows}
    ((steps, cycles),) = sql(TUT5, "SELECT count(*), sum(cycles) FROM step WHERE run = 2")
    assert sum(n for n, _ in layers.values()) == steps
    assert sum(c for _, c in layers.values()) == cycles
    (fc,) = sql(TUT5, "SELECT sum(s.cycles) FROM v_step s JOIN v_program p ON p.id = "
                      "s.program WHERE s.run = 2 AND p.name LIKE 'test/fc/%'")[0]
    assert layers["test/fc"][1] == fc
    assert run("layer_breakdown.py", TUT5, "--run", 9).returncode == 1
