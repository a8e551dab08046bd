"""`hoplab.run`: a scenario (file, TOML text or dict) in, a `Result` out."""

from __future__ import annotations

import errno
import operator
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from . import _core, _deprecation
from ._error_text import tidy
from ._resources import example_ref, example_text
from ._safe_read import MAX_SCENARIO_BYTES, read_text_bounded
from ._scenario_json import scenario_error, scenario_json, too_large

if TYPE_CHECKING:  # `validate`, `config` and `example` read scenarios without needing Result
    from .result import Result

__all__ = ["run", "run_text", "read_scenario_source"]

_U64_MAX = 2**64 - 1


def _check_seed(seed: Any) -> int | None:
    if seed is None:
        return None
    # Any integer type (numpy's too, by __index__), but not a bool: seed=True is a mistake.
    if isinstance(seed, bool) or "bool" in type(seed).__name__:
        raise TypeError(f"seed must be an int, not {type(seed).__name__}")
    try:
        seed = operator.index(seed)
    except TypeError:
        raise TypeError(f"seed must be an int, not {type(seed).__name__}") from None
    if not 0 <= seed <= _U64_MAX:
        raise ValueError(f"seed must be in 0..2**64-1, got {seed}")
    return seed


def _looks_like_path(s: str) -> bool:
    # Every scenario needs `duration = ...`, so TOML text has an '=';
    # a single line without one can only be meant as a file name.
    return "\n" not in s and "=" not in s


def _short(text: str, keep: int = 60) -> str:
    """``text`` as echoed in a message: quoted, cut after ``keep`` characters."""
    return repr(text) if len(text) <= keep else f"{text[:keep]!r}... ({len(text)} characters)"


def _check_text(s: str) -> None:
    """The limits a scenario file has, for a string: not empty, at most 16 MB."""
    if not s.strip():
        raise scenario_error("", "empty scenario: give a file path, TOML text or a dict")
    size = len(s) if len(s) > MAX_SCENARIO_BYTES else len(s.encode("utf-8", "surrogatepass"))
    if size > MAX_SCENARIO_BYTES:
        raise too_large(f"{size} bytes of text")


def _stat_error(e: OSError, scenario: Any) -> Exception:
    """An OSError from looking ``scenario`` up as a path, echoing at most the
    start of it (a long string that is not TOML is not a file name either)."""
    name = str(scenario)
    if e.errno == errno.ENAMETOOLONG and isinstance(scenario, str):
        return scenario_error("", f"not a scenario file or TOML text: {_short(name)} is too long for a "
                              "file name and has no `key = value`")
    short = name if len(name) <= 200 else f"{name[:200]}... ({len(name)} characters)"
    return OSError(e.errno, e.strerror, short)  # OSError(errno, ...) picks the subclass


def read_scenario_source(scenario: Any) -> tuple[str, str, Path | None]:
    """Return ``(text, format, path)`` for a path, TOML string, "example:NAME" or dict.

    ``format`` is "toml" or "json"; ``path`` is the file read, if any.
    "example:NAME" is the packaged example NAME (`hoplab example` lists them).
    Raises FileNotFoundError (or another OSError) for a file that cannot be
    read or an unknown example, and ScenarioError for an empty string, a text, file or dict over
    16 MB (as the CLI), or a value in a dict that JSON cannot carry (NaN,
    infinity, an object), naming its field.
    """
    if isinstance(scenario, Mapping):
        return scenario_json(scenario), "json", None
    example = example_ref(scenario)
    if example is not None:  # before any file of that name: as a design's `base` reads it
        return example_text(example), "toml", None
    if isinstance(scenario, str):
        _check_text(scenario)
        is_file = "\n" not in scenario and os.path.isfile(scenario)
        if not is_file and not _looks_like_path(scenario):
            return scenario, "toml", None
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        try:
            exists, is_dir = path.exists(), path.is_dir()
        except OSError as e:  # a name too long, a loop of symlinks
            raise _stat_error(e, scenario) from None
        except ValueError:  # "embedded null byte"
            raise scenario_error("", f"not a scenario file or TOML text: {_short(str(path))} "
                                 "(a file name has no NUL character)") from None
        if not exists:
            name = str(path) if len(str(path)) <= 200 else f"{str(path)[:200]}... ({len(str(path))} characters)"
            raise FileNotFoundError(errno.ENOENT, "scenario file not found", name)
        if is_dir:
            raise IsADirectoryError(errno.EISDIR, "scenario path is a directory, not a file", str(path))
        text = read_text_bounded(path)  # refuses FIFOs, devices and files over 16 MB
        fmt = "json" if path.suffix.lower() == ".json" else "toml"
        return text, fmt, path
    raise TypeError(
        f"scenario must be a path, a TOML string or a dict, not {type(scenario).__name__}")


def run(scenario: Any, seed: int | None = None, progress: Callable[[float, float, int, float], Any] | None = None,
        *, trace_dir: str | os.PathLike[str] | None = None) -> Result:
    """Run one simulation and return its `Result`.

    ``scenario`` is a `pathlib.Path` or str naming a TOML (or .json) file,
    "example:NAME" (a packaged example, listed by `hoplab example`), a TOML
    string, or a dict of the same structure (numpy numbers and arrays
    are taken as numbers and lists); each at most 16 MB, as for the CLI.
    ``seed`` (an int, numpy's too) overrides the scenario's ``seed``. The simulation runs with the GIL released.

    ``progress``, if given, is called about every 50 ms of wall time as
    ``progress(sim_time_s, duration_s, events, events_per_s)``; an exception
    it raises stops the run and propagates. Ctrl-C raises KeyboardInterrupt
    within ~50 ms.

    ``trace_dir``: the directory (made if missing) that the scenario's
    ``[trace] formats`` files (trace.csv, anim.csv, ...) stream into while
    the run goes; a scenario with formats needs one (ScenarioError
    otherwise). ``Result.save`` into that directory or another lists them
    in the result's manifest; a file that cannot be written ends the run
    with an OSError naming it.

    Raises `hoplab.ScenarioError` (a ValueError with ``.field`` and
    ``.message``) for an invalid, empty or too large scenario, FileNotFoundError for a
    missing file and `hoplab.SimulationError` (a RuntimeError naming the
    scenario and seed) if the engine itself fails.
    """
    seed = _check_seed(seed)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable, not {type(progress).__name__}")
    text, fmt, path = read_scenario_source(scenario)
    return run_text(text, fmt, seed, progress=progress, internal_json=path is None and fmt == "json",
                    trace_dir=trace_dir)


def run_text(text: str, fmt: str, seed: int | None,
             progress: Callable[[float, float, int, float], Any] | None = None, *,
             internal_json: bool = False, trace_dir: str | os.PathLike[str] | None = None) -> Result:
    """Run scenario text in ``fmt`` ("toml" or "json"); raises ScenarioError
    with a one-line message (``internal_json``: the JSON was generated by
    hoplab, so its line/column are left out of messages).

    Old key names work and raise a `ScenarioKeyDeprecationWarning` each.
    ``trace_dir``: see `run`."""
    if trace_dir is not None:
        trace_dir = Path(trace_dir)
        trace_dir.mkdir(parents=True, exist_ok=True)
    try:
        # Parsed, validated and cost-checked once, by the call that runs it.
        raw, old_keys = _core.run(text, fmt, seed, progress, None if trace_dir is None else str(trace_dir))
    except _core.ScenarioError as e:
        raise tidy(e, internal_json=internal_json) from None
    _deprecation.warn_old_keys(old_keys, stacklevel=3)
    from .result import Result

    return Result.from_core(raw, scenario_text=text, scenario_format=fmt, trace_dir=trace_dir)
