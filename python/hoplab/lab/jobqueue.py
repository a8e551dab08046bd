"""`lab run --slurm` / `--pbs`: a sweep's workers as batch jobs of a
scheduler, through `dask_jobqueue` (SLURMCluster, PBSCluster: one code path,
another class).

The jobs are sized from the engine's cost estimate of the runs still to do
(`_core.estimate_cost_json`, scenario/cost.rs): memory from the largest run's
peak, the number of jobs from the total work (about `WORKER_S` of it per
worker), the walltime from the work each worker gets. Every option can be
given instead. Each job runs `cores` single-threaded Dask workers (one run
uses one core); the scheduler runs in this process, which alone writes the
store, so compute nodes need the Python environment but not the store.

A job that ends early (cancelled, pre-empted, walltime) takes its runs in
flight with it: Dask gives them to the other workers, and a watcher submits a
job in its place, so the sweep keeps its size; a run whose worker died
`distributed.scheduler.allowed-failures` times is recorded as failed with
one line (KilledWorker), and `--retry-failed` runs it again. The jobs are
cancelled when the sweep ends, fails or is interrupted; if this process is
killed outright, its workers exit after the jobqueue `death-timeout` (60 s)
without a scheduler.
"""

from __future__ import annotations

import math
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

from .execute import DaskBackend, LabError

__all__ = ["JobQueue", "Plan", "plan", "JobQueueBackend", "as_jobqueue"]

#: The kinds of scheduler and their dask_jobqueue class.
CLASSES = {"slurm": "SLURMCluster", "pbs": "PBSCluster"}
#: Handled events per wall second of one core: the rate scenario/cost.rs
#: assumes for its limit (1e10 events, "~3 hours at 1e6 events/s").
EVENTS_PER_S = 1e6
#: Wall seconds a run costs besides its events: the worker's share of
#: building the world and serialising the tables (~0.5 s measured for the
#: 4-hop chain of examples/designs).
RUN_OVERHEAD_S = 1.0
#: Work worth a job of its own: a job's queue wait and start-up (tens of
#: seconds to minutes) should be small beside what it runs.
WORKER_S = 600.0
#: Default upper bound on jobs submitted at once: a polite share of a cluster.
MAX_JOBS = 32
#: Memory of a Dask worker before any run (interpreter, dask, pandas, pyarrow).
WORKER_BASE_BYTES = 1 << 30
#: Seconds a worker leaves itself before the walltime to retire (dask-jobqueue
#: docs, "How to handle job queueing system walltime killing workers").
RETIRE_MARGIN_S = 300
#: Seconds between looks for jobs that ended before the sweep.
WATCH_S = 2.0
#: Seconds between tries of a submission that failed.
RESUBMIT_S = 30.0
#: Seconds between looks in the scheduler's queue for jobs that left it
#: before their worker joined (cancelled or failed while queued): Dask never
#: hears of those, so only the queue tells that they are gone.
QUEUE_LOOK_S = 10.0
#: Seconds to wait for the submit commands (sbatch, qsub) to answer.
SUBMIT_S = 120.0
#: Seconds to wait for the cancel command and for Dask's client and cluster to close.
CLOSE_S = 30.0
#: Seconds Dask waits before taking a lost worker's job for gone (its default is 15 s).
LOST_WORKER_S = 5.0


@dataclass
class JobQueue:
    """Where and how to submit: ``kind`` "slurm" or "pbs"; ``partition`` (the
    PBS queue), ``account``, ``walltime`` ("HH:MM:SS"), ``jobs``, ``memory``
    per job ("4GiB") and ``job_name``, each derived from the cost estimate or
    the design when None; ``cores``: worker processes per job; ``log_dir``:
    the jobs' stdout/stderr (default: the scheduler's, e.g. slurm-ID.out in
    the current directory); ``options``: more keywords for the dask_jobqueue
    class (e.g. ``interface="ib0"``, ``job_script_prologue=[...]``). Site
    settings in ~/.config/dask/jobqueue.yaml apply to what is not given."""

    kind: str = "slurm"
    partition: str | None = None
    account: str | None = None
    walltime: str | None = None
    jobs: int | None = None
    cores: int = 1
    memory: str | None = None
    job_name: str | None = None
    log_dir: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


def as_jobqueue(kind: str, spec: Any) -> JobQueue:
    """``lab.run``'s ``slurm=``/``pbs=`` argument: True, a `JobQueue`, or a mapping of its fields."""
    if isinstance(spec, JobQueue):
        return replace(spec, kind=kind)
    if spec is True:
        return JobQueue(kind)
    if isinstance(spec, Mapping):
        known = set(JobQueue.__dataclass_fields__) - {"kind"}
        bad = sorted(set(spec) - known)
        if bad:
            raise LabError(f"{kind}: unknown option {bad[0]!r} (known: {', '.join(sorted(known))})")
        return JobQueue(kind, **spec)
    raise LabError(f"{kind}: expected True, a lab.JobQueue or a dict of its options, got {type(spec).__name__}")


@dataclass(frozen=True)
class Plan:
    jobs: int
    cores: int  # worker processes per job
    memory_bytes: int  # per job
    walltime_s: int
    job_name: str

    @property
    def workers(self) -> int:
        return self.jobs * self.cores

    def __str__(self) -> str:
        return (f"{self.jobs} job(s) named {self.job_name}, each {self.cores} core(s), "
                f"{_gib(self.memory_bytes)}, walltime {_hms(self.walltime_s)}")


def _hms(s: int) -> str:
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _seconds(text: str) -> int:
    """"HH:MM:SS", "MM:SS", "D-HH:MM:SS" (sbatch(1) --time forms) or minutes."""
    t = str(text).strip()
    try:
        days, _, rest = t.rpartition("-")
        parts = [int(p) for p in rest.split(":")]
        if not 1 <= len(parts) <= 3 or any(p < 0 for p in parts) or (days and not days.isdigit()):
            raise ValueError
        if len(parts) == 1:
            secs = parts[0] * 60  # sbatch: a bare number is minutes
        else:
            while len(parts) < 3:
                parts.insert(0, 0)
            secs = parts[0] * 3600 + parts[1] * 60 + parts[2]
        secs += int(days or 0) * 86400
    except ValueError:
        raise LabError(f"walltime: {text!r} is not HH:MM:SS, D-HH:MM:SS or minutes") from None
    if secs <= 0:
        raise LabError(f"walltime: {text!r} must be more than zero")
    return secs


def _gib(n: int) -> str:
    return f"{n / (1 << 30):g}GiB"


def _bytes(text: str) -> int:
    from dask.utils import parse_bytes

    try:
        n = int(parse_bytes(str(text)))
    except (ValueError, TypeError):
        raise LabError(f"memory: {text!r} is not an amount of memory such as 4GiB or 2000MB") from None
    if n <= 0:
        raise LabError(f"memory: {text!r} must be more than zero")
    return n


def _name(design: str) -> str:
    # Job names show in squeue/qstat and PBS limits them to 15 characters
    # of letters, digits, '_', '-', '.' (PBS Pro qsub -N).
    safe = "".join(c if c.isalnum() or c in "_-." else "_" for c in design) or "sweep"
    return f"hoplab-{safe}"


def estimate(payloads: Iterable[tuple[str, str, int]]) -> tuple[float, float, float]:
    """(total seconds, longest run's seconds, largest run's peak bytes) of
    the runs, from the engine's cost estimate (one call per distinct scenario)."""
    from .. import _core

    cache: dict[str, tuple[float, float]] = {}
    total = longest = peak = 0.0
    for _key, text, _seed in payloads:
        if text not in cache:
            try:
                c = _core.estimate_cost_json(text)
                cache[text] = (c["events"] / EVENTS_PER_S + RUN_OVERHEAD_S, c["memory_bytes"])
            except Exception:  # noqa: BLE001 - a scenario the engine refuses: it fails fast as a run
                cache[text] = (RUN_OVERHEAD_S, 0.0)
        s, m = cache[text]
        total += s
        longest = max(longest, s)
        peak = max(peak, m)
    return total, longest, peak


def plan(q: JobQueue, payloads: list[tuple[str, str, int]], design: str) -> Plan:
    """How many jobs, of what size, for these runs (``q``'s fields where given)."""
    if q.kind not in CLASSES:
        raise LabError(f"cluster: {q.kind!r} is not one of {', '.join(CLASSES)}")
    cores = int(q.cores)
    if cores < 1:
        raise LabError(f"cores: must be at least 1, got {q.cores}")
    total, longest, peak = estimate(payloads)
    if q.jobs is not None:
        jobs = int(q.jobs)
        if jobs < 1:
            raise LabError(f"jobs: must be at least 1, got {q.jobs}")
    else:
        workers = min(math.ceil(total / WORKER_S), len(payloads), MAX_JOBS * cores)
        jobs = max(1, math.ceil(workers / cores))
    if q.memory is not None:
        memory = _bytes(q.memory)
    else:
        # Twice the estimated peak (the estimate is coarse), in 512 MiB steps.
        per_worker = WORKER_BASE_BYTES + 2 * peak
        memory = cores * math.ceil(per_worker / (1 << 29)) * (1 << 29)
    if q.walltime is not None:
        walltime = _seconds(q.walltime)
    else:
        # A worker's share of the work and one more run, doubled; time to
        # start and retire; whole quarter hours, at least half an hour and at
        # most a day (a job that reaches it is replaced, its runs go on elsewhere).
        share = total / (jobs * cores) + longest
        walltime = min(86400, max(1800, math.ceil((2 * share + 2 * RETIRE_MARGIN_S) / 900) * 900))
    return Plan(jobs, cores, memory, walltime, q.job_name or _name(design))


def _why(e: BaseException) -> str:
    """The submit command's own error (dask-jobqueue puts its stderr last), in one line."""
    text = str(e)
    if "stderr:" in text:
        text = text.rsplit("stderr:", 1)[1]
    return " ".join(text.split()) or type(e).__name__


def _import_dask_jobqueue(kind: str) -> Any:
    # dask-jobqueue 0.9.0 sets a SIGINT handler calling sys.exit() when
    # imported (dask/dask-jobqueue#696, fixed by #697 after 0.9.0): Ctrl-C
    # would end hoplab with status 0 and no message. Ours is put back.
    main = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT) if main else None
    try:
        import dask_jobqueue
    except ImportError:
        raise LabError(f"--{kind} needs dask-jobqueue and dask.distributed: pip install 'hoplab[dask]'") from None
    finally:
        if main and before is not None:
            signal.signal(signal.SIGINT, before)
    return dask_jobqueue


def _job_class(base: type, errors: list[str], submitted: list[str]) -> type:
    """``base`` (e.g. SLURMJob) noting the id of each job submitted and why a
    submission failed: dask-jobqueue submits from its event loop, where the
    error would only be logged."""

    class Job(base):  # type: ignore[misc, valid-type]
        async def start(self) -> None:
            try:
                await super().start()
            except Exception as e:
                errors.append(_why(e))
                raise
            finally:
                if self.job_id:
                    submitted.append(self.job_id)

    Job.__name__ = Job.__qualname__ = base.__name__
    return Job


def _cluster(q: JobQueue, p: Plan, errors: list[str], submitted: list[str] | None = None) -> Any:
    import dask

    dask_jobqueue = _import_dask_jobqueue(q.kind)
    cls = getattr(dask_jobqueue, CLASSES[q.kind])
    conf = f"jobqueue.{q.kind}"
    kw: dict[str, Any] = dict(cores=p.cores, processes=p.cores, memory=_gib(p.memory_bytes),
                              walltime=_hms(p.walltime_s), job_name=p.job_name,
                              # Dask's own log lines (a lost worker, a retried task) would break the
                              # progress bar; what matters reaches the store or a hoplab line.
                              silence_logs="critical")
    if q.partition is not None:
        kw["queue"] = q.partition
    if q.account is not None:
        kw["account"] = q.account
    if q.log_dir is not None:
        kw["log_directory"] = str(q.log_dir)
    # No dashboard unless the site's configuration asks for one (a fixed port
    # clashes between two sweeps on one login node).
    sched = dict(dask.config.get(f"{conf}.scheduler-options", {}) or {})
    sched.setdefault("dashboard_address", None)
    kw["scheduler_options"] = sched
    # Retire before the walltime, so the runs in flight move to other workers
    # rather than being cut off (dask-jobqueue docs on walltimes).
    lifetime = max(60, p.walltime_s - RETIRE_MARGIN_S)
    extra = list(dask.config.get(f"{conf}.worker-extra-args", []) or [])
    kw["worker_extra_args"] = extra + ["--lifetime", f"{lifetime}s", "--lifetime-stagger", "60s"]
    kw.update(q.options)
    kw["job_cls"] = _job_class(kw.get("job_cls") or cls.job_cls, errors, [] if submitted is None else submitted)
    try:
        return cls(**kw)
    except (ValueError, TypeError, OSError) as e:
        raise LabError(f"--{q.kind}: cannot start a {CLASSES[q.kind]}: {' '.join(str(e).split())}") from None


class JobQueueBackend(DaskBackend):
    """A `DaskBackend` on workers submitted as batch jobs, kept at the plan's
    size until the sweep ends, then cancelled."""

    name = "jobqueue"

    def __init__(self, q: JobQueue, p: Plan) -> None:
        import dask
        from dask.distributed import Client

        self.kind, self.plan = q.kind, p
        self._config = dask.config.set({"distributed.deploy.lost-worker-timeout": f"{LOST_WORKER_S}s"})
        self._config.__enter__()
        self.cluster = None
        self.errors: list[str] = []  # submissions that failed, in the submit command's words
        self.submitted: list[str] = []  # ids of the jobs submitted
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._sigterm: Any = None
        own: list[Any] = []  # closed in this order: the client, then the cluster (cancels the jobs)
        try:
            self._catch_sigterm()
            self.cluster = _cluster(q, p, self.errors, self.submitted)
            own.append(self.cluster)
            own.insert(0, Client(self.cluster))
            super().__init__(own[0], jobs=p.workers)
            self._own = own
            self._submit()
        except BaseException:
            self._own = own
            self.close()
            raise
        self._watcher = threading.Thread(target=self._watch, name="hoplab-jobqueue", daemon=True)
        self._watcher.start()

    def _catch_sigterm(self) -> None:
        # A SIGTERM (a job's walltime when hoplab itself runs in a job, `kill`)
        # unwinds like Ctrl-C, so the jobs are cancelled on the way out.
        if threading.current_thread() is threading.main_thread():
            def stop(*_: Any) -> None:
                raise KeyboardInterrupt
            self._sigterm = signal.signal(signal.SIGTERM, stop)

    def _submit(self) -> None:
        self.cluster.scale(jobs=self.plan.jobs)
        deadline = time.monotonic() + SUBMIT_S
        while not self.errors and sum(1 for j in self.cluster.workers.values() if j.job_id) < self.plan.jobs:
            if time.monotonic() > deadline:
                raise LabError(f"--{self.kind}: {self.plan.jobs} job(s) not submitted after {SUBMIT_S:g} s")
            time.sleep(0.05)
        if self.errors:
            raise LabError(f"--{self.kind}: submitting a job failed: {self.errors[0]}")

    def _watch(self) -> None:
        # A job that ended is dropped by the cluster once its worker has been
        # gone for lost-worker-timeout; scaling to the same size then submits
        # one in its place (distributed SpecCluster._correct_state), so the
        # sweep keeps its size. A submission that failed is tried again every
        # RESUBMIT_S, and its error shown once.
        # A job that leaves the queue before its worker joins (scancel while
        # it waits, a node failure at its start) is never a lost worker for
        # Dask: the queue is asked every QUEUE_LOOK_S, and such a job is
        # replaced the same way.
        told, last_retry, last_look = 0, time.monotonic(), time.monotonic()
        joined: set[str] = set()
        while not self._stop.wait(WATCH_S):
            if time.monotonic() - last_retry >= RESUBMIT_S:
                last_retry = time.monotonic()
                self.cluster.loop.add_callback(self._forget, frozenset({None}))
            self._note_joined(joined)  # every WATCH_S: the scheduler's list is local
            if time.monotonic() - last_look >= QUEUE_LOOK_S:
                last_look = time.monotonic()
                gone = self._gone_from_queue(joined)
                if gone:
                    print(f"hoplab: warning: --{self.kind}: job(s) {', '.join(gone)} left the queue before their "
                          "worker joined (cancelled while waiting?); submitting as many in their place",
                          file=sys.stderr)
                    self.cluster.loop.add_callback(self._forget, frozenset(gone))
            try:
                self.cluster.scale(jobs=self.plan.jobs)
            except Exception as e:  # noqa: BLE001 - tried again at the next look
                self.errors.append(_why(e))
            for why in sorted(set(self.errors[told:]) - set(self.errors[:told])):
                print(f"hoplab: warning: --{self.kind}: submitting a job in place of one that ended failed "
                      f"(tried again every {RESUBMIT_S:g} s; Ctrl-C stops, the sweep resumes later): {why}",
                      file=sys.stderr)
            told = len(self.errors)

    def _note_joined(self, joined: set[str]) -> None:
        """Add to ``joined`` the jobs whose worker is connected now."""
        # Read from this thread while the cluster's loop updates it: copied first.
        names = [str(w.get("name", "")) for w in list(self.cluster.scheduler_info.get("workers", {}).values())]
        for n, j in list(self.cluster.workers.items()):
            # A job of several processes has workers `name-0`, `name-1`, ...
            if j.job_id and any(w == n or w.startswith(f"{n}-") for w in names):
                joined.add(j.job_id)

    def _gone_from_queue(self, joined: set[str]) -> list[str]:
        """Jobs of this sweep whose worker was never seen (not in ``joined``)
        and that the scheduler no longer lists. SLURM only: `squeue -j` names
        the ones it still holds (queued, running or completing); PBS is not
        asked (a job that left its queue unstarted stays counted there). A
        job whose worker joined is Dask's to replace."""
        if self.kind != "slurm":
            return []
        ids = sorted({j.job_id for j in list(self.cluster.workers.values()) if j.job_id and j.job_id not in joined})
        if not ids:
            return []
        try:
            out = subprocess.run(["squeue", "-h", "-o", "%i", "-j", ",".join(ids)], capture_output=True, text=True,
                                 timeout=CLOSE_S, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return []  # no answer: nothing is taken for gone
        if out.returncode != 0:
            # Every id unknown (all of them left the queue) is an error for squeue.
            return ids if "invalid job id" in out.stderr.lower() else []
        listed = set(out.stdout.split())
        return [i for i in ids if i not in listed]

    def _cancel(self) -> None:
        # The jobs first, with the scheduler's own command (scancel, qdel) and
        # not through Dask's event loop: however Dask's closing goes, no job
        # is left in the queue. Dask's close cancels them again (harmless).
        ids = sorted(set(self.submitted))
        if not ids or self.cluster is None:
            return
        try:
            subprocess.run([*shlex.split(self.cluster.job_cls.cancel_command), *ids], capture_output=True,
                           timeout=CLOSE_S, check=False)
        except (OSError, subprocess.TimeoutExpired):
            pass  # the scheduler's tools are gone: nothing else can cancel them either

    def _forget(self, job_ids: frozenset[str | None]) -> None:
        # In the cluster's event loop: drop these jobs, so that scaling to the
        # plan's size submits as many in their place. A job enters
        # `cluster.workers` only once its submit command has returned, so one
        # without a job id (None) failed.
        for name in [n for n, j in self.cluster.workers.items() if (j.job_id or None) in job_ids]:
            del self.cluster.workers[name]

    def close(self) -> None:
        # Cancelling the jobs must not be cut short by a second Ctrl-C.
        main = threading.current_thread() is threading.main_thread()
        old = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            self._stop.set()
            if self._watcher is not None:
                self._watcher.join()
            self._cancel()
            for obj in getattr(self, "_own", []):
                try:
                    obj.close(timeout=CLOSE_S)
                except Exception:  # noqa: BLE001 - a cluster already gone, or slow to say so
                    pass
        finally:
            self._config.__exit__(None, None, None)
            if main:
                if self._sigterm is not None:
                    signal.signal(signal.SIGTERM, self._sigterm)
                signal.signal(signal.SIGINT, old)


def backend(q: JobQueue, payloads: list[tuple[str, str, int]], design: str, *, announce: bool = True) -> JobQueueBackend:
    p = plan(q, payloads, design)
    if announce:
        print(f"hoplab: submitting {p} to {q.kind.upper()}", file=sys.stderr)
    return JobQueueBackend(q, p)
