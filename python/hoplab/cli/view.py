"""`hoplab view RUN_DIR`: a web page that animates a run.

    hoplab view RUN_DIR [-o FILE.html] [--start S] [--end S] [--serve [--port N]]

The run directory is what `hoplab run SCENARIO --out DIR` wrote, with the
anim.csv event log a scenario with `[trace] formats = ["anim"]` adds.
"""

from __future__ import annotations

from pathlib import Path

import click

from .errors import HoplabError, Interrupted

__all__ = ["view_cmd"]


@click.command("view")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The HTML file to write (default: RUN_DIR/view.html).")
@click.option("--start", type=float, default=None, help="Window start, s (default: 0).")
@click.option("--end", type=float, default=None, help="Window end, s (default: the end of the run).")
@click.option("--max-frames", type=click.IntRange(1), default=None,
              help="Refuse a window with more frames than this (default: 500,000).")
@click.option("--serve", is_flag=True, help="Serve the page on localhost and print its URL (Ctrl-C stops).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Port for --serve (default: any free one).")
def view_cmd(run_dir: Path, out: Path | None, start: float | None, end: float | None, max_frames: int | None,
             serve: bool, port: int) -> None:
    """Write a self-contained web page (one HTML file, no network) that
    animates a run: nodes moving, each frame on the air with its decode and
    carrier-sense reach, flows' paths as they change, drops by cause, and
    per-flow throughput and cwnd; --serve serves it on localhost."""
    from .._view import DEFAULT_MAX_FRAMES, ViewInputError, view

    try:
        path = view(run_dir, out, start=start, end=end, max_frames=max_frames or DEFAULT_MAX_FRAMES)
    except ViewInputError as e:
        raise HoplabError(str(e)) from None
    except OSError as e:
        raise HoplabError(f"{e.filename or out}: {e.strerror or e}") from None
    click.echo(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    if serve:
        _serve(path, port)


def _serve(path: Path, port: int) -> None:
    """Serve ``path``'s directory on 127.0.0.1 (stdlib http.server) until Ctrl-C."""
    import functools
    import http.server

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # no line per request
            pass

    handler = functools.partial(Quiet, directory=str(path.resolve().parent))
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as e:
        raise HoplabError(f"--port {port}: {e.strerror or e}") from None
    click.echo(f"serving http://127.0.0.1:{server.server_address[1]}/{path.name}  (Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        raise Interrupted() from None
    finally:
        server.server_close()
