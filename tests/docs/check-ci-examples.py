#!/usr/bin/env python3
"""The CI cookbook's files do what docs/ci.md says (issue 31, item 6).

- Every call of examples/ci/profile-gate.sh in github-actions.yml,
  gitlab-ci.yml and docs/ci.md's shell blocks matches a usage line of
  `profile-gate.sh --help` (its command, its options, its number of
  operands), and the script refuses each usage with an operand missing
  (exit 2), so the usage is what it checks.
- Each workflow's own `profile` and `diff` commands, run as written with
  the workflow's TILESCOPE, MODEL and MODEL_ARGS in a directory where
  `build` is this build and `examples` this source tree's: the profile
  writes a report, which diffed against itself exits 0; with the sample
  reports as base-report and report, tut7_mk1_small against tut7_mk1
  exits 1 (examples/ci/limits.json's memory and cycles limits exceeded),
  the other way round 0. Each diff writes diff.txt (and prints it),
  diff.md (its banner), junit.xml (parses; its failures are the exceeded
  limits), diff.html (a page with the pass or fail banner), metrics.txt
  (OpenMetrics, "# EOF" last) and summary.html. A missing base report and
  a profile into a directory that holds something else (kept) exit 2 with
  one line.
- docs/ci.md shows limits.json as it is, and every `tilescope` command
  in its shell blocks is taken by the tilescope binary as written: the
  words after `tilescope`, with --help after them, exit 0 with nothing on
  stderr (an unknown flag, a missing value or a bad choice is an error
  there).
The checks first prove on made-up calls that they catch a bad one.

usage: check-ci-examples.py SOURCE_DIR BUILD_DIR SAMPLE_DIR [--profile]
  BUILD_DIR holds cli-summary/tilescope; --profile runs the workflows'
  profile commands (the build has the example models).
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SRC, BUILD, SAMPLES = (os.path.abspath(a) for a in sys.argv[1:4])
PROFILE = sys.argv[4:] == ["--profile"]
GATE = os.path.join(SRC, "examples", "ci", "profile-gate.sh")
WORKFLOWS = ["github-actions.yml", "gitlab-ci.yml"]
TILESCOPE = os.path.join(BUILD, "cli-summary", "tilescope")
SUBCOMMANDS = {"summary", "diff", "trace", "export", "sql"}
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def words_after(line, name):
    """The words of the simple command in `line` that follow the word
    ending in `name`, up to a shell operator (shlex, POSIX quoting)."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    out = None
    for w in lex:
        if out is None:
            if w == name or w.endswith("/" + name):
                out = []
        elif re.fullmatch(r"[;&|()<>]+", w):
            break
        else:
            out.append(w)
    return out


def usages():
    """{command: (options taking a value, number of operands)} from the
    script's --help."""
    r = subprocess.run(["sh", GATE, "--help"], capture_output=True, text=True)
    out = {}
    for line in r.stdout.splitlines():
        w = line.replace("usage:", "").split()
        if len(w) >= 2 and w[0] == "profile-gate.sh":
            text = " ".join(w[2:])
            opts = set(re.findall(r"\[(--[\w-]+) [A-Z]+\]", text))
            operands = len(re.sub(r"\[[^]]*\]", "", text).split())
            out[w[1]] = (opts, operands)
    if r.returncode != 0 or len(out) < 4:
        fail("profile-gate.sh --help exited %d with usages %s" % (r.returncode, out))
    return out


def call_problem(words, spec):
    """Why the call `profile-gate.sh WORDS` does not match the usage, or None."""
    if not words or words[0] not in spec:
        return "no such command %r" % (words[:1],)
    opts, operands = spec[words[0]]
    rest = words[1:]
    while rest and rest[0].startswith("--"):
        if rest[0] not in opts or len(rest) < 2:
            return "option %s is not in its usage" % rest[0]
        rest = rest[2:]
    if len(rest) != operands:
        return "%d operands where its usage has %d" % (len(rest), operands)
    return None


def shell_lines(path):
    """The non-comment lines of a workflow file or of the ```sh blocks of a
    Markdown page."""
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    if path.endswith(".md"):
        blocks = re.findall(r"^ *```(?:sh|shell|bash)\n(.*?)^ *```", text, re.S | re.M)
        text = "\n".join(blocks)
    return [l for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]


def gate_calls(path):
    """(command from `sh` on, its words after profile-gate.sh) of each call."""
    return [(l[l.index("sh "):], words_after(l, "profile-gate.sh")) for l in shell_lines(path)
            if re.search(r"(^|[\s;&|(])sh \S*profile-gate\.sh\b", l)]


def workflow_env(path):
    """TILESCOPE, MODEL and MODEL_ARGS as the workflow sets them."""
    env = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\s+(TILESCOPE|MODEL|MODEL_ARGS):\s*(.*?)\s*$", line)
        if m:
            env[m.group(1)] = m.group(2)
    return env


def run_as_written(cmd, cwd, env):
    return subprocess.run(["sh", "-c", cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def check_outputs(out, r, want_rc, want_failures, what):
    ok = True
    names = ["diff.txt", "diff.md", "junit.xml", "diff.html", "metrics.txt", "summary.html"]
    missing = [n for n in names if not os.path.isfile(os.path.join(out, n))]
    if missing:
        fail("%s: no %s" % (what, ", ".join(missing)))
        return False
    read = lambda n: open(os.path.join(out, n), encoding="utf-8").read()
    if read("diff.txt") not in r.stdout or not read("diff.txt").startswith("tilescope diff"):
        fail("%s: diff.txt is not the text diff it printed" % what)
        ok = False
    md = read("diff.md")
    if not md.startswith("## " + ("\u274c" if want_rc else "\u2705") + " tilescope diff"):
        fail("%s: diff.md does not start with the %s banner: %r" %
             (what, "fail" if want_rc else "pass", md[:60]))
        ok = False
    try:
        root = ET.parse(os.path.join(out, "junit.xml")).getroot()
        cases = list(root.iter("testcase"))
        failed = [c.get("name") for c in cases if c.find("failure") is not None]
        if root.tag != "testsuites" or len(failed) != want_failures or not cases:
            fail("%s: junit.xml has %d cases, failed %s, not %d failures" %
                 (what, len(cases), failed, want_failures))
            ok = False
    except ET.ParseError as e:
        fail("%s: junit.xml does not parse: %s" % (what, e))
        ok = False
    page = read("diff.html")
    kind = "fail" if want_rc else "pass"
    if not page.startswith("<!DOCTYPE html>") or '<div class="banner %s"' % kind not in page:
        fail("%s: diff.html is not a page with the %s banner" % (what, kind))
        ok = False
    metrics = read("metrics.txt").splitlines()
    if not metrics or metrics[-1] != "# EOF" or not any(l.startswith("tilescope_") for l in metrics):
        fail("%s: metrics.txt is not OpenMetrics ending in # EOF" % what)
        ok = False
    if not read("summary.html").startswith("<!DOCTYPE html>"):
        fail("%s: summary.html is not a page" % what)
        ok = False
    return ok


spec = usages()

# The call checker catches a bad call, and the script refuses one.
bad = ["diff a b", "diff --limits x a b", "diff --top 3 a b c", "profil build report"]
caught = [b for b in bad if call_problem(b.split(), spec)]
good = "diff --limits examples/ci/limits.json base-report report profile-diff"
if caught != bad or call_problem(good.split(), spec):
    fail("the call checker let through %s or refused %r" % (set(bad) - set(caught), good))
for cmd, (opts, operands) in sorted(spec.items()):
    r = subprocess.run(["sh", GATE, cmd] + ["x"] * (operands - 1), capture_output=True, text=True)
    if r.returncode != 2 or "usage: profile-gate.sh" not in r.stderr:
        fail("profile-gate.sh %s with %d operands exited %d: %r" %
             (cmd, operands - 1, r.returncode, r.stderr[:200]))
if not failures:
    print("PASS: the call checker refuses %d bad calls; the script refuses each usage "
          "with an operand missing" % len(bad))

# Every call in the workflows and the cookbook matches a usage.
commands = {}
for name in WORKFLOWS + ["../../docs/ci.md"]:
    path = os.path.normpath(os.path.join(SRC, "examples", "ci", name))
    calls = gate_calls(path)
    before = failures
    for line, words in calls:
        problem = call_problem(words, spec)
        if problem:
            fail("%s: %s: %s" % (os.path.relpath(path, SRC), line.strip(), problem))
    seen = {w[0] for _, w in calls if w}
    if name in WORKFLOWS:
        if not {"build", "profile", "diff"} <= seen:
            fail("%s calls profile-gate.sh for %s only" % (name, sorted(seen)))
        for line, words in calls:
            if words and words[0] in ("profile", "diff"):
                commands.setdefault(words[0], set()).add(line)
    if failures == before:
        print("PASS: %s: %d calls of profile-gate.sh (%s), each as its usage says" %
              (os.path.relpath(path, SRC), len(calls), ", ".join(sorted(seen))))

# The limits docs/ci.md shows are the file's.
ci_md = open(os.path.join(SRC, "docs", "ci.md"), encoding="utf-8").read()
shown = re.search(r"the example's:\n\n```json\n(.*?)^```", ci_md, re.S | re.M)
limits_file = open(os.path.join(SRC, "examples", "ci", "limits.json"), encoding="utf-8").read()
if not shown or json.loads(shown.group(1)) != json.loads(limits_file):
    fail("docs/ci.md does not show examples/ci/limits.json as it is")
else:
    print("PASS: docs/ci.md shows examples/ci/limits.json as it is")

# The workflows' settings.
envs = [workflow_env(os.path.join(SRC, "examples", "ci", w)) for w in WORKFLOWS]
if envs[0] != envs[1] or set(envs[0]) != {"TILESCOPE", "MODEL", "MODEL_ARGS"}:
    fail("the workflows set TILESCOPE, MODEL and MODEL_ARGS differently: %s" % envs)
env = dict(os.environ, TILESCOPE_PROGRESS="never", **envs[0])
for k in ("NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "POPLAR_ENGINE_OPTIONS"):
    env.pop(k, None)
if len(commands.get("diff", ())) != 1 or len(commands.get("profile", ())) != 1:
    fail("the workflows' profile and diff commands differ: %s" % commands)
diff_line = sorted(commands.get("diff", [""]))[0]
profile_line = sorted(commands.get("profile", [""]))[0]


def workdir(tmp, name, base=None, new=None):
    d = os.path.join(tmp, name)
    os.mkdir(d)
    os.symlink(os.path.join(SRC, "examples"), os.path.join(d, "examples"))
    os.symlink(BUILD, os.path.join(d, "build"))
    if base:
        os.symlink(base, os.path.join(d, "base-report"))
    if new:
        os.symlink(new, os.path.join(d, "report"))
    return d


with tempfile.TemporaryDirectory(prefix="tilescope-ci.") as tmp:
    small = os.path.join(SAMPLES, "tut7_mk1_small")
    big = os.path.join(SAMPLES, "tut7_mk1")
    out_dir = words_after(diff_line, "profile-gate.sh")[-1]
    # Exceeded: memory.total, memory.total_including_gaps, cycles.total.
    for name, base, new, want, fails in (("exceeded", small, big, 1, 3),
                                         ("met", big, small, 0, 0)):
        d = workdir(tmp, name, base, new)
        r = run_as_written(diff_line, d, env)
        what = "%s (base %s, new %s)" % (diff_line, os.path.basename(base), os.path.basename(new))
        if r.returncode != want:
            fail("%s exited %d, not %d: %s" % (what, r.returncode, want, r.stderr.strip()))
        elif check_outputs(os.path.join(d, out_dir), r, want, fails, what):
            print("PASS: %s: exit %d, %d limits failed in junit.xml, every file written" %
                  (what, want, fails))
    # Bad input: one line from tilescope, exit 2.
    d = workdir(tmp, "missing", os.path.join(tmp, "none"), big)
    r = run_as_written(diff_line, d, env)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1:
        fail("a missing base report: exit %d, stderr %r" % (r.returncode, r.stderr))
    else:
        print("PASS: a missing base report: exit 2, one line: " + r.stderr.strip())
    # profile replaces a report, never a directory that holds something else.
    d = workdir(tmp, "not-a-report")
    os.mkdir(os.path.join(d, "report"))
    open(os.path.join(d, "report", "notes.txt"), "w").close()
    r = run_as_written(profile_line, d, env)
    if r.returncode != 2 or not os.path.exists(os.path.join(d, "report", "notes.txt")) or \
            len(r.stderr.strip().splitlines()) != 1:
        fail("profile into a directory that is not a report: exit %d, %r" %
             (r.returncode, r.stderr))
    else:
        print("PASS: profile into a directory that is not a report: exit 2, kept: " +
              r.stderr.strip())
    if PROFILE:
        d = workdir(tmp, "profile")
        r = run_as_written(profile_line, d, env)
        report = os.path.join(d, "report")
        if r.returncode != 0 or not os.path.isfile(os.path.join(report, "profile.pop")):
            fail("%s exited %d without report/profile.pop: %s" %
                 (profile_line, r.returncode, r.stderr.strip()))
        else:
            os.symlink(report, os.path.join(d, "base-report"))
            r = run_as_written(diff_line, d, env)
            if r.returncode != 0:
                fail("the profiled report against itself: exit %d: %s" %
                     (r.returncode, r.stderr.strip()))
            elif check_outputs(os.path.join(d, out_dir), r, 0, 0, "the profiled report"):
                print("PASS: %s (MODEL_ARGS %s) writes a report; against itself the diff "
                      "exits 0" % (profile_line, env["MODEL_ARGS"]))

    # docs/ci.md's tilescope commands, as the binary parses them.
    def tilescope_problem(words, cwd):
        r = subprocess.run([TILESCOPE] + words + ["--help"], cwd=cwd, capture_output=True,
                           text=True, env=env, timeout=60)
        if r.returncode != 0 or r.stderr:
            return "exit %d: %s" % (r.returncode, r.stderr.strip())
        return None

    if not tilescope_problem(["diff", "--no-such-flag"], tmp) or \
            not tilescope_problem(["diff", "--format=bogus"], tmp) or \
            tilescope_problem(["diff", "--format=html", "-o", "x.html", "a", "b"], tmp):
        fail("the tilescope check does not tell a bad flag from a good one")
    n = 0
    before = failures
    d = workdir(tmp, "docs")
    for line in shell_lines(os.path.join(SRC, "docs", "ci.md")):
        words = words_after(line, "tilescope")
        if not words or words[0] not in SUBCOMMANDS:
            continue
        n += 1
        problem = tilescope_problem(words, d)
        if problem:
            fail("docs/ci.md: %s: %s" % (line.strip(), problem))
    if n == 0:
        fail("docs/ci.md has no tilescope command in its shell blocks")
    elif failures == before:
        print("PASS: docs/ci.md: %d tilescope commands, each taken by the binary as written" % n)

print("%d failed" % failures if failures else "all CI example checks passed")
sys.exit(1 if failures else 0)
