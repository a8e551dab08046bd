"""`hoplab reproduce seed002` (dispatched from cli.py's `reproduce`): options
in, report out; errors as one `hoplab: error:` line. With --out DIR every run
is kept in the lab store DIR/store (a later call resumes from it),
DIR/runs-<experiment>.csv holds each experiment's rows and DIR/report.txt
the printed report; without it the store is temporary."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable


def parse_only(text: str | None) -> tuple[str, ...]:
    from .reproduce_seed002 import EXPERIMENTS

    if text is None:
        return EXPERIMENTS
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [n for n in names if n not in EXPERIMENTS]
    if bad or not names:
        raise ValueError(f"--only: {', '.join(bad) or 'nothing given'}: choose from {', '.join(EXPERIMENTS)}")
    return names


def reproduce_seed002(files: int | None, only_text: str | None, out_dir: Path | None, jobs: int,
                      progress: Callable[[str], None]) -> str:
    """Run and report; returns the report's text."""
    from . import _io
    from . import reproduce_seed002 as r2
    from .cli.errors import HoplabError
    from .lab import DesignError, LabError, StoreError
    from .seed002_report import report

    try:
        only = parse_only(only_text)
    except ValueError as e:
        raise HoplabError(str(e)) from None
    files = files or r2.DEFAULT_FILES
    try:
        rows = r2.run_experiments(only, files=files, out=out_dir, jobs=jobs, progress=progress)
    except (DesignError, LabError, StoreError) as e:
        raise HoplabError(str(e)) from None
    text: Any = report(rows)
    if out_dir is not None:
        _io.atomic_write_bytes(out_dir / "report.txt", (text + "\n").encode())
        text += f"\n\nper-run rows: {out_dir}/runs-<experiment>.csv; store: {out_dir / 'store'}"
    return text
