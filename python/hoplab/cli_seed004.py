"""`hoplab reproduce seed004` (registered in cli.py's `reproduce`): options
in, report out; errors as one `hoplab: error:` line."""

from __future__ import annotations

import sys
from pathlib import Path

import click


def reproduce_seed004(replicas: int | None, duration: float | None, plots_text: str | None, out_dir: Path | None,
                      jobs: int, plot_file: Path | None) -> None:
    from . import _io
    from . import reproduce_seed004 as r4
    from .cli import HoplabError
    from .lab import DesignError, LabError, StoreError

    try:
        plots = r4.parse_plots(plots_text) if plots_text is not None else list(r4.PLOTS)
    except ValueError as e:
        raise HoplabError(str(e)) from None
    replicas = replicas or r4.DEFAULT_REPLICAS
    duration = r4.DEFAULT_DURATION_S if duration is None else duration
    if plot_file is not None:
        _check_figure_path(plot_file)
    try:
        text, runs = r4.reproduce(replicas=replicas, duration=duration, plots=plots, jobs=jobs, out=out_dir,
                                  progress=sys.stderr.isatty())
    except (DesignError, LabError, StoreError) as e:
        raise HoplabError(str(e)) from None
    click.echo(text)
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / "seed004_runs.csv", runs.to_csv(index=False).encode())
        click.echo(f"\nstore: {out_dir}/ (resumable); per-run rows: {out_dir / 'seed004_runs.csv'}")
    if plot_file is not None:
        from .seed004_figure import figure

        click.echo(f"figure: {figure(runs, plot_file)}")


def _check_figure_path(path: Path) -> None:
    """Refuse an unknown format or a missing directory before any run."""
    from .cli import HoplabError

    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise HoplabError(f"--plot: {path}: the file name must end in .png, .svg or .pdf")
    if not path.parent.resolve().is_dir():
        raise HoplabError(f"--plot: {path.parent}: no such directory")
