"""The one exception the plots raise for bad input."""

from __future__ import annotations


class PlotError(ValueError):
    """Bad input to a plot: ``field`` names what was wrong (a column, an
    option, a file), ``message`` says how. ``str(e)`` is ``field: message``,
    one line, as the CLI prints it."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)
