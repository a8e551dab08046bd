"""A sandboxed Tcl 8.6 interpreter for ns-2 scripts (Python's own `tkinter.Tcl()`,
no new dependency): a *safe* child interpreter (Tcl's `interp create -safe`:
no `exec`, `open`, `socket`, `cd`, `load` or `exit`) in which hoplab adds
back only what an ns-2 script needs, each through Python:

- `source FILE`: Tcl's own `source` (so errors and `info frame` carry the
  file and line), for regular files up to 16 MB;
- `open FILE r`: read-only channels; `open FILE w`/`a`: a file under the
  working directory, held in memory and written where ns-2 would write it
  only when the run is saved (a trace, a nam file, the script's own
  output); a pipe (`open |cmd`) and any path outside the working directory
  are refused;
- `puts`, `close`, `flush`, `fconfigure` over those files and stdout/stderr;
- `exit` ends the script (and the simulation, if it runs).

Limits: a wall-clock time limit (Tcl's `interp limit ... time`) stops
infinite loops, and the count of nodes is bounded by the caller. Every
Python callback's error is kept here (`pending`), since a Python exception
raised inside Tcl loses its text; the caller re-raises it.
"""

from __future__ import annotations

import os
import stat
import time
import tkinter
from pathlib import Path
from typing import Any, Callable

from .errors import Location, ScriptError

__all__ = ["SafeTcl", "OutFile", "MAX_SOURCE_BYTES"]

MAX_SOURCE_BYTES = 16 * 1024 * 1024
# Commands of a safe interpreter that would wait on the event loop (and so
# outlast any time limit) or touch the process: none has a use in an ns-2
# script, whose own `after` is the simulator's `$ns_ at`.
_REMOVED = ("vwait", "update", "after", "fileevent", "interp", "pid", "chan", "fcopy", "seek", "tell",
            "fblocked", "zlib")


class OutFile:
    """A file the script opened for writing: its path and what it wrote."""

    def __init__(self, name: str, path: Path, mode: str, loc: Location):
        self.name, self.path, self.mode, self.loc = name, path, mode, loc
        self.chunks: list[str] = []
        self.closed = False
        self.size = 0

    def text(self) -> str:
        return "".join(self.chunks)


class SafeTcl:
    def __init__(self, script: Path, cwd: Path, time_limit_s: float, stdout: Callable[[str], None],
                 max_output_bytes: int = 64 * 1024 * 1024):
        self.script = script
        self.cwd = cwd.resolve()
        self.stdout = stdout
        self.time_limit_s = time_limit_s
        self.max_output_bytes = max_output_bytes
        self.tcl = tkinter.Tcl()
        self.child = str(self.tcl.eval("interp create -safe"))
        self.pending: BaseException | None = None  # the first error a callback raised
        self.exited: int | None = None  # exit status once the script called exit
        self.files: dict[str, OutFile] = {}
        self.event_loc: Location | None = None  # where the $ns_ at of the running event was
        self.floor = 0  # frames at or below this level are the caller of $ns_ run, not the event
        self._n = 0
        self._shown_cache: dict[str, str] = {}
        self._deadline = time.monotonic() + time_limit_s
        for name in _REMOVED:
            self._eval(f"catch {{rename {name} {{}}}}")
        self.tcl.call("interp", "expose", self.child, "source", "__tcl_source")
        self._eval("rename close __tcl_close; rename flush __tcl_flush; rename puts __tcl_puts")
        for name, fn in (("__hoplab_source_ok", self._source_ok), ("open", self._open), ("close", self._close),
                         ("flush", self._flush), ("puts", self._puts), ("fconfigure", self._fconfigure),
                         ("exit", self._exit), ("file", self._file)):
            self.alias(name, fn)
        # The innermost frame read from a file (one call from Python per question).
        self._eval("proc __hoplab_where {floor} { for {set l [expr {[info frame] - 1}]} {$l > $floor} {incr l -1} { "
                   "set f [info frame $l]; if {[dict exists $f file] && [dict exists $f line]} { "
                   "return [list [dict get $f file] [dict get $f line]] } }; return {} }")
        # Tcl's own source, so that errors and info frame name the file and line.
        self._eval("proc source {args} { uplevel 1 [list __tcl_source [__hoplab_source_ok {*}$args]] }")
        self._arm_limit()

    # ------------------------------------------------------------ plumbing
    def _eval(self, script: str) -> Any:
        return self.tcl.call("interp", "eval", self.child, script)

    def alias(self, name: str, fn: Callable[..., Any]) -> None:
        """Make ``name`` a command of the script's interpreter that calls ``fn``."""
        self._n += 1
        target = f"__py{self._n}"
        self.tcl.createcommand(target, self._guard(fn))
        self.tcl.call("interp", "alias", self.child, name, "", target)

    def _guard(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: str) -> Any:
            if self.pending is not None:  # an earlier refusal that the script caught: stop here too
                raise tkinter.TclError("hoplab: refused")
            try:
                out = fn(*args)
            except ScriptError as e:
                self.pending = e
                raise tkinter.TclError(e.problem) from None
            except _Exit:
                raise tkinter.TclError("hoplab: exit") from None
            except ValueError as e:  # a conversion: the script's value was wrong here
                self.pending = ScriptError(self.where(), str(e))
                raise tkinter.TclError(str(e)) from None
            return "" if out is None else out
        return call

    def _arm_limit(self) -> None:
        # Tcl checks the limit between commands; seconds since the epoch plus milliseconds.
        left = max(self._deadline - time.monotonic(), 0.0)
        at = time.time() + left
        self.tcl.call("interp", "limit", self.child, "time", "-seconds", int(at),
                      "-milliseconds", int((at - int(at)) * 1000))

    def where(self) -> Location:
        """The file and line of the script command running now: the innermost
        frame that comes from a file, else the `$ns_ at` of the running event."""
        try:
            found = self.tcl.splitlist(self._eval(f"__hoplab_where {self.floor}"))
        except tkinter.TclError:
            found = ()
        if len(found) == 2:
            return Location(self._shown(str(found[0])), int(str(found[1])))
        return self.event_loc or Location(self._shown(str(self.script)))

    def _shown(self, file: str) -> str:
        """A path as the user named it: relative to the working directory when under it."""
        hit = self._shown_cache.get(file)
        if hit is None:
            try:  # relative to the working directory when that is shorter (`../mobility/scene/...`)
                rel = os.path.relpath(file, self.cwd) if os.path.isabs(file) else file
                hit = rel if len(rel) < len(file) else file
            except (OSError, ValueError):
                hit = file
            self._shown_cache[file] = hit
        return hit

    def eval_setup(self, script: str) -> None:
        """hoplab's own Tcl (not the user's): errors here are bugs."""
        self._eval(script)

    def set_global(self, name: str, value: str) -> None:
        self.tcl.call("interp", "eval", self.child, f"set ::{name} {{{value}}}" if " " not in value else
                      f"set ::{name} [list {value}]")

    def set_list(self, name: str, items: list[str]) -> None:
        self._eval(f"set ::{name} {{}}")
        for it in items:
            self.tcl.call("interp", "eval", self.child, ["lappend", f"::{name}", it])

    def eval_script(self, script: str, loc: Location | None = None) -> None:
        """Evaluate ``script`` at the global level (as ns-2 runs an `$ns_ at`
        event); raises ScriptError for any failure."""
        prev, prev_floor = self.event_loc, self.floor
        if loc is not None:
            self.event_loc = loc
            # the frames below the event's own are the `$ns_ run` line's
            self.floor = int(self._eval("info frame")) - 1
        try:
            self.tcl.call("interp", "eval", self.child, script)
        except tkinter.TclError as e:
            self._failed(e, loc)
        finally:
            self.event_loc, self.floor = prev, prev_floor
        if self.pending is not None:  # refused inside a `catch`: still refused
            raise self.pending

    def source_main(self, args: list[str]) -> None:
        """Run the script as `ns SCRIPT ARGS` would: argv0, argv, argc set."""
        self._eval(f"set ::argv0 {{{self.script}}}")
        self.set_list("argv", args)
        self._eval(f"set ::argc {len(args)}")
        try:
            self.tcl.call("interp", "eval", self.child, ["__tcl_source", str(self.script)])
        except tkinter.TclError as e:
            self._failed(e, None)
        if self.pending is not None:
            raise self.pending

    def _failed(self, e: tkinter.TclError, loc: Location | None) -> None:
        if self.exited is not None and self.pending is None:
            return  # `exit`: the script ended
        if self.pending is not None:
            raise self.pending from None
        msg = str(e)
        info = ""
        try:
            info = str(self._eval("set ::errorInfo"))
        except tkinter.TclError:
            pass
        if "time limit exceeded" in msg:
            raise ScriptError(self._last_file_line(info) or loc or Location(str(self.script)),
                              f"the script ran longer than {self.time_limit_s:g} s of wall-clock time "
                              "(an endless loop?); --tcl-time-limit raises the limit") from None
        raise ScriptError(self._last_file_line(info) or loc or Location(str(self.script)),
                          f"Tcl error: {msg}") from None

    def _last_file_line(self, info: str) -> Location | None:
        """The innermost `(file "X" line N)` of Tcl's errorInfo; a line of a
        procedure is given relative to its body, so the file's one wins."""
        import re

        m = re.search(r'\(file "([^"]*)" line (\d+)\)', info)
        return Location(self._shown(m.group(1)), int(m.group(2))) if m else None

    # ------------------------------------------------------------ commands
    def _source_ok(self, *args: str) -> str:
        if len(args) == 3 and args[0] == "-encoding":
            args = args[2:]
        if len(args) != 1:
            raise ScriptError(self.where(), "source takes one file name")
        p = (self.cwd / args[0]) if not os.path.isabs(args[0]) else Path(args[0])
        try:
            st = p.stat()
        except OSError as e:
            raise ScriptError(self.where(), f"source {args[0]}: {e.strerror or e}") from None
        if not stat.S_ISREG(st.st_mode):
            raise ScriptError(self.where(), f"source {args[0]}: not a regular file")
        if st.st_size > MAX_SOURCE_BYTES:
            raise ScriptError(self.where(), f"source {args[0]}: larger than {MAX_SOURCE_BYTES >> 20} MB")
        return str(p)

    def _inside(self, name: str) -> Path:
        p = Path(name) if os.path.isabs(name) else self.cwd / name
        parent = p.parent.resolve()
        if not parent.is_relative_to(self.cwd):
            raise ScriptError(self.where(), f"open {name} for writing: outside the working directory "
                              f"({self.cwd}); hoplab writes a script's files only there")
        return parent / p.name

    def _open(self, *args: str) -> str:
        if not args or len(args) > 3:
            raise ScriptError(self.where(), "open takes a file name, a mode and permissions")
        name, mode = args[0], (args[1] if len(args) > 1 else "r")
        if name.startswith("|"):
            raise ScriptError(self.where(), f"open {name[:40]}: a pipe runs a shell command, which hoplab's "
                              "script interpreter does not allow")
        writes = any(w in mode for w in ("w", "a", "+", "WRONLY", "RDWR", "CREAT", "APPEND", "TRUNC"))
        if not writes:
            p = self._source_ok(name)
            chan = self.tcl.call("open", p, "r")
            self.tcl.call("interp", "transfer", "", chan, self.child)
            return str(chan)
        path = self._inside(name)
        self._n += 1
        handle = f"hoplabfile{self._n}"
        self.files[handle] = OutFile(handle, path, mode, self.where())
        return handle

    def _out(self, chan: str) -> OutFile | None:
        return self.files.get(chan)

    def _puts(self, *args: str) -> None:
        a = list(args)
        newline = True
        if a and a[0] == "-nonewline":
            newline, a = False, a[1:]
        if len(a) == 1:
            chan, text = "stdout", a[0]
        elif len(a) == 2:
            chan, text = a
        else:
            raise ScriptError(self.where(), 'wrong # args: should be "puts ?-nonewline? ?channelId? string"')
        text = text + ("\n" if newline else "")
        if chan in ("stdout", "stderr"):
            self.stdout(text)
            return
        f = self._out(chan)
        if f is None:
            raise ScriptError(self.where(), f"puts to {chan[:40]}: not a channel the script opened for writing")
        if f.closed:
            raise ScriptError(self.where(), f"puts to {chan}: the file was closed")
        f.size += len(text)
        if sum(x.size for x in self.files.values()) > self.max_output_bytes:
            raise ScriptError(self.where(), f"the script wrote more than {self.max_output_bytes >> 20} MB "
                              "to its files")
        f.chunks.append(text)

    def _close(self, *args: str) -> None:
        if args and (f := self._out(args[0])) is not None:
            f.closed = True
            return
        self.tcl.call("interp", "eval", self.child, ["__tcl_close", *args])

    def _flush(self, *args: str) -> None:
        if args and (self._out(args[0]) is not None or args[0] in ("stdout", "stderr")):
            return
        self.tcl.call("interp", "eval", self.child, ["__tcl_flush", *args])

    def _fconfigure(self, *args: str) -> str:
        return ""  # buffering and translation change nothing written here

    def _exit(self, *args: str) -> None:
        try:
            self.exited = int(args[0]) if args else 0
        except ValueError:
            self.exited = 0
        raise _Exit()

    def _file(self, *args: str) -> Any:
        """Tcl's `file`, for names only (no access to the file system beyond
        `exists`/`isfile`, which a script uses to find its input)."""
        if not args:
            raise ScriptError(self.where(), "file needs a subcommand")
        sub, rest = args[0], args[1:]
        import posixpath

        if sub == "join":
            return posixpath.join(*rest) if rest else ""
        if sub == "tail" and len(rest) == 1:
            return posixpath.basename(rest[0])
        if sub == "dirname" and len(rest) == 1:
            return posixpath.dirname(rest[0]) or "."
        if sub == "rootname" and len(rest) == 1:
            return posixpath.splitext(rest[0])[0]
        if sub == "extension" and len(rest) == 1:
            return posixpath.splitext(rest[0])[1]
        if sub in ("exists", "isfile", "readable") and len(rest) == 1:
            p = Path(rest[0]) if os.path.isabs(rest[0]) else self.cwd / rest[0]
            return "1" if p.is_file() else "0"
        raise ScriptError(self.where(), f"file {sub}: hoplab's script interpreter gives file names only "
                          "(join, tail, dirname, rootname, extension, exists)")


class _Exit(Exception):
    """The script called exit."""
