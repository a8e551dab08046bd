"""Files shipped inside the package: example scenarios (hoplab/examples/)
and published reference tables (each paper's, hoplab/papers/<paper>/data/).

They are read through `importlib.resources`, never through a path relative
to the source tree, so an installed wheel (`pip install .`, outside the
checkout) finds them as well as a development checkout, where the top-level
`examples/` is a symlink into python/hoplab/.
"""

from __future__ import annotations

import errno
import io
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import PurePath

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXAMPLE_PREFIX", "example_names", "example_ref", "example_text", "data_text", "data_frame"]

#: How a scenario names a packaged example wherever one is read (`hoplab run
#: example:chain`, `hoplab.run("example:chain")`, a design's `base`).
EXAMPLE_PREFIX = "example:"


def _dir(name: str) -> Traversable:
    return resources.files("hoplab") / name


def example_names() -> list[str]:
    """Names of the packaged example scenarios (without `.toml`), sorted."""
    return sorted(p.name[:-5] for p in _dir("examples").iterdir() if p.name.endswith(".toml"))


def example_ref(scenario: object) -> str | None:
    """NAME if ``scenario`` is the string (or path) "example:NAME", else None:
    the one test every reader of scenarios makes."""
    text = scenario if isinstance(scenario, str) else str(scenario) if isinstance(scenario, PurePath) else None
    if text is None or not text.startswith(EXAMPLE_PREFIX):
        return None
    return text[len(EXAMPLE_PREFIX):]


def example_text(name: str) -> str:
    """The TOML text of a packaged example (`chain` or `chain.toml`).

    Raises FileNotFoundError (errno ENOENT, ``strerror`` one line naming the
    known examples) for an unknown name."""
    stem = name[:-5] if name.endswith(".toml") else name
    if stem not in example_names():
        raise FileNotFoundError(errno.ENOENT, f"no packaged example {name!r} (known: {', '.join(example_names())})",
                                f"{EXAMPLE_PREFIX}{name}")
    return (_dir("examples") / f"{stem}.toml").read_text(encoding="utf-8")


def data_text(name: str, package: str = "hoplab") -> str | None:
    """The text of <package>/data/<name>, or None if the package lacks it."""
    f = resources.files(package) / "data" / name
    return f.read_text(encoding="utf-8") if f.is_file() else None


def data_frame(name: str, package: str = "hoplab") -> pd.DataFrame | None:
    """<package>/data/<name> (a CSV with `#` comments) as a DataFrame, or None."""
    import pandas as pd  # here: the examples are read by commands that need no pandas

    text = data_text(name, package)
    return None if text is None else pd.read_csv(io.StringIO(text), comment="#")
