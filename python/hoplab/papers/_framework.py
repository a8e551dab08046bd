"""The reproduction framework: what a paper plug-in declares (`Paper`) and
what every reproduction shares — the `hoplab reproduce PAPER` command built
from it (its own options plus --out, --jobs and, for a paper with a figure,
--plot), progress on stderr, one-line errors, the report on stdout, the
files written into --out and the figure.

A paper's `run(out=, jobs=, progress=, **its_options)` runs its experiment
(through the lab store: `_grid.run_grid`, or a lab design of its own) and
returns an `Outcome`. This module imports only click and the standard
library, so that building the commands (and `--help`) stays cheap.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import click

__all__ = ["Paper", "Outcome", "Progress", "ReproduceError", "Failure", "command", "option", "replicas_option",
           "duration_option", "reading_option", "READINGS", "parse_hops", "parse_list", "data_frame", "sweep_figure"]

Progress = Callable[[str], None]


class ReproduceError(RuntimeError):
    """An error in a reproduction's input: `hoplab: error: ...`, exit 2."""


class Failure(click.ClickException):
    """A user-facing error: `hoplab: error: <message>` on stderr, exit 2 —
    hoplab.cli's HoplabError, declared here so that the papers need not
    import the command line."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"hoplab: error: {self.format_message()}", err=True)


@dataclass(frozen=True)
class Outcome:
    """What a reproduction hands back: its report (stdout), the files it
    adds to --out DIR beside the store and runs.csv (name -> bytes), the
    line naming them, and how to draw its figure (for --plot)."""

    report: str
    files: Mapping[str, bytes] = field(default_factory=dict)
    note: str | None = None
    figure: Callable[[Path], None] | None = None


@dataclass(frozen=True)
class Paper:
    """A reproduced experiment: its name (`hoplab reproduce NAME`), help
    text, its own click options, and `run`. `plot`: it draws a figure.
    `needs`: the extras its report needs (`hoplab._extras`), checked before
    any run so that a missing one fails at once, not after the sweep."""

    name: str
    help: str
    options: Sequence[Callable[[Any], Any]]
    run: Callable[..., Outcome]
    plot: bool = False
    needs: Sequence[str] = ()


def option(*decls: str, **attrs: Any) -> Callable[[Any], Any]:
    """A click option of a paper (click.option, named for symmetry)."""
    return click.option(*decls, **attrs)


def replicas_option(help: str) -> Callable[[Any], Any]:
    return click.option("--replicas", type=click.IntRange(1, 1000), default=None, help=help)


def duration_option(help: str) -> Callable[[Any], Any]:
    return click.option("--duration", type=click.FloatRange(0, 1e7, min_open=True), default=None, help=help)


# How a reproduction reads the paper's simulator: "ns2" runs `compat = "ns2"`
# (ns-2.35's rules, scenario/schema/compat.rs), "standard" hoplab's defaults
# (IEEE 802.11, the RFCs), "both" each, side by side.
READINGS = ("ns2", "standard", "both")


def reading_option(help: str, default: str = "ns2") -> Callable[[Any], Any]:
    return click.option("--reading", type=click.Choice(READINGS), default=default, show_default=True, help=help)


def readings(choice: str) -> tuple[str, ...]:
    """The readings to run for a --reading choice, the main one first."""
    return ("ns2", "standard") if choice == "both" else (choice,)


_OUT = click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                    help="Keep every run in the lab store DIR/store (a later call resumes from it); "
                         "DIR/runs.csv is this reproduction's rows, DIR/summary.csv its summary.")
_JOBS = click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True, help="Worker processes.")
_PLOT = click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="Also draw the experiment's main figure into FILE (.png, .svg or .pdf).")


def command(paper: Paper) -> click.Command:
    """The click command of ``paper``: its options, then --out, --jobs (and --plot)."""

    def callback(out_dir: Path | None, jobs: int, plot_path: Path | None = None, **options: Any) -> None:
        _reproduce(paper, out_dir, jobs, plot_path, options)

    decorators = [*paper.options, _OUT, _JOBS] + ([_PLOT] if paper.plot else [])
    for d in reversed(decorators):  # click lists options in decorator order, top first
        callback = d(callback)
    return click.command(paper.name, help=paper.help)(callback)


def _progress(msg: str) -> None:
    click.echo(msg, err=True)


def _reproduce(paper: Paper, out: Path | None, jobs: int, plot_path: Path | None, options: dict[str, Any]) -> None:
    from .._extras import require

    for extra in paper.needs:
        require(extra, f"hoplab reproduce {paper.name}")
    if plot_path is not None:
        require("plot", "--plot")
        _check_plot_path(plot_path)  # before any run
    with _one_line_errors(out):
        outcome = paper.run(out=out, jobs=jobs, progress=_progress, **options)
        click.echo(outcome.report)
        if out is not None:
            from .. import _io

            for name, data in outcome.files.items():
                _io.atomic_write_bytes(out / name, data)
            if outcome.note:
                click.echo(f"\n{outcome.note}")
    if plot_path is not None and outcome.figure is not None:
        outcome.figure(plot_path)
        click.echo(f"figure: {plot_path}", err=True)


@contextmanager
def _one_line_errors(out: Path | None) -> Iterator[None]:
    """Turn what a reproduction raises for bad input or a failed run into
    one `hoplab: error:` line (exit 2); a bug stays a traceback."""
    from .. import _core, lab

    try:
        yield
    except (ReproduceError, lab.LabError, lab.StoreError, lab.DesignError) as e:
        raise Failure(str(e)) from None
    except _core.ScenarioError as e:  # a bug in the reproduction's scenario, reported plainly
        raise Failure(_scenario_error_text(e)) from None
    except BrokenPipeError:  # main() ends a broken pipe quietly
        raise
    except OSError as e:
        raise Failure(_os_error_text(e, out)) from None


def _scenario_error_text(e: BaseException) -> str:
    field_ = getattr(e, "field", "") or ""
    message = getattr(e, "message", None) or str(e)
    return ": ".join([field_, message] if field_ else [message])


def _os_error_text(e: OSError, out: Path | None) -> str:
    """`FILE: reason` for an OSError of the system; a message-only one
    (e.g. a missing packaged example) as it is."""
    if e.errno is None and e.filename is None:
        return str(e)
    return f"{Path(e.filename or out or '.')}: {e.strerror or e.__class__.__name__}"


def _check_plot_path(path: Path) -> None:
    from ..plot import PlotError
    from ..plot._figure import format_of

    try:
        format_of(path)
    except PlotError as e:
        raise Failure(str(e)) from None


def sweep_figure(df: Any, *, x: str, y: str, by: str | None, title: str, **labels: Any) -> Callable[[Path], None]:
    """A figure for --plot: ``y`` against ``x``, one line per ``by`` (hoplab.plot.sweep;
    ``labels``: its xlabel, ylabel, by_label, level_names)."""

    def draw(path: Path) -> None:
        from ..plot import PlotError, sweep

        try:
            sweep(df, x, y, by, title=title, path=path, **labels)
        except (PlotError, OSError) as e:
            raise Failure(f"--plot: {e}") from None

    return draw


def parse_hops(text: str) -> tuple[int, ...]:
    """"4,6,14", "4-22" or "4-22:2" (from-to:step), or a mix, into sorted hop counts."""
    out: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part:
                rng, _, step = part.partition(":")
                a, b = (int(x) for x in rng.split("-", 1))
                st = int(step) if step else 1
                if st < 1 or a > b:
                    raise ValueError
                out.update(range(a, b + 1, st))
            else:
                out.add(int(part))
        except ValueError:
            raise ReproduceError(f"--hops: cannot read {part!r} (use e.g. 6,14 or 4-22 or 4-22:2)") from None
    if not out or min(out) < 1:
        raise ReproduceError("--hops: give at least one hop count >= 1")
    return tuple(sorted(out))


def parse_list(text: str, allowed: Sequence[str], option: str) -> tuple[str, ...]:
    """A comma-separated list of names out of ``allowed``, as given."""
    items = tuple(x for x in text.replace(" ", "").split(",") if x)
    bad = [x for x in items if x not in allowed]
    if bad or not items:
        raise ReproduceError(f"{option}: unknown {', '.join(bad) or '(empty)'}; choose from {', '.join(allowed)}")
    return items


def data_frame(package: str | None, name: str) -> Any:
    """A paper's reference table ``<package>/data/<name>`` (a CSV with `#`
    comments, read through importlib.resources so an installed wheel finds
    it), or None if the package lacks it."""
    from .._resources import data_frame as read

    return read(name, package=package or "hoplab")
