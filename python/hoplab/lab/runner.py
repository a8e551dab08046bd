"""`lab.run`: run what a design still misses from a store, with progress.

Only runs whose key the store does not hold are simulated (a run shared with
another design, or finished before a kill, is reused); each is recorded as
soon as it ends, so Ctrl-C or a kill loses at most the runs in flight. A run
that fails is recorded with its error and the sweep goes on. Several
`lab.run`s on one store share its runs: each claims a run before simulating
it (`claims`), and waits at the end for the runs that others hold.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from .design import Design, engine_version
from .execute import LabError, backend_for
from .claims import DONE, HELD, POLL_S, TAKEN, Claims
from .store import Store

__all__ = ["run", "Summary", "as_design"]


@dataclass
class Summary:
    design: str
    total: int  # runs in the design
    reused: int  # already in the store
    ran: int  # simulated now
    failed: int  # of those, failed
    store: str
    others: int = 0  # recorded meanwhile by another process on the same store

    def __str__(self) -> str:
        shared = f"; {self.others} run by another process" if self.others else ""
        return (f"{self.design}: {self.total} runs; {self.reused} already in {self.store}, "
                f"{self.ran} run now ({self.failed} failed){shared}")


def as_design(design: Design | Mapping[str, Any] | str | os.PathLike[str]) -> Design:
    if isinstance(design, Design):
        return design
    if isinstance(design, Mapping):
        return Design.from_dict(design)
    return Design.load(Path(design))


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _bar(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit="run", file=sys.stderr, disable=not enabled, dynamic_ncols=True,
                smoothing=0.1, bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]")


def run(design: Design | Mapping[str, Any] | str | os.PathLike[str], store: str | os.PathLike[str], *,
        jobs: int | None = None, backend: str = "local", client: Any = None, address: str | None = None,
        progress: bool | None = None, retry_failed: bool = False,
        on_run: Callable[[dict[str, Any]], None] | None = None, slurm: Any = None, pbs: Any = None) -> Summary:
    """Run every run of ``design`` that ``store`` does not hold yet.

    ``jobs``: worker processes (default: the cores available); 1 runs in this
    process. ``backend="dask"`` runs on Dask: ``client`` (a
    `distributed.Client`, e.g. on a `dask_jobqueue.SLURMCluster`), or
    ``address`` of a scheduler, or a `LocalCluster` of ``jobs`` workers.
    ``progress``: a progress bar on stderr (default: when stderr is a
    terminal). ``retry_failed``: run again the runs recorded as failed.
    ``on_run(outcome)`` is called after each run is recorded.
    ``slurm`` / ``pbs``: run on batch jobs of that scheduler (`jobqueue`):
    True, or a `lab.JobQueue` or dict of its options (partition, account,
    walltime, jobs, cores, memory, job_name, log_dir, options); the jobs are
    sized from the cost estimate (``jobs``, if given, is their number) and
    cancelled when the sweep ends.
    """
    d = as_design(design)
    asked = jobs
    jobs = default_jobs() if jobs is None else int(jobs)
    if jobs < 1:
        raise LabError(f"jobs: must be at least 1, got {jobs}")
    if slurm is not None and pbs is not None:
        raise LabError("slurm and pbs: give one scheduler, not both")
    queue = None
    if slurm is not None or pbs is not None:
        from .jobqueue import as_jobqueue

        queue = as_jobqueue("slurm", slurm) if slurm is not None else as_jobqueue("pbs", pbs)
        if queue.jobs is None and asked is not None:
            queue.jobs = jobs  # ``jobs`` counts batch jobs here
    runs = d.expand()
    engine = engine_version()
    with Store(store) as st:
        st.register_design(d)
        have = st.recorded(r.key for r in runs)
        damaged = st.damaged(have)
        if damaged:
            st.forget(damaged)
            have = {k: s for k, s in have.items() if k not in set(damaged)}
        if retry_failed:
            failed = [k for k, s in have.items() if s == "failed"]
            st.forget(failed)
            have = {k: s for k, s in have.items() if s != "failed"}
        todo, seen = [], set(have)
        for r in runs:  # in run order; a key twice in a design (equal cells) runs once
            if r.key not in seen:
                seen.add(r.key)
                todo.append(r)
        by_key = {r.key: r for r in todo}
        summary = Summary(d.name, len(runs), len(runs) - len(todo), 0, 0, str(store))
        if not todo:
            return summary
        show = sys.stderr.isatty() if progress is None else bool(progress)
        if queue is not None:
            from . import jobqueue

            be = jobqueue.backend(queue, [r.payload() for r in todo], d.name)
        else:
            be = backend_for(backend, min(jobs, len(todo)), client, address)
        bar = _bar(len(todo), show)
        try:
            with Claims(st) as claims:
                pending = todo
                while pending:
                    held: list[Any] = []
                    taken_before = summary.ran

                    def payloads() -> Any:
                        # Claimed one at a time as the backend asks for work, so two
                        # processes interleave; a run held elsewhere is looked at again later.
                        for r in pending:
                            got = claims.take(r.key)
                            if got == TAKEN:
                                yield r.payload()
                            elif got == HELD:
                                held.append(r)
                            else:
                                assert got == DONE
                                summary.others += 1
                                bar.update(1)

                    outcomes = be.map_unordered(payloads())
                    try:
                        for out in outcomes:
                            r = by_key[out["key"]]
                            out.update(seed=r.seed, engine=engine, scenario=r.resolved)
                            if st.record(out):
                                summary.ran += 1
                                if out["status"] != "ok":
                                    summary.failed += 1
                                    bar.set_postfix_str(f"failed={summary.failed}", refresh=False)
                            else:  # recorded by a process that took over our claim
                                summary.others += 1
                            bar.update(1)
                            if on_run is not None:
                                on_run(out)
                    finally:
                        outcomes.close()  # stops the workers at once if the sweep ends in an error
                    pending = held
                    if pending and summary.ran == taken_before:
                        time.sleep(POLL_S)  # every remaining run is held by another process
        finally:
            bar.close()
            be.close()
    return summary
