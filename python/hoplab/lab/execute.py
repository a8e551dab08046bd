"""Where the runs of a sweep execute: this process, local worker processes, or
a Dask cluster — one code path, since each is a `concurrent.futures.Executor`
(`dask.distributed.Client.get_executor()` is one too).

Tasks are plain data (run key, scenario JSON, seed) and return plain data
(status, info, flows and tables as DataFrames); the process that called
`lab.run` alone writes the store, so Dask workers need no access to it.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator, Sequence

from .. import _pool
from .store import RUN_TABLES, parquet_bytes

__all__ = ["run_payload", "LocalBackend", "DaskBackend", "InlineBackend", "LabError", "backend_for"]


class LabError(RuntimeError):
    """A sweep that cannot go on (the CLI prints it as one line)."""


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return f"{type(e).__name__}: {text}"


def run_payload(payload: tuple[str, str, int], tables: Sequence[str] = RUN_TABLES) -> dict[str, Any]:
    """Run one design run (in any process) and return its outcome; an error of
    the scenario or the engine is returned as a failed outcome, not raised."""
    import warnings

    from .._run import run_text

    key, scenario_json, seed = payload
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated key names were reported when the design was read
            res = run_text(scenario_json, "json", seed, internal_json=True)
    except Exception as e:  # noqa: BLE001 - any failure of one run is recorded, the sweep goes on
        return {"key": key, "status": "failed", "error": _one_line(e), "info": {},
                "wall_s": time.perf_counter() - t0, "flows": None, "tables": {}}
    # Serialised here, in the worker: the process that writes the store only
    # writes bytes. Empty tables are not stored (they read back empty).
    blobs = {t: parquet_bytes(getattr(res, t)) for t in tables if len(getattr(res, t))}
    rows = {t: len(getattr(res, t)) for t in blobs}
    return {"key": key, "status": "ok", "error": None, "info": dict(res.info),
            "wall_s": time.perf_counter() - t0, "flows": res.flows, "tables": blobs, "rows": rows}


def _failed(key: str, e: BaseException) -> dict[str, Any]:
    return {"key": key, "status": "failed", "error": _one_line(e), "info": {}, "wall_s": None,
            "flows": None, "tables": {}}


class InlineBackend:
    """Runs in this process, one after another (``--jobs 1``)."""

    name = "inline"

    def map_unordered(self, payloads: Iterable[tuple[str, str, int]]) -> Iterator[dict[str, Any]]:
        for p in payloads:
            yield run_payload(p)

    def close(self) -> None:
        pass


def _drive(ex: Executor, payloads: Iterable[tuple[str, str, int]], window: int,
           on_stop: Callable[[list[Future]], None]) -> Iterator[dict[str, Any]]:
    """Submit in order, at most ``window`` in flight; yield outcomes as they end."""
    it = iter(payloads)
    inflight: dict[Future, str] = {}
    try:
        for p in it:
            inflight[ex.submit(run_payload, p)] = p[0]
            if len(inflight) >= window:
                break
        while inflight:
            done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
            for f in done:
                key = inflight.pop(f)
                try:
                    out = f.result()
                except BrokenProcessPool:
                    raise LabError("a worker process died (killed or out of memory); "
                                   "the runs it held are not recorded — run again to resume") from None
                except Exception as e:  # noqa: BLE001 - e.g. Dask's KilledWorker: this run failed
                    out = _failed(key, e)
                yield out
                nxt = next(it, None)
                if nxt is not None:
                    inflight[ex.submit(run_payload, nxt)] = nxt[0]
    except BaseException:
        on_stop(list(inflight))
        raise


class LocalBackend:
    """``jobs`` worker processes on this machine. Workers ignore Ctrl-C and
    die with their parent (`hoplab._pool`)."""

    name = "local"

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.stopped = False
        self.pool = ProcessPoolExecutor(max_workers=jobs, initializer=_pool._init_worker, initargs=(os.getpid(),))

    def _stop(self, fs: list[Future]) -> None:
        self.stopped = True  # workers terminated: waiting on the pool could hang
        _pool._stop(self.pool, fs)

    def map_unordered(self, payloads: Iterable[tuple[str, str, int]]) -> Iterator[dict[str, Any]]:
        return _drive(self.pool, payloads, 2 * self.jobs, self._stop)

    def close(self) -> None:
        if not self.stopped:
            self.pool.shutdown(wait=True)


class DaskBackend:
    """A Dask cluster: a `distributed.Client` given by the caller (e.g. on a
    `dask_jobqueue.SLURMCluster`), a scheduler address, or "local" for a
    `LocalCluster` of ``jobs`` single-threaded worker processes."""

    name = "dask"

    def __init__(self, client: Any = None, *, address: str | None = None, jobs: int = 2) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise LabError("the Dask backend needs dask.distributed: pip install 'hoplab[dask]'") from None
        self._own: list[Any] = []
        if client is None:
            if address in (None, "local"):
                cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
                self._own.append(cluster)
                client = Client(cluster)
            else:
                try:
                    client = Client(address, timeout="20s")
                except (OSError, TimeoutError) as e:
                    raise LabError(f"cannot reach the Dask scheduler at {address}: {e}") from None
            self._own.insert(0, client)
        self.client = client
        self.executor = client.get_executor(pure=False)
        nthreads = sum(client.nthreads().values()) or jobs
        self.window = max(2, 2 * nthreads)

    def map_unordered(self, payloads: Iterable[tuple[str, str, int]]) -> Iterator[dict[str, Any]]:
        def stop(fs: list[Future]) -> None:
            for f in fs:
                f.cancel()
        return _drive(self.executor, payloads, self.window, stop)

    def close(self) -> None:
        for obj in self._own:
            try:
                obj.close()
            except Exception:  # noqa: BLE001 - closing a cluster that is already gone
                pass


def backend_for(backend: Any, jobs: int, client: Any = None, address: str | None = None) -> Any:
    """The backend object for ``lab.run``'s arguments."""
    if client is not None or backend == "dask":
        return DaskBackend(client, address=address, jobs=jobs)
    if backend not in ("local", None):
        raise LabError(f"backend: {backend!r} is not one of local, dask")
    return InlineBackend() if jobs <= 1 else LocalBackend(jobs)
