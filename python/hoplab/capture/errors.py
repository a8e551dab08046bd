"""The one error a capture can raise: `CaptureError`, a ValueError whose text
is one line, `FILE: byte OFFSET: problem` (the CLI prints it and exits 2)."""

from __future__ import annotations

import os

__all__ = ["CaptureError"]


class CaptureError(ValueError):
    """A capture file that cannot be read: names the file and the byte offset
    where the problem is (None when it is not at a place in the file)."""

    def __init__(self, path: str | os.PathLike[str], offset: int | None, problem: str) -> None:
        self.path, self.offset, self.problem = str(path), offset, problem
        where = f"byte {offset}: " if offset is not None else ""
        super().__init__(f"{self.path}: {where}{problem}")
