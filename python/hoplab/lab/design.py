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
import hashlib
import itertools
import json
import random
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping

from .. import _core, overrides
from .._error_text import tidy, tomllib_error_parts
from .._resources import example_names, example_text
from .._safe_read import read_text_bounded

__all__ = ["Design", "DesignError", "Run", "ORDERS", "engine_version"]

ORDERS = ("sequential", "interleaved", "randomised")
_TOP_KEYS = {"name", "base", "replicas", "seeds", "order", "order_seed", "factors", "treatments", "description"}
_MAX_RUNS = 10_000_000


class DesignError(ValueError):
    """A design that cannot be expanded; ``field`` names the design key (e.g.
    ``factors."tcp.max_cwnd"``), ``message`` says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


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


@dataclass(frozen=True)
class Run:
    """One simulation of the design: a cell at one seed."""

    index: int  # position in the design's run order
    cell_index: int
    cell: dict[str, Any]
    replica: int  # 1-based
    seed: int
    scenario: dict[str, Any] = field(repr=False)
    resolved: str = field(repr=False)  # the resolved scenario (TOML) the key hashes
    key: str = ""

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
            overrides.parse_path(str(k))
        except ValueError:
            raise DesignError(f"{where}.{k}", "not a field path (dotted keys with optional [index])") from None
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


def _parse_factor(name: str, spec: Any) -> Factor:
    where = f'factors."{name}"'
    if isinstance(spec, list):  # a field and its values
        try:
            overrides.parse_path(name)
        except ValueError:
            raise DesignError(where, "a factor given as a list of values must be named by a field path "
                              "(e.g. tcp.max_cwnd); use a table of named levels otherwise") from None
        if not spec:
            raise DesignError(where, "has no levels")
        levels = tuple(Level(_label(v), v, ((name, v),)) for v in spec)
    elif isinstance(spec, Mapping):  # named levels -> overrides
        if not spec:
            raise DesignError(where, "has no levels")
        values = _numeric_labels([str(lab) for lab in spec])
        levels = tuple(Level(str(lab), v, _check_sets(f"{where}.{lab}", sets))
                       for (lab, sets), v in zip(spec.items(), values))
    else:
        raise DesignError(where, f"expected a list of values or a table of named levels, got {type(spec).__name__}")
    labels = [lv.label for lv in levels]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise DesignError(where, f"level {dup[0]!r} is given twice")
    return Factor(name, levels)


def _load_base(base: Any, base_dir: Path | None) -> tuple[dict[str, Any], str]:
    """The base scenario as a dict, and how it was named."""
    if isinstance(base, Mapping):
        return copy.deepcopy(dict(base)), "(inline)"
    if isinstance(base, Path):
        base = str(base)
    if not isinstance(base, str) or not base:
        raise DesignError("base", "expected a scenario file name, \"example:NAME\" or a table")
    if base.startswith("example:"):
        name = base.split(":", 1)[1]
        if name not in example_names():
            raise DesignError("base", f"no packaged example {name!r} (one of {', '.join(example_names())})")
        text, fmt = example_text(name), "toml"
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
        d = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise DesignError("base", f"{base}: not valid {fmt.upper()} ({e})") from None
    if not isinstance(d, dict):
        raise DesignError("base", f"{base}: not a table")
    return d, base


class Design:
    """A parsed, validated design (see the module doc for the format)."""

    def __init__(self, d: Mapping[str, Any], *, base_dir: Path | None = None, source: str | None = None) -> None:
        if not isinstance(d, Mapping):
            raise DesignError("", f"a design is a table, not {type(d).__name__}")
        unknown = sorted(set(d) - _TOP_KEYS)
        if unknown:
            raise DesignError(unknown[0], f"unknown design key (known: {', '.join(sorted(_TOP_KEYS))})")
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
        self.factors = tuple(_parse_factor(str(k), v) for k, v in facs.items())
        self.treatments = self._parse_treatments(d.get("treatments"))
        n = len(self.cells()) * len(self.seeds)
        if n > _MAX_RUNS:
            raise DesignError("factors", f"{n} runs is more than {_MAX_RUNS}")

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
        try:
            d = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            line, col, problem = tomllib_error_parts(e)  # positioned only where tomllib has attributes (3.14+)
            raise DesignError("", f"{path}{f':{line}:{col}' if line is not None else ''}: invalid TOML: {problem}") from None
        except json.JSONDecodeError as e:  # the parser's own position, as for a scenario
            raise DesignError("", f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
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
        if isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= 1_000_000:
            raise DesignError("replicas", "expected an integer in 1..1000000")
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

    def _cell_scenario(self, cell: Cell, seed: int) -> dict[str, Any]:
        sc = copy.deepcopy(self.base)
        for path, value in cell.sets:
            try:
                overrides.assign(sc, path, copy.deepcopy(value))
            except overrides.OverrideError as e:
                raise DesignError(_cell_text(cell), str(e)) from None
        sc["seed"] = seed
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
        resolved: dict[int, str] = {}
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
            sc = self._cell_scenario(cell, seed)
            if cell.index not in resolved:  # validates once per cell; the seed only sets `seed`
                resolved[cell.index] = self._resolve(cell, {**sc, "seed": 0})
            res = resolved[cell.index]
            runs.append(Run(i, cell.index, dict(cell.labels), rep, seed, sc, res, run_key(res, seed, engine)))
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


def _cell_text(cell: Cell) -> str:
    inner = ", ".join(f"{k}={_label(v)}" for k, v in cell.labels.items())
    return f"cell {{{inner}}}" if inner else "base scenario"
