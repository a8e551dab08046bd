"""Result directories that prove they are whole: written as a unit, verified on load.

`save_dir` writes every file of a result into a fresh staging directory, then
``MANIFEST.json`` (each file's name, size and SHA-256, the table rows, the table
format, the hoplab version and git commit) LAST, and then commits it:

* a target that does not exist yet: the staging directory (made beside it) is
  renamed to the target, one atomic step;
* an existing target (earlier results, `previous/`, the user's own files): the
  staging directory is made inside it; the old manifest is taken away first,
  the old result files that differ go to ``previous/<UTC time>/`` as before,
  the new files are renamed in, and the new manifest is renamed in last.

The manifest is the commit point. A crash (kill, power loss) at any moment
leaves the old result whole, the new result whole, or a directory without a
manifest, which `verify` refuses with `ResultError` (naming the staging
directory that holds the new files, if one is left). It never leaves a
directory that loads as a mix of two results.

`verify` refuses a missing or unreadable manifest, a listed file that is
missing or has another size or checksum (truncated, changed), and result files
that the manifest does not list (say a CSV table beside a Parquet result).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, NamedTuple, Sequence

from . import _io

__all__ = ["ResultError", "MANIFEST", "Entry", "save_dir", "verify", "check_file", "check_writable", "writer_info"]

MANIFEST = "MANIFEST.json"
FORMAT = "hoplab-result"
# Bump when the manifest changes incompatibly; `verify` refuses newer ones.
FORMAT_VERSION = 1
STAGE_PREFIX = ".partial-"


class ResultError(ValueError):
    """A result directory that is not whole: ``.path`` names the file, ``.problem`` says what is wrong."""

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = Path(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class Entry(NamedTuple):
    """One file of a result: ``write(path)`` creates it; ``rows`` for tables.
    ``write`` None: the file is already in the target directory (a trace
    streamed there while the run went) and is listed as it is."""

    name: str
    write: Callable[[Path], None] | None
    rows: int | None = None


def writer_info() -> dict[str, str]:
    """The version and git commit of this hoplab (the extension's build)."""
    from . import _core

    return {"hoplab_version": str(_core.__version__),
            "git_commit": str(getattr(_core, "__git_commit__", "unknown"))}


def _step(what: str) -> None:
    """Called between the steps of a save; the tests replace it to kill the process there."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _stage(target: Path) -> Path:
    """A fresh staging directory on the target's file system, with the user's umask."""
    if target.is_dir():
        parent, prefix = target, STAGE_PREFIX
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        parent, prefix = target.parent, f".{target.name}{STAGE_PREFIX}"
    stage = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    os.chmod(stage, 0o777 & ~_io.umask())  # mkdtemp makes it 0700
    return stage


def save_dir(target: str | os.PathLike[str], entries: Sequence[Entry], *, table_format: str,
             result_names: Iterable[str]) -> Path:
    """Write ``entries`` and their manifest into ``target`` as one unit.

    ``result_names`` are the names a result file can have; those in an existing
    target are the old result, the rest of the target is left alone.
    """
    target = Path(target)
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(target))
    stage = _stage(target)
    files: dict[str, dict[str, Any]] = {}
    try:
        for e in entries:
            path = stage / e.name if e.write is not None else target / e.name
            if e.write is not None:
                e.write(path)
            _fsync_file(path)
            files[e.name] = {"size": path.stat().st_size, "sha256": _sha256(path)}
            if e.rows is not None:
                files[e.name]["rows"] = int(e.rows)
            _step(f"staged {e.name}")
        manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, "table_format": table_format,
                    **writer_info(), "files": dict(sorted(files.items()))}
        data = (json.dumps(manifest, indent=2) + "\n").encode()
        (stage / MANIFEST).write_bytes(data)
        _fsync_file(stage / MANIFEST)
        _io.fsync_dir(stage)
    except BaseException:  # (a disk full, a writer error) the target was not touched yet
        shutil.rmtree(stage, ignore_errors=True)
        raise
    _step("staged the manifest")
    if not target.exists():
        try:
            os.rename(stage, target)
        except OSError as err:  # someone made it meanwhile: commit into it below
            if err.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
        else:
            _io.fsync_dir(target.parent)
            _step("renamed into place")
            return target
    kept = {e.name for e in entries if e.write is None}
    _commit_into(target, stage, files, data, set(result_names), kept)
    return target


def _commit_into(target: Path, stage: Path, files: dict[str, dict[str, Any]], manifest: bytes,
                 result_names: set[str], kept: Collection[str] = ()) -> None:
    stamp = _io._stamp()

    def set_aside(path: Path) -> None:
        backup = target / "previous" / stamp
        backup.mkdir(parents=True, exist_ok=True)
        os.replace(path, backup / path.name)
        _step(f"moved aside {path.name}")

    # 1. Take the old manifest away first: from here until step 4 the
    #    directory has none, so it cannot load as a mix of old and new.
    old = target / MANIFEST
    if old.exists():
        if old.read_bytes() == manifest:
            old.unlink()
            _step("removed the identical manifest")
        else:
            set_aside(old)
        _io.fsync_dir(target)
    # 2. Old result files that differ from the new ones (or that the new
    #    result does not have) go to previous/<time>/; identical ones stay.
    for name in sorted(result_names - {MANIFEST}):
        path = target / name
        if not path.is_file() or name in kept:
            continue
        new = files.get(name)
        if new is not None and path.stat().st_size == new["size"] and _sha256(path) == new["sha256"]:
            continue
        set_aside(path)
    # 3. The new files, then 4. the manifest, last.
    for name in files:
        if name in kept:
            continue
        os.replace(stage / name, target / name)
        _step(f"moved in {name}")
    _io.fsync_dir(target)
    os.replace(stage / MANIFEST, target / MANIFEST)
    _io.fsync_dir(target)
    _step("moved in the manifest")
    stage.rmdir()


def _leftovers(d: Path) -> str:
    stages = sorted(d.glob(f"{STAGE_PREFIX}*")) + sorted(d.parent.glob(f".{d.name}{STAGE_PREFIX}*"))
    return f"; the new files of an interrupted save are in {stages[-1]}" if stages else ""


def verify(directory: str | os.PathLike[str], result_names: Iterable[str],
           checksums: Collection[str] | None = None) -> dict[str, Any]:
    """Check ``directory`` against its manifest and return the manifest.

    Every listed file must exist with its size; ``checksums`` names the files
    whose SHA-256 is checked now (default: all; a caller that reads a file
    later checks it then, with `check_file`). Raises FileNotFoundError for a
    missing directory and `ResultError` naming the file for anything else
    that is not whole.
    """
    d = Path(directory)
    if not d.is_dir():
        if d.exists():
            raise NotADirectoryError(errno.ENOTDIR, "not a result directory", str(d))
        raise FileNotFoundError(errno.ENOENT, "no such result directory", str(d))
    mpath = d / MANIFEST
    if not mpath.is_file():
        raise ResultError(mpath, "missing: a save into this directory was interrupted, or it was written "
                                 "by hoplab before result manifests (load it with Result.load(dir, "
                                 "verify=False), check it, and save it again to add one)" + _leftovers(d))
    try:
        m = json.loads(mpath.read_text(encoding="utf-8"))
        files = m["files"]
        if m.get("format") != FORMAT or not isinstance(files, dict):
            raise ValueError("not a hoplab result manifest")
        version = int(m["format_version"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise ResultError(mpath, f"unreadable ({e})") from None
    if version > FORMAT_VERSION:
        raise ResultError(mpath, f"format version {version} is newer than this hoplab reads "
                                 f"({FORMAT_VERSION}); upgrade hoplab")
    for name, meta in files.items():
        path = d / name
        if (Path(name).name != name or not isinstance(meta, dict) or not isinstance(meta.get("size"), int)
                or not isinstance(meta.get("sha256"), str)):
            raise ResultError(mpath, f"unreadable (bad entry for {name!r})")
        _check_size(path, meta)
        if checksums is None or name in checksums:
            check_file(path, meta)
    fmt = m.get("table_format")
    for name in sorted(set(result_names) - set(files) - {MANIFEST}):
        if (d / name).exists():
            other = Path(name).suffix.lstrip(".")
            why = (f"a {other} table beside this {fmt} result (two saves of different formats into one "
                   f"directory?)" if other in ("csv", "parquet") else "not part of this result")
            raise ResultError(d / name, f"not in the manifest: {why}; move it away")
    return m


def _check_size(path: Path, meta: dict[str, Any]) -> None:
    if not path.is_file():
        raise ResultError(path, "missing (listed in the manifest)")
    size = path.stat().st_size
    if size != meta["size"]:
        how = "truncated" if size < meta["size"] else "changed"
        raise ResultError(path, f"{size} bytes, the manifest says {meta['size']} ({how} after saving)")


def check_file(path: Path, meta: Mapping[str, Any]) -> None:
    """Refuse a file whose size or SHA-256 is not its manifest entry's."""
    _check_size(path, dict(meta))
    if _sha256(path) != meta["sha256"]:
        raise ResultError(path, "content differs from the manifest's checksum (changed after saving)")


def check_rows(path: Path, rows: int, meta: dict[str, Any]) -> None:
    """Refuse a table whose parsed row count is not the manifest's."""
    want = meta.get("rows")
    if want is not None and rows != want:
        raise ResultError(path, f"{rows} rows read, the manifest lists {want}")


def check_writable(directory: str | os.PathLike[str]) -> Path:
    """Check that results can be written to ``directory`` (made if missing) before a run.

    Creates and removes a probe file in the directory, or in its nearest
    existing ancestor; raises an OSError naming ``directory`` if that fails.
    """
    d = Path(directory)
    probe = d
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        where = "" if probe == d else f" ({probe} is a file)"
        raise NotADirectoryError(errno.ENOTDIR, f"not a directory{where}", str(d))
    try:
        fd, name = tempfile.mkstemp(prefix=".hoplab-write-test-", dir=probe)
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        reason = e.strerror or type(e).__name__
        reason = f"not writable ({reason})" if probe == d else f"cannot be created ({probe}: {reason})"
        raise type(e)(e.errno, reason, str(d)) from None
    return d
