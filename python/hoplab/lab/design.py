"""Experiment designs: a base scenario, factors with levels, listed
treatments, replicas and a run order, expanded into runs.

A design is a TOML file or the same structure as a dict::

    name = "window-vs-hops"
    base = "chain.toml"            # relative to the design file; or a [base] table;
                                   # or "example:chain" for a packaged example
    replicas = 5                   # seeds 1..5 (or: seeds = [11, 12, 13])
    order = "interleaved"          # sequential | interleaved | randomised
    order_seed = 1                 # the shuffle of "randomised"

    [factors]
    "tcp.max_cwnd" = [2, 3, 4, 0]              # a field and its values
    [factors.hops]                             # a named factor: label -> field overrides
    1 = { "topology.nodes" = 2, "flows[0].dst" = 1 }
    2 = { "topology.nodes" = 3, "flows[0].dst" = 2 }

    [[treatments]]                             # listed cells (instead of, or crossed
    factors = { variant = "clamp" }            # with, the full factorial of [factors])
    set = { "tcp.max_cwnd" = 3 }

    [derive]                                   # fields computed from the cell's levels
    "topology.nodes" = "hops + 1"              # (derive.py: arithmetic only)

A factor given as a list whose name is a plain word that no scenario field
starts with (``hops = [1, 2, 3, 4]``) and that ``[derive]`` reads sets no
field itself: it is a variable, and the derived fields carry it into the
scenario. Derived fields are written after the levels' and treatments'
fields, before the scenario is validated; like a factor's own fields, no
factor or treatment may set them too.

Cells are the full factorial of ``factors`` (in the order written, the last
factor varying fastest); with ``treatments`` each listed treatment is crossed
with that factorial (its overrides applied last). Every cell runs once per
seed. Run orders (the index of each run): *sequential* runs every replica of
a cell before the next cell; *interleaved* runs one replica of every cell,
then the next (seed 000 §3); *randomised* shuffles all runs with
``order_seed`` (seed 004 §3.1).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import itertools
import json
import math
import random
import sys
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

from .. import _core, overrides
from . import derive as _derive
from .._error_text import tidy, tomllib_error_parts
from .._plain import NotPlain, plain
from .._schema import SCHEMA
from .._resources import example_ref, example_text
from .._safe_read import read_text_bounded

__all__ = ["Design", "DesignError", "Run", "ORDERS", "engine_version"]

ORDERS = ("sequential", "interleaved", "randomised")
_TOP_KEYS = {"name", "base", "replicas", "seeds", "order", "order_seed", "factors", "treatments", "derive",
             "description"}
# The largest design: what one machine holds while `design expand` or
# `lab run` has every run of it in memory. Measured (docs/BENCHMARKS.md
# "Design size"; Python 3.11, example:chain, whose JSON is 482 bytes):
# expanding 10^4 and 10^5 runs peaks at 0.4 kB per run of one cell
# (tracemalloc) and `design expand` at 1.0 kB per run (peak RSS, its table
# included); each cell adds 1.9 kB plus 4.8 bytes per byte of the base
# scenario's JSON (its scenario dict and resolved text, shared by its
# replicas; bases of 482 and 2,579 bytes), and `design expand` or `lab run`
# of 10^5 one-run cells peaked at 4.7 and 4.1 kB per cell (RSS). The limits
# round these up: RUN_BYTES per run, CELL_BYTES + CELL_FACTOR x base JSON
# per cell, within MEMORY_BUDGET; MAX_RUNS = MEMORY_BUDGET // RUN_BYTES,
# rounded down (10^6 runs of one cell expand in 18 s and 420 MB, within a
# 2 GiB address-space limit: tests/python/test_lab_design_limits.py).
RUN_BYTES = 1_000
CELL_BYTES = 2_500
CELL_FACTOR = 6
MEMORY_BUDGET = 1 << 30  # 1 GiB for the design, beside the interpreter, pandas and the engine
MAX_RUNS = 1_000_000
# Scenario values nest a few levels (mobility.legs[0].to[0]); a design
# value nested deeper is a mistake, and thousands deep would exhaust the
# stack of any recursive reader.
MAX_DEPTH = 32
# Columns the store and `lab export` put beside a design's factors
# (hoplab.lab.load: RUN_COLUMNS, RUN_TAIL, `idx`, the runs table's
# columns, and every flows column; `design expand` adds `run`). A factor of
# one of these names would be overwritten or break the export.
# A scenario has about 150 fields; derived ones are evaluated per cell and
# checked pairwise for overlaps, so their number is bounded too.
MAX_DERIVED = 1_000
RUN_COLUMN_NAMES = ("run", "key", "design", "replica", "seed", "status", "error", "idx",
                    "events", "event_hash", "wall_s", "host", "recorded_at")
RESERVED_NAMES = frozenset(RUN_COLUMN_NAMES) | frozenset(SCHEMA["flows"])


class DesignError(ValueError):
    """A design that cannot be expanded; ``field`` names the design key (e.g.
    ``factors."tcp.max_cwnd"``), ``message`` says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        field, message = one_line(field), one_line(message)
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def one_line(text: str) -> str:
    """``text`` with every character that is not printable (a newline, a
    record separator, a Unicode line separator: anything that would end or
    hide a line) written as its Python escape: a design's names and values
    end up in error messages, which are one line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def engine_version() -> str:
    """What a run's result depends on besides scenario and seed: the package
    version and the commit the engine was built from."""
    return f"{_core.__version__}+{getattr(_core, '__git_commit__', 'unknown')}"


def _label(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _key_text(where: str, key: Any) -> str:
    k = str(key)
    if not where:
        return k
    return f"{where}.{k}" if k.replace("_", "").isalnum() else f'{where}."{k}"'


def check_plain(value: Any, where: str = "") -> Any:
    """``value`` with Python's own types only (numpy scalars and arrays
    converted), or DesignError for what a scenario cannot hold: a TOML date
    or time, another type than TOML's, a non-finite number, nesting deeper
    than MAX_DEPTH (hoplab._plain: one walk for designs and scenarios). The
    error names the field down to the level's field, beyond which paths grow
    long."""
    try:
        return plain(value, max_depth=MAX_DEPTH)
    except NotPlain as e:
        at = where
        for k in e.path[:4]:  # factors.NAME.LEVEL.FIELD
            at = f"{at}[{k}]" if isinstance(k, int) else _key_text(at, k)
        reason = e.reason.replace("scenario value", "design value") if "not a scenario value (" in e.reason else e.reason
        raise DesignError(at, reason) from None


def _check_factor_name(where: str, name: str) -> None:
    if name == "seed":
        raise DesignError(where, 'a factor cannot be named "seed": every run\'s seed comes from the '
                          "design's `replicas = N` or `seeds = [...]` (the store's seed column)")
    if name in RESERVED_NAMES:
        what = (f"a run column ({', '.join(RUN_COLUMN_NAMES)})" if name in RUN_COLUMN_NAMES
                else "a column of the flows table")
        raise DesignError(where, f'a factor cannot be named "{name}": it is {what}, which the store and '
                          "`lab export` add beside the factors; rename the factor")


def _overlap(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """One path sets (part of) what the other sets: equal, or one a prefix."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


@dataclass(frozen=True)
class Level:
    label: str
    value: Any  # what the factor column holds: the field value, or the label of a named level
    sets: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Factor:
    name: str
    levels: tuple[Level, ...]


@dataclass(frozen=True)
class Cell:
    index: int
    labels: dict[str, Any]  # factor name -> level value (factor columns of the results)
    sets: tuple[tuple[str, Any], ...]


@dataclass(frozen=True, slots=True)
class Run:
    """One simulation of the design: a cell at one seed. The runs of a cell
    share its labels (``cell``) and its scenario: treat them as read-only
    (a design of 10^6 runs would not fit in memory with a copy per run)."""

    index: int  # position in the design's run order
    cell_index: int
    cell: dict[str, Any]
    replica: int  # 1-based
    seed: int
    cell_scenario: dict[str, Any] = field(repr=False)  # the cell's scenario, shared by its runs
    resolved: str = field(repr=False)  # the resolved scenario (TOML) the key hashes
    key: str = ""

    @property
    def scenario(self) -> dict[str, Any]:
        """The run's scenario: its cell's, with its seed (a new top-level dict)."""
        return {**self.cell_scenario, "seed": self.seed}

    def payload(self) -> tuple[str, str, int]:
        """What a worker needs: (key, scenario as JSON, seed) — plain data."""
        return self.key, json.dumps(self.scenario), self.seed


def run_key(resolved: str, seed: int, engine: str) -> str:
    """SHA-256 of the fully resolved scenario, the seed and the engine version."""
    h = hashlib.sha256()
    h.update(json.dumps({"scenario": resolved, "seed": seed, "engine": engine}, sort_keys=True).encode())
    return h.hexdigest()


def _check_sets(where: str, sets: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(sets, Mapping):
        raise DesignError(where, f"expected a table of field = value, got {type(sets).__name__}")
    out = []
    for k, v in sets.items():
        try:
            tokens = overrides.parse_path(str(k))
        except ValueError:
            raise DesignError(f"{where}.{k}", "not a field path (dotted keys with optional [index])") from None
        if tokens == ["seed"]:
            raise DesignError(f"{where}.{k}", "every run's seed comes from the design's `replicas = N` or "
                              "`seeds = [...]`; a seed set here would be ignored")
        out.append((str(k), v))
    return tuple(out)


def _numeric_labels(labels: list[str]) -> list[Any]:
    """Level labels as numbers when every label is one (TOML keys are
    strings: `[factors.hops] 1 = {...}` should give a numeric hops column)."""
    for conv in (int, float):
        try:
            return [conv(x) for x in labels]
        except ValueError:
            continue
    return labels


def _parse_factor(name: str, spec: Any, variables: frozenset[str] = frozenset()) -> Factor:
    """A factor; a list factor named in ``variables`` sets no field (its values feed [derive])."""
    where = f'factors."{name}"'
    _check_factor_name(where, name)
    if isinstance(spec, list):  # a field and its values
        try:
            overrides.parse_path(name)
        except ValueError:
            raise DesignError(where, "a factor given as a list of values must be named by a field path "
                              "(e.g. tcp.max_cwnd); use a table of named levels otherwise") from None
        if not spec:
            raise DesignError(where, "has no levels")
        levels = tuple(Level(_label(v), v, () if name in variables else ((name, v),)) for v in spec)
    elif isinstance(spec, Mapping):  # named levels -> overrides
        if not spec:
            raise DesignError(where, "has no levels")
        values = _numeric_labels([str(lab) for lab in spec])
        levels = tuple(Level(str(lab), v, _check_sets(f"{where}.{lab}", sets))
                       for (lab, sets), v in zip(spec.items(), values))
    else:
        raise DesignError(where, f"expected a list of values or a table of named levels, got {type(spec).__name__}")
    seen: set[str] = set()
    for lv in levels:  # a set, not labels.count: a factor may have 10^6 levels
        if lv.label in seen:
            raise DesignError(where, f"level {lv.label!r} is given twice")
        seen.add(lv.label)
    return Factor(name, levels)


def _parse_derive(spec: Any) -> tuple[tuple[str, _derive.Expr], ...]:
    """The [derive] table: (field path, checked expression) pairs, no two
    setting the same field (or one a part of the other)."""
    if spec is None:
        return ()
    if not isinstance(spec, Mapping):
        raise DesignError("derive", f'expected a table of field = "expression", got {type(spec).__name__}')
    if len(spec) > MAX_DERIVED:
        raise DesignError("derive", f"{len(spec)} derived fields, more than the {MAX_DERIVED} a design may derive")
    out: list[tuple[str, _derive.Expr]] = []
    seen: list[tuple[tuple[Any, ...], str]] = []
    for path, value in spec.items():
        path = str(path)
        where = _key_text("derive", path)
        try:
            toks = tuple(overrides.parse_path(path))
        except ValueError:
            raise DesignError(where, "not a field path (dotted keys with optional [index])") from None
        if toks == ("seed",):
            raise DesignError(where, "every run's seed comes from the design's `replicas = N` or `seeds = [...]`")
        for otoks, op in seen:
            if _overlap(toks, otoks):
                raise DesignError(where, f"{op} is derived too: one would override the other")
        seen.append((toks, path))
        try:
            out.append((path, _derive.parse(value)))
        except _derive.DeriveError as e:
            raise DesignError(where, str(e)) from None
    return tuple(out)


@functools.cache
def _scenario_top_keys() -> frozenset[str]:
    """The top-level keys of a scenario (topology, flows, duration_s, ...), from the engine's schema table."""
    fields = json.loads(_core.schema_reference())["fields"]
    return frozenset(overrides.parse_path(f["path"].replace("[]", "[0]"))[0] for f in fields)


def _variables(derive: tuple[tuple[str, _derive.Expr], ...]) -> frozenset[str]:
    """The names [derive] reads that are no scenario field's first key: a
    list factor of such a name is a variable, which sets no field itself."""
    read = {n for _, e in derive for n in e.names}
    return frozenset(n for n in read if "." not in n and n not in _scenario_top_keys())


def _load_base(base: Any, base_dir: Path | None) -> tuple[dict[str, Any], str]:
    """The base scenario as a dict, and how it was named."""
    if isinstance(base, Mapping):
        return copy.deepcopy(dict(base)), "(inline)"
    if isinstance(base, Path):
        base = str(base)
    if not isinstance(base, str) or not base:
        raise DesignError("base", "expected a scenario file name, \"example:NAME\" or a table")
    example = example_ref(base)
    if example is not None:
        try:
            text, fmt = example_text(example), "toml"
        except FileNotFoundError as e:
            raise DesignError("base", e.strerror) from None
    else:
        path = Path(base)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            text = read_text_bounded(path)
        except OSError as e:
            raise DesignError("base", f"{path}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise DesignError("base", f"{path}: not a UTF-8 text file") from None
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
    try:
        d = parse_text(text, fmt)
    except ValueError as e:
        raise DesignError("base", f"{base}: not valid {fmt.upper()} ({e})") from None
    if not isinstance(d, dict):
        raise DesignError("base", f"{base}: not a table")
    try:
        d = check_plain(d)
    except DesignError as e:
        raise DesignError("base", f"{base}: {e}") from None
    return d, base


def parse_text(text: str, fmt: str) -> Any:
    """A TOML or JSON text as Python values. Every failure is a ValueError
    with a one-line reason: syntax (TOMLDecodeError and JSONDecodeError are
    ValueErrors), nesting so deep that the parser's recursion gives out
    (tomllib and json both recurse per array or table), or an integer longer
    than Python converts (4300 digits, sys.get_int_max_str_digits)."""
    try:
        return json.loads(text) if fmt == "json" else tomllib.loads(text)
    except RecursionError:
        raise ValueError("arrays or tables nested too deep to read "
                         f"(a design nests at most {MAX_DEPTH} deep)") from None
    except ValueError as e:
        if isinstance(e, (tomllib.TOMLDecodeError, json.JSONDecodeError)):
            raise
        if "digits" in str(e):
            raise ValueError(f"an integer longer than {sys.get_int_max_str_digits()} digits") from None
        raise


class Design:
    """A parsed, validated design (see the module doc for the format)."""

    def __init__(self, d: Mapping[str, Any], *, base_dir: Path | None = None, source: str | None = None) -> None:
        if not isinstance(d, Mapping):
            raise DesignError("", f"a design is a table, not {type(d).__name__}")
        unknown = sorted(set(d) - _TOP_KEYS)
        if unknown:
            raise DesignError(unknown[0], f"unknown design key (known: {', '.join(sorted(_TOP_KEYS))})")
        # Before anything copies or recurses into it (`base` may be a Path from Python).
        checked = check_plain({k: v for k, v in d.items() if not (k == "base" and isinstance(v, Path))})
        d = {k: checked.get(k, v) for k, v in d.items()}
        self.source = source
        self.raw = copy.deepcopy(dict(d))
        name = d.get("name", "design")
        if not isinstance(name, str) or not name.strip():
            raise DesignError("name", "expected a non-empty string")
        self.name = name
        self.description = str(d.get("description", ""))
        if "base" not in d:
            raise DesignError("base", "missing: the scenario every run starts from")
        self.base, self.base_name = _load_base(d["base"], base_dir)
        self.seeds = self._parse_seeds(d)
        order = d.get("order", "sequential")
        if order == "randomized":
            order = "randomised"
        if order not in ORDERS:
            raise DesignError("order", f"{order!r} is not one of {', '.join(ORDERS)}")
        self.order = order
        oseed = d.get("order_seed", 0)
        if isinstance(oseed, bool) or not isinstance(oseed, int) or oseed < 0:
            raise DesignError("order_seed", "expected a non-negative integer")
        self.order_seed = oseed
        facs = d.get("factors", {})
        if not isinstance(facs, Mapping):
            raise DesignError("factors", "expected a table of factor = levels")
        self._check_size(facs, d.get("treatments"))
        self.derive = _parse_derive(d.get("derive"))
        variables = _variables(self.derive)
        self.factors = tuple(_parse_factor(str(k), v, variables) for k, v in facs.items())
        self.treatments = self._parse_treatments(d.get("treatments"))
        self._check_derive_names()
        self._check_overlaps()

    def _check_derive_names(self) -> None:
        known = self.factor_names
        for path, expr in self.derive:
            for name in expr.names:
                if name not in known:
                    raise DesignError(_key_text("derive", path), f"{expr.text!r}: {name!r} is not a factor of "
                                      f"this design (factors: {', '.join(known) or 'none'})")

    def _check_size(self, facs: Mapping[str, Any], treatments: Any) -> None:
        """Refuse a design too large to hold in memory, counted from the sizes
        of its factors, treatments and seeds before any level or cell is built
        (a design of 10^10 cells is a few lines of TOML)."""
        levels = [len(v) if isinstance(v, (list, Mapping)) else 1 for v in facs.values()]
        n_treat = len(treatments) if isinstance(treatments, list) and treatments else 1
        cells = math.prod(levels) * n_treat
        runs = cells * len(self.seeds)
        base_bytes = len(json.dumps(self.base))
        need = runs * RUN_BYTES + cells * (CELL_BYTES + CELL_FACTOR * base_bytes)
        if runs > MAX_RUNS or need > MEMORY_BUDGET:
            where = "factors" if cells > 1 else ("seeds" if "seeds" in self.raw else "replicas")
            shape = " x ".join([*(str(n) for n in levels), *([str(n_treat)] if n_treat > 1 else [])])
            raise DesignError(where, f"{runs} runs ({shape or 1} cells x {len(self.seeds)} seeds) would need about "
                              f"{_mib(need)} of memory to expand, more than the {_mib(MEMORY_BUDGET)} a design "
                              f"may use (at most {MAX_RUNS} runs, fewer with a large base scenario); split it "
                              "into several designs, which can share one store")

    def _check_overlaps(self) -> None:
        """Refuse two factors, or a treatment and a factor, setting the same
        field (or one a part of the other's): the later would override the
        earlier, and cells labelled with different levels would run the same
        scenario (one key) under different labels. A derived field counts as
        its factors' own: no factor or treatment may set it too."""
        owner: list[tuple[tuple[Any, ...], str, str]] = []  # (path tokens, path, factor)
        for f in self.factors:
            paths = {p: tuple(overrides.parse_path(p)) for lv in f.levels for p, _ in lv.sets}
            for p, toks in paths.items():
                for otoks, op, of in owner:
                    if of != f.name and _overlap(toks, otoks):
                        raise DesignError(f'factors."{f.name}"', f'sets {p}, which factor "{of}" sets too '
                                          f"({op}): one would override the other, and cells with different "
                                          "labels would run the same scenario; vary a field in one factor only")
            owner += [(toks, p, f.name) for p, toks in paths.items()]
        derived = []  # (path tokens, path, what reads): a derived field belongs to the factors it reads
        for p, expr in self.derive:
            toks = tuple(overrides.parse_path(p))
            for otoks, op, of in owner:
                if _overlap(toks, otoks):
                    raise DesignError(_key_text("derive", p), f'factor "{of}" sets {op} too: one would override '
                                      "the other; derive a field, or vary it in a factor, not both")
            derived.append((toks, p, f"from {', '.join(expr.names)}" if expr.names else f"= {expr.text}"))
        claimed = [(otoks, f'factor "{of}" ({op})') for otoks, op, of in owner]
        claimed += [(otoks, f"the derived field {op} ({how})") for otoks, op, how in derived]
        for i, (_, sets) in enumerate(self.treatments or ()):
            for p, _ in sets:
                toks = tuple(overrides.parse_path(p))
                for otoks, what in claimed:
                    if _overlap(toks, otoks):
                        raise DesignError(f"treatments[{i}].set.{p}", f"overrides {what}: its cells "
                                          "would run the same scenario under different labels; vary a field "
                                          "in the factors or in the treatments, not both")

    # --- construction --------------------------------------------------
    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, base_dir: str | Path | None = None) -> "Design":
        return cls(d, base_dir=Path(base_dir) if base_dir is not None else None)

    @classmethod
    def load(cls, path: str | Path) -> "Design":
        """Read a design TOML (or .json) file; ``base`` is relative to it."""
        path = Path(path)
        try:
            text = read_text_bounded(path)
        except UnicodeDecodeError:
            raise DesignError("", f"{path}: not a UTF-8 text file") from None
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        try:
            d = parse_text(text, fmt)
        except tomllib.TOMLDecodeError as e:
            line, col, problem = tomllib_error_parts(e)  # positioned only where tomllib has attributes (3.14+)
            raise DesignError("", f"{path}{f':{line}:{col}' if line is not None else ''}: invalid TOML: {problem}") from None
        except json.JSONDecodeError as e:  # the parser's own position, as for a scenario
            raise DesignError("", f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
        except ValueError as e:  # nesting too deep, an integer too long (parse_text)
            raise DesignError("", f"{path}: invalid {fmt.upper()}: {e}") from None
        return cls(d, base_dir=path.parent, source=str(path))

    @staticmethod
    def _parse_seeds(d: Mapping[str, Any]) -> list[int]:
        if "replicas" in d and "seeds" in d:
            raise DesignError("seeds", "give replicas or seeds, not both")
        if "seeds" in d:
            seeds = d["seeds"]
            if (not isinstance(seeds, list) or not seeds
                    or any(isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**64 for s in seeds)):
                raise DesignError("seeds", "expected a non-empty list of integers in 0..2**64-1")
            if len(set(seeds)) != len(seeds):
                raise DesignError("seeds", "a seed is listed twice (its runs would be the same run)")
            return list(seeds)
        reps = d.get("replicas", 1)
        if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= MAX_RUNS:
            raise DesignError("replicas", f"expected an integer in 1..{MAX_RUNS}")
        return list(range(1, reps + 1))

    def _parse_treatments(self, tr: Any) -> tuple[tuple[dict[str, Any], tuple[tuple[str, Any], ...]], ...] | None:
        if tr is None:
            return None
        if not isinstance(tr, list) or not tr:
            raise DesignError("treatments", "expected a non-empty list of {factors = {...}, set = {...}}")
        names = {f.name for f in self.factors}
        out, seen = [], set()
        for i, t in enumerate(tr):
            where = f"treatments[{i}]"
            if not isinstance(t, Mapping):
                raise DesignError(where, "expected a table with factors and set")
            bad = sorted(set(t) - {"factors", "set"})
            if bad:
                raise DesignError(f"{where}.{bad[0]}", "unknown key (a treatment has factors and set)")
            labels = t.get("factors", {})
            if not isinstance(labels, Mapping) or not labels:
                raise DesignError(f"{where}.factors", "expected a table naming the treatment's level of each of its factors")
            for name in labels:
                _check_factor_name(f"{where}.factors.{name}", str(name))
            clash = sorted(set(labels) & names)
            if clash:
                raise DesignError(f"{where}.factors.{clash[0]}", "is also a factor of [factors]")
            sig = json.dumps(labels, sort_keys=True)
            if sig in seen:
                raise DesignError(f"{where}.factors", f"{sig} is listed twice")
            seen.add(sig)
            out.append((dict(labels), _check_sets(f"{where}.set", t.get("set", {}))))
        keys = [sorted(lab) for lab, _ in out]
        if any(k != keys[0] for k in keys):
            raise DesignError("treatments", "every treatment must name the same factors "
                              f"(treatments[0] names {', '.join(keys[0])})")
        return tuple(out)

    # --- expansion -----------------------------------------------------
    @property
    def factor_names(self) -> list[str]:
        names = [f.name for f in self.factors]
        if self.treatments:
            names += list(self.treatments[0][0])
        return names

    def cells(self) -> list[Cell]:
        grid = list(itertools.product(*[f.levels for f in self.factors]))
        treatments = self.treatments or ((None, ()),)
        cells = []
        for levels in grid:
            for labels, tsets in treatments:
                cell = {f.name: lv.value for f, lv in zip(self.factors, levels)}
                sets = tuple(s for lv in levels for s in lv.sets) + tuple(tsets)
                if labels:
                    cell.update(labels)
                cells.append(Cell(len(cells), cell, sets))
        return cells

    def _cell_scenario(self, cell: Cell) -> dict[str, Any]:
        sc = copy.deepcopy(self.base)
        for path, value in cell.sets:
            try:
                overrides.assign(sc, path, copy.deepcopy(value))
            except overrides.OverrideError as e:
                raise DesignError(_cell_text(cell), str(e)) from None
        for path, expr in self.derive:
            where = _key_text("derive", path)
            try:
                overrides.assign(sc, path, _derive.evaluate(expr, cell.labels))
            except (_derive.DeriveError, overrides.OverrideError) as e:
                raise DesignError(where, f"{_cell_text(cell)}: {e}") from None
        sc["seed"] = 0  # each run's own seed replaces it (Run.scenario)
        return sc

    def _resolve(self, cell: Cell, sc: dict[str, Any]) -> str:
        try:
            return _core.resolved_scenario(json.dumps(sc), "json")
        except _core.ScenarioError as e:
            e = tidy(e, internal_json=True)
            fieldname = getattr(e, "field", "") or ""
            msg = getattr(e, "message", None) or str(e)
            raise DesignError(_cell_text(cell), f"{fieldname}: {msg}" if fieldname else msg) from None

    @cached_property
    def runs(self) -> tuple[Run, ...]:
        engine = engine_version()
        cells = self.cells()
        prepared: dict[int, tuple[dict[str, Any], str]] = {}  # per cell: scenario, resolved text
        grid = []
        for cell in cells:
            for rep, seed in enumerate(self.seeds, 1):
                grid.append((cell, rep, seed))
        if self.order == "interleaved":
            grid.sort(key=lambda t: (t[1], t[0].index))
        elif self.order == "randomised":
            random.Random(self.order_seed).shuffle(grid)
        runs = []
        for i, (cell, rep, seed) in enumerate(grid):
            if cell.index not in prepared:  # built and validated once per cell; the seed only sets `seed`
                sc = self._cell_scenario(cell)
                prepared[cell.index] = (sc, self._resolve(cell, sc))
            sc, res = prepared[cell.index]
            runs.append(Run(i, cell.index, cell.labels, rep, seed, sc, res, run_key(res, seed, engine)))
        return tuple(runs)

    def expand(self) -> list[Run]:
        """Every run in the design's run order (scenarios validated: a bad
        cell raises DesignError naming the cell and the field)."""
        return list(self.runs)

    def to_dict(self) -> dict[str, Any]:
        """The design as given (base inlined), JSON-serialisable."""
        d = copy.deepcopy(self.raw)
        d["base"] = self.base
        return d

    def __repr__(self) -> str:
        return (f"Design({self.name!r}: {len(self.cells())} cells x {len(self.seeds)} seeds, "
                f"order {self.order})")


def _mib(n: int) -> str:
    return f"{n / (1 << 30):.3g} GiB" if n >= 1 << 30 else f"{max(1, round(n / (1 << 20)))} MiB"


def _cell_text(cell: Cell) -> str:
    inner = ", ".join(f"{k}={_label(v)}" for k, v in cell.labels.items())
    return f"cell {{{inner}}}" if inner else "base scenario"
