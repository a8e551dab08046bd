"""`hoplab reproduce seed004` (dispatched from cli.py's `reproduce`): options
in, report out; errors as one `hoplab: error:` line. As the other
reproductions: with --out DIR the runs are kept in the lab store DIR/store
(a later call resumes from it) and DIR/runs.csv holds this reproduction's
rows; without it the store is temporary."""

from __future__ import annotations

import sys
from pathlib import Path

import click


def reproduce_seed004(replicas: int | None, duration: float | None, plots_text: str | None, out_dir: Path | None,
                      jobs: int, plot_path: Path | None) -> None:
    from . import _io
    from . import reproduce_seed004 as r4
    from .cli.errors import HoplabError
    from .lab import DesignError, LabError, StoreError

    try:
        plots = r4.parse_plots(plots_text) if plots_text is not None else list(r4.PLOTS)
    except ValueError as e:
        raise HoplabError(str(e)) from None
    replicas = replicas or r4.DEFAULT_REPLICAS
    duration = r4.DEFAULT_DURATION_S if duration is None else duration
    try:
        text, runs = r4.reproduce(replicas=replicas, duration=duration, plots=plots, jobs=jobs,
                                  store=None if out_dir is None else out_dir / "store",
                                  progress=sys.stderr.isatty())
    except (DesignError, LabError, StoreError) as e:
        raise HoplabError(str(e)) from None
    click.echo(text)
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / "runs.csv", runs.to_csv(index=False).encode())
        click.echo(f"\nper-run rows: {out_dir / 'runs.csv'}; store: {out_dir / 'store'}")
    if plot_path is not None:
        from .seed004_figure import figure

        try:
            figure(runs, plot_path)
        except OSError as e:
            raise HoplabError(f"--plot: {plot_path}: {e.strerror or e}") from None
        click.echo(f"figure: {plot_path}", err=True)
