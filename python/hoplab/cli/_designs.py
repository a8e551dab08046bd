"""Loading a design and reporting design, store and sweep errors as one
`hoplab: error:` line (exit 2), for `hoplab design` and `hoplab lab`."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .errors import HoplabError

__all__ = ["lab_errors", "load_design"]


@contextmanager
def lab_errors(design_path: Path | None = None) -> Iterator[None]:
    """Design, store and sweep errors as `hoplab: error: ...` (exit 2)."""
    try:
        yield
    except Exception as e:
        # The error classes are imported only when something failed: the
        # store's module imports pandas, which `design expand` does without.
        from ..lab.design import DesignError, one_line
        from ..lab.execute import LabError
        from ..lab.store import StoreError

        if isinstance(e, DesignError):
            shown = one_line(str(design_path)) if design_path is not None else None
            where = f"{shown}: " if shown is not None and not str(e).startswith(shown) else ""
            raise HoplabError(f"{where}{e}") from None
        if isinstance(e, (StoreError, LabError)):
            raise HoplabError(str(e)) from None
        if isinstance(e, OSError):
            raise HoplabError(f"{e.filename or design_path}: {e.strerror or e}") from None
        raise


def load_design(path: Path) -> Any:
    """The design at PATH, or its one-line error."""
    from ..lab.design import Design

    with lab_errors(path):
        return Design.load(path)
