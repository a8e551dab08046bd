"""`ScriptError`: a script's problem as one line naming its file and line."""

from __future__ import annotations

__all__ = ["ScriptError", "Location"]


class Location(tuple):
    """(file, line) of a Tcl command; line 0 when unknown."""

    __slots__ = ()

    def __new__(cls, file: str, line: int = 0) -> "Location":
        return super().__new__(cls, (str(file), int(line)))

    @property
    def file(self) -> str:
        return self[0]

    @property
    def line(self) -> int:
        return self[1]

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


class ScriptError(ValueError):
    """A construct hoplab refuses, or an error of the script itself:
    ``file:line: problem`` (exit 2 on the command line)."""

    def __init__(self, where: Location | str, problem: str):
        self.where = where if isinstance(where, Location) else Location(str(where))
        self.problem = " ".join(str(problem).split())  # one line
        super().__init__(f"{self.where}: {self.problem}")
