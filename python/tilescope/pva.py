"""The libpva object model over reportlib (issue 30).

Every figure comes from reportlib through tilescope._native, one item at a
time: lists are lazy sequences (len() is free; an item is fetched when it
is indexed or iterated) and every object keeps its Report alive. Names are
libpva's (camelCase) wherever libpva has one; docs/python.md lists them.
"""
import enum
import json
import os
import tempfile
import types

from . import _native

Error = _native.Error
_WORDS = _native.vocabulary()
__all__ = ["Error", "Program", "Report", "compare", "openReport"]


class _Seq:
    """A lazy sequence: item i is get(i), made when asked for."""
    __slots__ = ("_range", "_get")

    def __init__(self, n, get):
        self._range = n if isinstance(n, range) else range(n)
        self._get = get

    def __len__(self):
        return len(self._range)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return _Seq(self._range[i], self._get)
        return self._get(self._range[i])

    def __iter__(self):
        get = self._get
        for i in self._range:
            yield get(i)

    def __repr__(self):
        return f"<sequence of {len(self)}>"


def _ns(**kw):
    return types.SimpleNamespace(**kw)


class Program:
    """A program of the report (libpva's pva.Program)."""
    Type = enum.Enum("Type", {name: i for i, name in enumerate(_WORDS["programTypes"])})
    __slots__ = ("_report", "_id", "_t")

    def __init__(self, report, i):
        self._report, self._id, self._t = report, i, report._n.program(i)

    name = property(lambda s: s._t[1] or "")
    type = property(lambda s: Program.Type[s._t[0]] if s._t[0] else None)
    children = property(lambda s: [s._report._program(c) for c in s._t[2]])
    computeSet = property(lambda s: s._report._compute_set(s._t[3]) if s._t[3] >= 0 else None)
    exchange = property(lambda s: s._t[4] if s._t[4] >= 0 else None)
    exchangeKind = property(lambda s: s._t[5])
    function = property(lambda s: s._t[6] if s._t[6] >= 0 else None)
    syncType = property(lambda s: s._t[7])
    repeatCount = property(lambda s: s._t[8])
    codeBytes = property(lambda s: s._t[9])
    cycles = property(lambda s: s._report._n.cycle_estimate(s._id),
                      doc="the slowest tile's cycle estimate, None without one")

    def __repr__(self):
        return f"<Program {self._id} {self._t[0]} {self.name!r}>"


class Variable:
    """A listed variable: name, size (bytes) and where it lives."""
    __slots__ = ("_id", "_t", "index")

    def __init__(self, report, i):
        self.index, self._t = i, report._n.variable(i)
        self._id = self._t[0]

    name = property(lambda s: s._t[1] or "")
    category = property(lambda s: s._t[2])
    dataType = property(lambda s: s._t[3])
    shape = property(lambda s: s._t[4])
    size = property(lambda s: s._t[5])
    tiles = property(lambda s: s._t[6])
    alwaysLive = property(lambda s: s._t[7])
    liveFrom = property(lambda s: s._t[8] if s._t[8] >= 0 else None)
    liveTo = property(lambda s: s._t[9] if s._t[9] >= 0 else None)

    def __repr__(self):
        return f"<Variable {self.name!r} {self.size} bytes>"


class LivenessStep:
    """One liveness program step and what is live there."""
    __slots__ = ("_report", "_id", "_t")

    def __init__(self, report, i):
        self._report, self._id, self._t = report, i, report._n.liveness_step(i)

    program = property(lambda s: s._report._program(s._t[0]))
    parent = property(lambda s: s._t[1] if s._t[1] >= 0 else None)
    depth = property(lambda s: s._t[2])
    cycles = property(lambda s: s._report._n.cycle_estimate(s._t[0]))

    notAlwaysLiveMemory = property(lambda s: _NotAlwaysLive(s._report, s._id, s._t[3]))

    def notAlwaysLiveMemoryForTile(self, tile):
        return _ns(bytes=self._by(False)[tile])

    def notAlwaysLiveMemoryForIpu(self, ipu):
        return _ns(bytes=self._by(True)[ipu])

    def _by(self, per_ipu):
        r = self._report
        return r._last((per_ipu, self._id), lambda: r._n.liveness_by(self._id, per_ipu))

    def __repr__(self):
        return f"<LivenessStep {self._id} {self._t[3]} bytes>"


class _NotAlwaysLive:
    """A step's not-always-live bytes; its variables read when asked for."""
    __slots__ = ("_report", "_step", "bytes")

    def __init__(self, report, step, nbytes):
        self._report, self._step, self.bytes = report, step, nbytes

    @property
    def variables(self):
        r = self._report
        vs = (r._variable(i) for i in r._n.live_variables(self._step))
        return [v for v in vs if not v.alwaysLive]


class Tile:
    """One tile: its number and memory (libpva's tile.memory)."""
    __slots__ = ("_report", "number")

    def __init__(self, report, i):
        self._report, self.number = report, i

    memory = property(lambda s: _TileMemory(s._report, s.number))

    def __repr__(self):
        return f"<Tile {self.number}>"


class _TileMemory:
    """memory.total, .region.<name>, .category.<name> (read when asked
    for) and .alwaysLiveBytes of one tile."""
    __slots__ = ("_report", "_tile", "_t")

    def __init__(self, report, tile):
        self._report, self._tile, self._t = report, tile, report._n.tile(tile)

    total = property(lambda s: _ns(includingGaps=s._t[0], excludingGaps=s._t[1]))
    alwaysLiveBytes = property(lambda s: s._report._n.tile_always_live(s._tile))

    @property
    def region(self):
        return _ns(**{k: _ns(total=a, includingGaps=b) for k, a, b in
                      zip(_WORDS["regions"], self._t[2], self._t[3])})

    @property
    def category(self):
        return _ns(**{k: _ns(total=v) for k, v in zip(
            _WORDS["categories"], self._report._n.tile_categories(self._tile))})


class Tiles(_Seq):
    """The tiles of the report or of one IPU; maxMemory is the fullest
    tile's bytes including gaps."""
    __slots__ = ("_report", "_ipu")

    def __init__(self, report, ipu, first, n):
        super().__init__(range(first, first + n), lambda i: Tile(report, i))
        self._report, self._ipu = report, ipu

    @property
    def maxMemory(self):
        return self._report._n.memory_totals(self._ipu)["maxMemory"]



class Report:
    """An opened profile.pop (openReport)."""

    def __init__(self, native):
        self._n = native
        self._cache = {}

    def _memo(self, key, make):
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = make()
        return v

    def _last(self, key, make):
        """make(), kept until another key is asked for: a step's per-tile
        figures, asked for tile by tile."""
        if self._cache.get("last") != key:
            self._cache["last"], self._cache["last value"] = key, make()
        return self._cache["last value"]

    def _program(self, i):
        return Program(self, i)

    def _variable(self, i):
        return Variable(self, i)

    def _compute_set(self, i):
        t = self._n.compute_set(i)
        return _ns(_id=i, name=t[0] or "", tiles=t[1], vertices=t[2], cycles=t[3],
                   cyclesSum=t[4], activeCycles=t[5], activeCyclesSum=t[6], flops=t[7])

    @property
    def poplarVersion(self):
        return _ns(string=self._info()["version"])

    def _info(self):
        return self._memo("info", self._n.info)

    @property
    def compilation(self):
        return self._memo("compilation", lambda: _Compilation(self))

    @property
    def execution(self):
        return self._memo("execution", lambda: _Execution(self))

    def summary(self, run=-1):
        """The dict `tilescope summary --json` prints (run -1: the last kept)."""
        return json.loads(self._n.summary_json(run))

    def sql(self, query, params=()):
        """Rows of one read-only statement, as `tilescope sql` runs it; each
        `?` outside quotes takes the next of `params`."""
        return self._n.query(_bind(query, params))[1]

    def close(self):
        """Frees the report now; its objects then raise Error."""
        self._n.close()


class _Compilation:
    def __init__(self, report):
        r, info, t = report, report._info(), report._n.target()
        self._r = r
        self.target = _ns(ipusPerReplica=t["numIPUs"], **t)
        self.target.type = t["type"]
        self.graph = _ns(**{k: info[k] for k in ("numVertices", "numEdges", "numVariables",
                                                  "numComputeSets")})
        n, per_ipu = t["numTiles"], t["tilesPerIpu"]
        self.tiles = Tiles(r, -1, 0, n)
        self.ipus = [_ns(id=i, tiles=Tiles(r, i, i * per_ipu, per_ipu))
                     for i in range(t["numIPUs"])]
        self.programs = _Seq(info["programs"], r._program)
        self.variables = _Seq(info["variables"], r._variable)
        self.computeSets = _Seq(info["computeSets"], r._compute_set)
        self.livenessProgramSteps = _Seq(info["livenessSteps"], lambda i: LivenessStep(r, i))

    @property
    def alwaysLiveVariables(self):
        return [v for v in self.variables if v.alwaysLive]

    @property
    def alwaysLiveMemory(self):
        return _ns(bytes=self._r._n.liveness()[0])

    @property
    def operations(self):
        return [_ns(id=o[0], parent=o[1] or None, name=o[2] or "", layer=o[3], api=o[4],
                    softwareLayer=o[5], variableBytes=o[6], vertexBytes=o[7],
                    computeSets=o[8], variables=o[9], programs=o[10])
                for o in self._r._n.operations()]


class Run:
    """One kept run: its engine program, name, cycles and steps."""

    def __init__(self, report, i):
        self._r, self._id = report, i
        self.program, name, self.cycles, n = report._n.run(i)
        self.name = name if name is not None else f"program{self.program}"
        self.steps = _Seq(n, self._step)

    def _step(self, i):
        t = self._r._n.step(self._id, i)
        r = self._r
        cs = t[2] if t[2] >= 0 else None
        return _ns(type=t[0], program=r._program(t[1]),
                   computeSet=r._compute_set(cs) if cs is not None else None,
                   exchange=t[3] if t[3] >= 0 else None, exchangeKind=t[4], syncType=t[5],
                   cyclesFrom=t[6], cyclesTo=t[7], cycles=t[8],
                   cyclesByTile=_lazy_cycles(r, t[4], cs if cs is not None else t[3]))

    def __repr__(self):
        return f"<Run {self._id} {self.name!r} {self.cycles} cycles>"


def _lazy_cycles(report, kind, ident):
    """A step's cycles on each tile, read when first indexed."""
    if ident is None or ident < 0:
        return None
    fetch = lambda: report._memo(("cbt", kind, ident),  # noqa: E731
                                 lambda: report._n.cycles_by_tile(kind, ident))
    n = report.compilation.target.numTiles
    return _Seq(n, lambda t: fetch()[t])


class _Execution:
    def __init__(self, report):
        self._r = report
        self.runs = _Seq(report._info()["runs"], lambda i: Run(report, i))

    @property
    def totalCycles(self):
        """The summary's execution.totalCycles: the length of the last kept
        run (None without runs)."""
        r = self._r
        if not len(self.runs):
            return None
        return r._memo("totalCycles", lambda: r.summary()["execution"]["totalCycles"])


def _bind(query, params):
    """`query` with each ? outside quotes replaced by the next parameter
    as an SQL literal (reportlib's query takes no bindings)."""
    params = list(params)
    out, quote = [], None
    for ch in query:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch == "?":
            if not params:
                raise Error("sql: more ? than parameters")
            ch = _literal(params.pop(0))
        out.append(ch)
    if params:
        raise Error("sql: more parameters than ?")
    return "".join(out)


def _literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool) or isinstance(v, int):
        return str(int(v))
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, bytes):
        return "X'" + v.hex() + "'"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    raise Error(f"sql: a parameter of type {type(v).__name__}")


def openReport(profile, debug=None):
    """Opens a profile.pop (or an autoReport directory) with its
    debug.cbor: the one beside it, or `debug` when given."""
    profile = os.fspath(profile)
    if os.path.isdir(profile) and debug is not None:
        profile = os.path.join(profile, "profile.pop")
    beside = os.path.join(os.path.dirname(profile), "debug.cbor")
    if debug is None or (os.path.exists(debug) and os.path.exists(beside)
                         and os.path.samefile(debug, beside)):
        return Report(_native.open(profile))
    # reportlib takes the debug.cbor beside the profile.pop: a directory of
    # links pairs the two (the files are opened before it goes; a later
    # message about debug.cbor names the link).
    with tempfile.TemporaryDirectory(prefix="tilescope-pva.") as d:
        for name, path in (("profile.pop", profile), ("debug.cbor", os.fspath(debug))):
            if not os.path.exists(path):
                raise Error(f"'{path}': no such file")
            os.symlink(os.path.abspath(path), os.path.join(d, name))
        try:
            return Report(_native.open(d))
        except Error as e:
            raise Error(str(e).replace(os.path.join(d, "profile.pop"), profile)) from None


# compare()'s limit keywords: `tilescope diff`'s limit options with "_" for "-".
_LIMITS = ("max_memory_increase", "max_cycles_increase", "max_tile_memory", "fail_on_oom",
           "max_category_increase", "max_increase")


def _limit_text(value):
    """A limit's value as its option text: a number as the limits file
    writes it (2.5 -> "2.5", 1.0 -> "1")."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return value


def _limit_pairs(limits):
    """(option, value) pairs in the keywords' order; NAME:VALUE options take
    "NAME:VALUE" or a dict {NAME: VALUE}, fail_on_oom a bool."""
    pairs = []
    for key, value in limits.items():
        if key not in _LIMITS:
            raise TypeError(f"compare() got an unexpected keyword argument '{key}'")
        option = key.replace("_", "-")
        if key == "fail_on_oom":
            if value:
                pairs.append((option, None))
        elif isinstance(value, dict):
            pairs += [(option, f"{name}:{_limit_text(v)}") for name, v in value.items()]
        else:
            pairs.append((option, _limit_text(value)))
    return pairs


def compare(base, new, base_run=-2, new_run=-2, program=None, **limits):
    """reportlib's comparison of two reports, as `tilescope diff
    --format=json` prints it with the same limits: {"programs": [...],
    "regression": bool, "limits": [...], "deltas": [...]}. Runs are
    averaged per program unless base_run / new_run name one (-1: the last
    kept). Limits are diff's options in Python spelling
    (max_cycles_increase="1%", max_category_increase={"stack": "2%"},
    fail_on_oom=True ...); a bad one raises ValueError with diff's message."""
    deltas, programs, checks = _native.compare(base._n, new._n, base_run, new_run, program,
                                               _limit_pairs(limits))
    keys = ("metric", "unit", "in_base", "in_new", "base", "new", "change", "percent",
            "verdict")
    deltas = [dict(zip(keys, d)) for d in deltas]
    for d in deltas:  # as the diff's JSON: no percent without both sides and a base
        if not (d["in_base"] and d["in_new"] and d["base"]):
            d["percent"] = None
    checks = [dict(zip(("limit", "metric", "threshold", "base", "new", "in_base", "in_new",
                        "passed"), k)) for k in checks]
    for k in checks:  # the diff's JSON figures of a check
        k["change"] = k["new"] - k["base"]
        k["percent"] = ((float(k["new"]) - float(k["base"])) * 100.0 / float(k["base"])
                        if k["in_base"] and k["in_new"] and k["base"] else None)
    return {"programs": [dict(zip(("base", "new", "base_runs", "new_runs"), p))
                         for p in programs],
            "regression": not all(k["passed"] for k in checks), "limits": checks,
            "deltas": deltas}
