#!/usr/bin/env python3
"""One set of flags per command, wherever a flag is spelt: the flags the
parser accepts (the program run with each one: it must not answer
"unknown option"), the ones --help lists, the man page's OPTIONS, what
the bash completion offers after "-" (the script sourced in bash and its
function called), the zsh completion's _arguments specs, and the docs
(docs/cli.md's section of each subcommand, docs/graph-analyser.md and
docs/system-analyser.md). A flag in one of them and missing from another
fails, naming both. Then bash completes a subcommand, a choice after
"--format=" (as one word and as readline splits it at '='), an option
that is not a flag, and a file after -o.

The checker first proves on a made-up case that it finds a flag in one
place only, so a test that cannot fail does not pass quietly.

usage: check-cli-options.py SOURCE_DIR GEN_DIR TILESCOPE [APP_EXE...]
  GEN_DIR holds the generated man pages and completions (man/meson.build).
"""
import os
import re
import subprocess
import sys
import tempfile

SRC, GEN, TILESCOPE = sys.argv[1:4]
APPS = sys.argv[4:]
GEN_DOCS = os.path.join(SRC, "man", "gen-docs.py")
SUBCOMMANDS = ["summary", "diff", "trace", "export", "sql"]
# GApplication's own options, in every GTK app's --help; not in a table.
GLIB_OWN = {"--help-all", "--help-gapplication", "--gapplication-service"}
FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")

failures = []
quiet = False


def fail(msg):
    failures.append(msg)
    if not quiet:
        print("FAIL: " + msg)


def run(argv, **kw):
    env = dict(os.environ)
    # The apps answer --help and bad options before any display opens.
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, **kw)


def table(def_path):
    """The option table as gen-docs.py reads it: {flag: option}."""
    sys.path.insert(0, os.path.dirname(GEN_DOCS))
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_docs", GEN_DOCS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cmd = mod.Command(def_path)
    out = {}
    for o in cmd.options:
        for f in ["--" + n for n in [o["long"]] + o["aliases"]] + (["-" + o["short"]] if o["short"] else []):
            out[f] = o
    return cmd, out


def sample_value(o):
    """A value the parser takes for option o, so that the run goes on to
    --help."""
    kind, arg = o["kind"], o["arg"]
    if kind == "CHOICE":
        return o["choices"][0]
    if kind == "FILE":
        return "/dev/null"
    if kind == "BYTES":
        return "1KB"
    if arg.startswith("CATEGORY:"):
        return "vertexCode:5"
    if arg.startswith("METRIC:"):
        return "cycles.total:5"
    return "1"


def parser_accepts(argv0, flag, opt):
    """Whether the program takes `flag` (with a value when the table says
    it wants one): it prints its help rather than "unknown option"."""
    argv = argv0 + [flag] + ([sample_value(opt)] if opt and opt["kind"] != "NONE" else []) + ["--help"]
    r = run(argv)
    return "unknown option" not in r.stderr.lower(), r


def help_flags(argv0):
    r = run(argv0 + ["--help"])
    if r.returncode != 0:
        fail("%s --help exited %d: %s" % (" ".join(argv0), r.returncode, r.stderr.strip()))
    flags = set()
    for line in r.stdout.splitlines():
        if re.match(r"^  -", line):
            label = line.strip().split("  ")[0]
            flags |= set(FLAG.findall(label))
    return flags - GLIB_OWN


def man_flags(page):
    text = open(os.path.join(GEN, page + ".1"), encoding="utf-8").read().split("\n")
    flags = set()
    for i, line in enumerate(text[:-1]):
        if line == ".TP":
            tag = re.sub(r"\\f[BIRP]", "", text[i + 1]).replace("\\-", "-")
            flags |= set(FLAG.findall(tag))
    return flags


def bash_complete(prog, words, cword=None):
    """COMPREPLY of the generated bash completion for COMP_WORDS=words."""
    script = os.path.join(GEN, prog)
    fn = "_" + re.sub(r"\W", "_", prog)
    cword = len(words) - 1 if cword is None else cword
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    code = ('source "$1" || exit 3\nCOMP_WORDS=(%s)\nCOMP_CWORD=%d\n'
            'COMP_LINE="${COMP_WORDS[*]}"\nCOMP_POINT=${#COMP_LINE}\n%s\n'
            'printf "%%s\\n" "${COMPREPLY[@]}"\n' % (quoted, cword, fn))
    r = subprocess.run(["bash", "-c", code, "bash", script], capture_output=True, text=True,
                       timeout=60, cwd=tmp)
    if r.returncode != 0:
        fail("bash completion %s %s: exit %d %s" % (prog, words, r.returncode, r.stderr.strip()))
    return [w for w in r.stdout.split("\n") if w]


def bash_flags(prog, sub):
    words = [prog] + ([sub] if sub else []) + ["-"]
    return {w.rstrip("=") for w in bash_complete(prog, words)}


def zsh_flags(prog, sub):
    """The names in the _arguments specs of the command's block."""
    lines = open(os.path.join(GEN, "_" + prog), encoding="utf-8").read().split("\n")
    if sub:
        start = lines.index("\t\t%s)" % sub)
        end = lines.index("\t\t\t;;", start)
    else:
        start = next(i for i, l in enumerate(lines) if "_arguments" in l)
        end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
    flags = set()
    for line in lines[start + 1:end + 1]:
        spec = line.strip()
        if not spec.startswith(("'", "{")):
            continue
        flags |= set(FLAG.findall(spec.split("[", 1)[0]))
    return flags


def docs_sections():
    """{command: text that documents it}. docs/cli.md: the part before the
    first subcommand's heading is about every command."""
    out = {}
    cli = open(os.path.join(SRC, "docs", "cli.md"), encoding="utf-8").read()
    parts = re.split(r"(?m)^## `tilescope (\w+)[^`]*`.*$", cli)
    common = parts[0]
    out["tilescope"] = common
    for i in range(1, len(parts), 2):
        out["tilescope " + parts[i]] = common + parts[i + 1]
    for app, doc in (("tilescope-graph-analyser", "graph-analyser.md"),
                     ("tilescope-system-analyser", "system-analyser.md")):
        out[app] = open(os.path.join(SRC, "docs", doc), encoding="utf-8").read()
    return out


def compare(name, sets, docs_text, known_anywhere):
    """sets: {place: set of flags}; the table's set is sets["table"]. Each
    flag must be in every place; the docs must mention each long flag
    (and may mention other commands' flags, not made-up ones)."""
    ok = True
    every = set().union(*sets.values())
    for flag in sorted(every):
        missing = [p for p, s in sets.items() if flag not in s]
        if missing:
            fail("%s: %s is in %s but not in %s" % (
                name, flag, ", ".join(p for p in sets if flag in sets[p]), ", ".join(missing)))
            ok = False
    if docs_text is not None:
        mentioned = set(FLAG.findall(docs_text))
        for flag in sorted(f for f in every if f.startswith("--")):
            if not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", docs_text):
                fail("%s: %s is not mentioned in its docs" % (name, flag))
                ok = False
        for flag in sorted(f for f in mentioned if f.startswith("--") and f not in known_anywhere):
            fail("%s: the docs mention %s, which no command has" % (name, flag))
            ok = False
    return ok


tmp = tempfile.mkdtemp(prefix="tilescope-options.")
open(os.path.join(tmp, "report.pop"), "w").close()

# The checker finds a flag in one place only, and a documented flag
# that no command has.
before = len(failures)
quiet = True
if compare("self-check", {"table": {"--a"}, "man": {"--a", "--b"}}, "--a --b --zzz", {"--a", "--b"}):
    print("FAIL: the checker missed a flag in one place only")
    sys.exit(1)
found = failures[before:]
del failures[before:]
quiet = False
if not any("--b is in man but not in table" in f for f in found) or \
        not any("--zzz, which no command has" in f for f in found):
    print("FAIL: the checker missed one of: %s" % found)
    sys.exit(1)
print("PASS: the checker finds a flag that is in one place only")

commands = [("tilescope", os.path.join(SRC, "cli-summary", "options", "tilescope.def"),
             [TILESCOPE], "tilescope", None)]
for sub in SUBCOMMANDS:
    commands.append(("tilescope " + sub, os.path.join(SRC, "cli-summary", "options", sub + ".def"),
                     [TILESCOPE, sub], "tilescope", sub))
for exe in APPS:
    base = os.path.basename(exe)
    def_path = {"tilescope-graph-analyser": "graph-analyser/src/ga-options.def",
                "tilescope-system-analyser": "system-analyser/src/sa-options.def"}[base]
    commands.append((base, os.path.join(SRC, def_path), [exe], base, None))

docs = docs_sections()
tables = {name: table(d)[1] for name, d, _, _, _ in commands}
known_anywhere = set().union(*[set(t) for t in tables.values()])
for name, def_path, argv0, prog, sub in commands:
    cmd, tab = table(def_path)
    if cmd.name != name:
        fail("%s: its table says it is %s" % (def_path, cmd.name))
    sets = {
        "table": set(tab),
        "--help": help_flags(argv0),
        "man page": man_flags(cmd.page),
        "bash": bash_flags(prog, sub),
        "zsh": zsh_flags(prog, sub),
    }
    # The parser: every flag seen anywhere, run; "accepted" is its set.
    accepted = set()
    for flag in sorted(set().union(*sets.values()) - GLIB_OWN):
        ok, r = parser_accepts(argv0, flag, tab.get(flag))
        if ok:
            accepted.add(flag)
    # And a flag no table has: the parser must refuse it, or "accepted"
    # would mean nothing.
    ok, r = parser_accepts(argv0, "--no-such-flag", None)
    if ok:
        fail("%s: --no-such-flag is not refused as an unknown option: %s" % (name, r.stderr.strip()))
    elif r.returncode != 2:
        # Every command's EXIT STATUS: 2 for a bad option (GApplication's
        # own parser says 1, the apps' status for a missing display).
        fail("%s --no-such-flag exited %d, not 2: %s" % (name, r.returncode, r.stderr.strip()))
    # An option that wants a value, last on the line: one line, status 2.
    for flag, opt in sorted(tab.items()):
        if opt["kind"] == "NONE" or flag in GLIB_OWN:
            continue
        r = run(argv0 + [flag])
        if r.returncode != 2 or "needs a value" not in r.stderr:
            fail("%s %s (no value) exited %d: %r" % (name, flag, r.returncode, r.stderr.strip()))
    sets["parser"] = accepted
    if compare(name, sets, docs.get(name), known_anywhere):
        print("PASS: %s: %d flags in the parser, --help, man page, bash, zsh and docs" %
              (name, len(tab)))

# bash completes what a user types.
def expect(words, want, exact=False, cword=None):
    got = bash_complete(words[0], words, cword)
    if (sorted(got) == sorted(want)) if exact else set(want) <= set(got):
        print("PASS: bash completes %r to %s" % (" ".join(words), " ".join(sorted(got))))
    else:
        fail("bash completes %r to %r, wanted %r" % (" ".join(words), got, want))


expect(["tilescope", "su"], ["summary"], exact=True)
expect(["tilescope", "s"], ["summary", "sql"], exact=True)
expect(["tilescope", "help", "tr"], ["trace"], exact=True)
expect(["tilescope", "diff", "--format="], ["--format=text", "--format=json", "--format=markdown",
                                            "--format=junit", "--format=html",
                                            "--format=openmetrics"], exact=True)
expect(["tilescope", "diff", "--format", "=", ""],
       ["text", "json", "markdown", "junit", "html", "openmetrics"], exact=True)
expect(["tilescope", "diff", "--format", "=", "j"], ["json", "junit"], exact=True)
expect(["tilescope", "trace", "--sort", "me"], ["mean", "median"], exact=True)
expect(["tilescope", "summary", "--colors="], ["--colors=auto", "--colors=always", "--colors=never"],
       exact=True)
expect(["tilescope", "summary", "--show-o"], ["--show-operations", "--show-optimizations"], exact=True)
expect(["tilescope", "summary", "-o", "rep"], ["report.pop"], exact=True)
expect(["tilescope", "summary", "--run", "rep"], [], exact=True)
expect(["tilescope", "summary", "--json", "rep"], ["report.pop"], exact=True)
if any(os.path.basename(a) == "tilescope-graph-analyser" for a in APPS):
    expect(["tilescope-graph-analyser", "--view="], ["--view=" + v for v in
           "summary insights memory liveness programs operations trace history".split()], exact=True)
    # Every view the completion offers is one the app opens.
    for v in tables["tilescope-graph-analyser"]["--view"]["choices"]:
        exe = next(a for a in APPS if os.path.basename(a) == "tilescope-graph-analyser")
        r2 = run([exe, "--view", v, "--run", "x"])
        if "unknown view" in r2.stderr:
            fail("tilescope-graph-analyser --view %s: %s" % (v, r2.stderr.strip()))

# zsh reads its completions, where zsh is there.
zsh = subprocess.run(["sh", "-c", "command -v zsh"], capture_output=True, text=True).stdout.strip()
if zsh:
    for f in sorted(os.listdir(GEN)):
        if f.startswith("_"):
            r = subprocess.run([zsh, "-n", os.path.join(GEN, f)], capture_output=True, text=True)
            if r.returncode != 0:
                fail("zsh -n %s: %s" % (f, r.stderr.strip()))
            else:
                print("PASS: zsh reads %s" % f)
else:
    print("note: no zsh here; its completions were checked as text only")

print("%d failed" % len(failures) if failures else "all option checks passed")
sys.exit(1 if failures else 0)
