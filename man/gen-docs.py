#!/usr/bin/env python3
"""Writes the man pages and the bash and zsh completions of the tilescope
command and the two apps from their option tables: the X-macro .def files
that the C code expands into its getopt table, optstring and --help
(cli-summary/src/cli-options.h describes the macros). So a flag is in the
parser, --help, the man page and the completions, or in none of them.

usage: gen-docs.py --version V --outdir DIR FILE.def...
  Writes DIR/PAGE.1 per .def (tilescope.1, tilescope-summary.1, ...,
  tilescope-graph-analyser.1), and for each program (the first word of a
  TS_COMMAND) DIR/PROGRAM (bash) and DIR/_PROGRAM (zsh), named as
  bash-completion and zsh look them up. The .def of the
  program itself comes first; its subcommands are the .defs whose
  TS_COMMAND starts with the program's name and a space.
usage: gen-docs.py --list FILE.def...
  Prints each command and its flags, one line per flag (for the tests).
"""
import argparse
import os
import re
import sys

MACROS = {"TS_COMMAND", "TS_USAGE", "TS_TEXT", "TS_HELP", "TS_MAN", "TS_OPT", "TS_ALIAS"}
ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
TOKEN = re.compile(r'''\s+|/\*.*?\*/|//[^\n]*|(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<id>[A-Za-z_]\w*)|(?P<p>[(),])''',
                   re.S)


def unquote(lit):
    """The value of one C string literal."""
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 1
            if body[i] not in ESCAPES:
                raise ValueError("unsupported escape \\" + body[i])
            out.append(ESCAPES[body[i]])
        else:
            out.append(c)
        i += 1
    return "".join(out)


def parse_def(path):
    """The lines of a .def file as (macro, [arguments]); adjacent string
    literals are one argument, as in C."""
    text = open(path, encoding="utf-8").read()
    tokens, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise SystemExit(f"{path}: cannot read {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group("str"):
            tokens.append(("str", unquote(m.group("str"))))
        elif m.group("id"):
            tokens.append(("id", m.group("id")))
        elif m.group("p"):
            tokens.append(("p", m.group("p")))
    items, i = [], 0
    while i < len(tokens):
        kind, name = tokens[i]
        if kind != "id" or name not in MACROS or tokens[i + 1] != ("p", "("):
            raise SystemExit(f"{path}: expected a TS_ macro, found {name!r}")
        i += 2
        args, cur = [], None
        while tokens[i] != ("p", ")"):
            kind, val = tokens[i]
            if (kind, val) == ("p", ","):
                args.append(cur)
                cur = None
            elif kind == "str":
                cur = (cur or "") + val
            else:
                cur = val
            i += 1
        args.append(cur)
        i += 1
        items.append((name, args))
    return items


class Command:
    """One .def file."""

    def __init__(self, path):
        self.path = path
        self.items = parse_def(path)
        self.name = self.summary = None
        self.usage, self.options, self.aliases = [], [], {}
        for macro, a in self.items:
            if macro == "TS_COMMAND":
                self.name, self.summary = a
            elif macro == "TS_USAGE":
                self.usage.append(a[0])
            elif macro == "TS_OPT":
                ident, long, short, kind, arg, choices, helptext = a
                self.options.append(dict(id=ident, long=long, short=short, kind=kind, arg=arg,
                                         choices=choices.split(), help=helptext, aliases=[]))
            elif macro == "TS_ALIAS":
                for o in self.options:
                    if o["id"] == a[0]:
                        o["aliases"].append(a[1])
        if not self.name:
            raise SystemExit(f"{path}: no TS_COMMAND")
        self.page = self.name.replace(" ", "-")

    def flags(self):
        """Every spelling the parser accepts: --long, its aliases, -s."""
        out = []
        for o in self.options:
            out += ["--" + o["long"]] + ["--" + a for a in o["aliases"]]
            if o["short"]:
                out.append("-" + o["short"])
        return out


# --- man pages ----------------------------------------------------------------

def roff_escape(s):
    """Text safe in roff: backslashes, non-ASCII as \\[uXXXX], hyphens of
    words that are flags as \\- (so they copy as ASCII)."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\e")
        elif ord(ch) > 127:
            out.append("\\[u%04X]" % ord(ch))
        elif ch == "-":
            out.append("\\-")
        else:
            out.append(ch)
    line = "".join(out)
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def roff_text(text, section):
    """Prose as roff: paragraphs (.PP) filled, lines indented by two or
    more spaces kept as they are (.nf). A first line repeating the
    section's name ("Exit status: ...", "Examples:") loses it."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines:
        m = re.match(r"(?i)" + re.escape(section) + r":\s*", lines[0])
        if m:
            lines[0] = lines[0][m.end():]
            if not lines[0].strip():
                lines.pop(0)
    out, mode = [], None
    for line in lines:
        if not line.strip():
            if mode == "nf":
                out.append(".fi")
            mode = None
            continue
        pre = line.startswith("  ")
        if pre and mode != "nf":
            out += [".PP", ".nf"] if mode is None else [".nf"]
            mode = "nf"
        elif not pre and mode != "fill":
            if mode == "nf":
                out.append(".fi")
            out.append(".PP")
            mode = "fill"
        out.append(roff_escape(line.rstrip()) if not pre else roff_escape(line.rstrip()))
    if mode == "nf":
        out.append(".fi")
    return out


def option_tag(o):
    def one(long):
        s = "\\fB\\-\\-" + roff_escape(long) + "\\fR"
        if o["kind"] != "NONE":
            s += "=\\fI" + roff_escape(o["arg"]) + "\\fR"
        return s
    tags = []
    if o["short"]:
        tags.append("\\fB\\-" + o["short"] + "\\fR")
    tags += [one(o["long"])] + [one(a) for a in o["aliases"]]
    return ", ".join(tags)


SECTION_ORDER = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS"]
LATE_SECTIONS = ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]


def man_page(cmd, version, subcommands, pages):
    sections = {}

    def add(section, lines):
        sections.setdefault(section, []).extend(lines)

    add("NAME", [roff_escape(cmd.page) + " \\- " + roff_escape(cmd.summary)])
    syn = [".nf"]
    for u in cmd.usage:
        if u.startswith(" ") and len(syn) > 1:
            syn[-1] += " " + roff_escape(u.strip())
        elif u.startswith(cmd.name):
            syn.append("\\fB" + roff_escape(cmd.name) + "\\fR" + roff_escape(u[len(cmd.name):]))
        else:
            syn.append(roff_escape(u))
    add("SYNOPSIS", syn + [".fi"])
    for macro, a in cmd.items:
        if macro in ("TS_TEXT", "TS_MAN"):
            add(a[0], roff_text(a[1], a[0]))
        elif macro == "TS_OPT":
            o = next(o for o in cmd.options if o["id"] == a[0])
            text = o["help"]
            if o["choices"]:
                text += " (" + ", ".join(o["choices"]) + ")" if not all(
                    c in text for c in o["choices"]) else ""
            add("OPTIONS", [".TP", option_tag(o), roff_escape(text)])
    if subcommands:
        lines = []
        for sub in subcommands:
            word = sub.name[len(cmd.name) + 1:]
            lines += [".TP", "\\fB" + roff_escape(word) + "\\fR",
                      roff_escape(sub.summary) + "; see \\fB" + roff_escape(sub.page) + "\\fR(1)."]
        lines += [".TP", "\\fBhelp\\fR \\fICOMMAND\\fR",
                  "the same as \\fBtilescope\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR."]
        add("COMMANDS", lines)
    add("SEE ALSO", [",\n".join("\\fB" + roff_escape(p) + "\\fR(1)" for p in pages if p != cmd.page)])
    order = SECTION_ORDER + [s for s in sections if s not in SECTION_ORDER + LATE_SECTIONS] + \
        LATE_SECTIONS
    # Left-aligned (no stretched spaces) and without hyphenation, so that
    # names such as memory.total_including_gaps stay whole.
    out = ['.TH "%s" 1 "" "Tilescope %s" "Tilescope Manual"' % (cmd.page.upper(), version),
           ".ad l", ".nh"]
    for s in order:
        if s in sections:
            out.append('.SH "%s"' % s)
            body = sections[s]
            # .PP right after .SH is redundant (and groff says so with -ww).
            if body and body[0] == ".PP":
                body = body[1:]
            out += body
    return "\n".join(out) + "\n"


# --- completions --------------------------------------------------------------

def bash_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def bash_completion(prog, cmds):
    """cmds: {subcommand word or "": Command}. One function; readline's split
    of "--opt=value" at '=' is undone; values by the option's kind."""
    fn = "_" + re.sub(r"\W", "_", prog)
    lines = [
        "# bash completion for %s: generated by man/gen-docs.py from the option" % prog,
        "# tables (%s); do not edit." % ", ".join(os.path.basename(c.path) for c in cmds.values()),
        "",
        "# %s_value CMD OPTION CUR: the values of OPTION in COMPREPLY; status 1" % fn,
        "# when OPTION takes none.",
        "%s_value()" % fn,
        "{",
        '\tcase "$1 $2" in',
    ]
    for word, c in cmds.items():
        for o in c.options:
            if o["kind"] == "NONE":
                continue
            pats = ["--" + n for n in [o["long"]] + o["aliases"]]
            if o["short"]:
                pats.append("-" + o["short"])
            pat = "|".join(bash_quote(word + " " + p) for p in pats)
            if o["kind"] == "CHOICE":
                act = 'COMPREPLY=($(compgen -W %s -- "$3"))' % bash_quote(" ".join(o["choices"]))
            elif o["kind"] == "FILE":
                act = 'COMPREPLY=($(compgen -f -- "$3"))'
            elif o["kind"] == "DIR":
                act = 'COMPREPLY=($(compgen -d -- "$3"))'
            else:
                act = "COMPREPLY=()"
            lines.append("\t%s) %s ;;" % (pat, act))
    lines += ["\t*) return 1 ;;", "\tesac", "}", "", "%s()" % fn, "{",
              '\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev="" opt="" prefix="" cmd="" i w',
              '\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}',
              "\tCOMPREPLY=()"]
    subs = [w for w in cmds if w]
    if subs:
        top = cmds[""]
        lines += [
            "\t# The command: the first word after the program that is not an option.",
            "\tfor ((i = 1; i < COMP_CWORD; i++)); do",
            '\t\tcase ${COMP_WORDS[i]} in',
            "\t\t-*) ;;",
            '\t\t*) cmd=${COMP_WORDS[i]}; break ;;',
            "\t\tesac",
            "\tdone",
            '\tif [[ -z $cmd ]]; then',
            "\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))" %
            bash_quote(" ".join(subs + ["help"] + top.flags())),
            "\t\treturn 0",
            "\tfi",
            '\tif [[ $cmd == help ]]; then',
            '\t\t((i + 1 == COMP_CWORD)) && COMPREPLY=($(compgen -W %s -- "$cur"))' %
            bash_quote(" ".join(subs)),
            "\t\treturn 0",
            "\tfi",
        ]
    else:
        lines.append('\tcmd=""')
    lines += [
        "\t# An option's value: \"--opt=VAL\" in one word, or as readline splits it",
        "\t# at '=' (COMP_WORDBREAKS): \"--opt\" \"=\" \"VAL\"; or \"--opt\" \"VAL\".",
        '\tif [[ $cur == --*=* ]]; then',
        '\t\topt=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=}',
        '\telif [[ $cur == = && $prev == -* ]]; then',
        '\t\topt=$prev cur=""',
        '\telif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then',
        '\t\topt=${COMP_WORDS[COMP_CWORD - 2]}',
        '\telif [[ $prev == -* ]]; then',
        '\t\topt=$prev',
        "\tfi",
        '\tif [[ -n $opt ]] && %s_value "$cmd" "$opt" "$cur"; then' % fn,
        '\t\t[[ -n $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")',
        "\t\treturn 0",
        "\tfi",
        '\tif [[ $cur == -* ]]; then',
        '\t\tcase $cmd in',
    ]
    for word, c in cmds.items():
        if subs and not word:
            continue
        words = []
        for o in c.options:
            eq = "" if o["kind"] == "NONE" else "="
            words += ["--" + n + eq for n in [o["long"]] + o["aliases"]]
            if o["short"]:
                words.append("-" + o["short"])
        lines.append('\t\t%s) COMPREPLY=($(compgen -W %s -- "$cur")) ;;' %
                     (bash_quote(word), bash_quote(" ".join(words))))
    lines += [
        "\t\tesac",
        "\t\t# An option that wants a value gets no space after its '='.",
        '\t\tfor w in "${COMPREPLY[@]}"; do',
        '\t\t\t[[ $w == *= ]] && { compopt -o nospace 2>/dev/null; break; }',
        "\t\tdone",
        "\t\treturn 0",
        "\tfi",
        "\t# The operands: reports, traces, directories, files.",
        '\tCOMPREPLY=($(compgen -f -- "$cur"))',
        "}",
        "complete -o filenames -F %s %s" % (fn, prog),
        "",
    ]
    return "\n".join(lines)


def zsh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def zsh_desc(s):
    """An option's help as a zsh _arguments description: without brackets
    or colons (which _arguments would read)."""
    return s.replace("[", "(").replace("]", ")").replace(":", " -").replace("\\", "")


def zsh_specs(c):
    """One _arguments spec per option, each one shell word: '(excluded)',
    then the names ({-o+,--output=} when there are several), then
    '[description]:ARG:action'."""
    specs = []
    for o in c.options:
        names = ["--" + n for n in [o["long"]] + o["aliases"]]
        if o["short"]:
            names.insert(0, "-" + o["short"])
        value = ""
        forms = names
        if o["kind"] != "NONE":
            forms = [n + ("=" if n.startswith("--") else "+") for n in names]
            action = {"CHOICE": "(" + " ".join(o["choices"]) + ")", "FILE": "_files",
                      "DIR": "_files -/"}.get(o["kind"], " ")
            value = ":" + o["arg"] + ":" + action
        if o["long"] in ("help", "version"):
            excl = zsh_quote("(- *)")
        elif len(names) > 1:
            excl = zsh_quote("(" + " ".join(names) + ")")
        else:
            excl = ""
        namepart = "{" + ",".join(forms) + "}" if len(forms) > 1 else zsh_quote(forms[0])
        specs.append(excl + namepart + zsh_quote("[" + zsh_desc(o["help"]) + "]" + value))
    return specs


def zsh_completion(prog, cmds):
    fn = "_" + re.sub(r"\W", "_", prog)
    subs = [w for w in cmds if w]
    lines = ["#compdef %s" % prog,
             "# zsh completion for %s: generated by man/gen-docs.py from the option" % prog,
             "# tables (%s); do not edit." % ", ".join(os.path.basename(c.path) for c in cmds.values()),
             "",
             "%s() {" % fn,
             "\tlocal curcontext=$curcontext state state_descr line ret=1",
             "\ttypeset -A opt_args"]
    if subs:
        top = cmds[""]
        lines.append("\t_arguments -C \\")
        for s in zsh_specs(top):
            lines.append("\t\t%s \\" % s)
        lines += ["\t\t'1:command:->command' \\", "\t\t'*::argument:->argument' && ret=0",
                  "\tcase $state in", "\tcommand)", "\t\tlocal -a commands=("]
        for w in subs:
            lines.append("\t\t\t" + zsh_quote(w + ":" + zsh_desc(cmds[w].summary)))
        lines += ["\t\t\t'help:describe a command'", "\t\t)",
                  "\t\t_describe -t commands command commands && ret=0", "\t\t;;",
                  "\targument)", "\t\tcurcontext=${curcontext%%:*:*}:%s-$words[1]:" % prog,
                  "\t\tcase $words[1] in"]
        for w in subs:
            lines.append("\t\t%s)" % w)
            lines.append("\t\t\t_arguments -s \\")
            for s in zsh_specs(cmds[w]):
                lines.append("\t\t\t\t%s \\" % s)
            lines += ["\t\t\t\t'*:file:_files' && ret=0", "\t\t\t;;"]
        lines += ["\t\thelp)", "\t\t\t_values command %s && ret=0" % " ".join(subs), "\t\t\t;;",
                  "\t\tesac", "\t\t;;", "\tesac"]
    else:
        lines.append("\t_arguments -s \\")
        for s in zsh_specs(cmds[""]):
            lines.append("\t\t%s \\" % s)
        lines.append("\t\t'*:file:_files' && ret=0")
    lines += ["\treturn ret", "}", "", '%s "$@"' % fn, ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", default="")
    ap.add_argument("--outdir")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--see-also", action="append", default=[],
                    help="another page for SEE ALSO (the apps' and the CLI's, made apart)")
    ap.add_argument("defs", nargs="+")
    args = ap.parse_args()
    commands = [Command(p) for p in args.defs]
    if args.list:
        for c in commands:
            for f in c.flags():
                print(c.name + "\t" + f)
        return 0
    programs = {}
    for c in commands:
        prog = c.name.split(" ")[0]
        programs.setdefault(prog, {})[c.name[len(prog) + 1:]] = c
    pages = [c.page for c in commands]
    for prog, cmds in programs.items():
        if "" not in cmds:
            raise SystemExit("no .def for the program " + prog)
        subs = [c for w, c in cmds.items() if w]
        for w, c in cmds.items():
            # Each page points to every other one.
            related = pages + args.see_also
            with open(os.path.join(args.outdir, c.page + ".1"), "w", encoding="utf-8") as f:
                f.write(man_page(c, args.version, subs if not w else [], related))
        with open(os.path.join(args.outdir, prog), "w", encoding="utf-8") as f:
            f.write(bash_completion(prog, cmds))
        with open(os.path.join(args.outdir, "_" + prog), "w", encoding="utf-8") as f:
            f.write(zsh_completion(prog, cmds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
