"""`lab run --slurm` on a real one-node SLURM cluster (issue 26): the
cluster is started by scripts/slurm-up.sh once per session and stopped by
slurm-down.sh at the end. The sweep's store equals `--jobs 1`'s, no job is
left in the queue, and an interrupted or scancelled sweep loses no recorded
run and resumes to the same digest. Tests that need the cluster skip with one
line where its daemons cannot start (not root, no apt-get, no network), or
fail there if HOPLAB_REQUIRE_SLURM=1; the sizing and job-script tests run
everywhere dask-jobqueue is installed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hoplab import lab

ROOT = Path(__file__).resolve().parents[2]
BASE = {**lab.Design.from_dict({"base": "example:chain"}).base, "duration_s": 20.0}
DESIGN = {
    "name": "slurm",
    "base": BASE,
    "replicas": 3,
    "factors": {
        "tcp.max_cwnd": [2, 0],
        "hops": {str(h): {"topology.nodes": h + 1, "flows[0].dst": h} for h in (1, 2, 3, 4)},
    },
}  # 24 runs of 0.1-0.5 s each
RUNS = 24
JOB_NAME = "hoplab-slurm"  # the default: hoplab-<design name>


def _free_port_pair() -> int:
    """A port p with p and p + 1 free (slurmctld and slurmd)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("", 0))
            p = s.getsockname()[1]
        if p >= 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("", p + 1))
            except OSError:
                continue
        return p
    raise RuntimeError("no two free consecutive ports")


def _cannot(why: str) -> None:
    """Skip, or fail where HOPLAB_REQUIRE_SLURM=1 says the cluster must run (a CI machine)."""
    if os.environ.get("HOPLAB_REQUIRE_SLURM") == "1":
        pytest.fail(f"HOPLAB_REQUIRE_SLURM=1 but {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def slurm(tmp_path_factory):
    """SLURM_CONF of a one-node cluster up for the session (or a skip)."""
    try:
        import dask_jobqueue  # noqa: F401
    except ImportError:
        _cannot("dask-jobqueue not installed (pip install 'hoplab[dask]')")
    if os.geteuid() != 0:
        _cannot("SLURM test cluster: needs root to start slurmd (scripts/slurm-up.sh)")
    # The cluster of a test session that was killed before its teardown.
    for old in Path("/tmp").glob("hoplab-slurm-test.*"):
        pid = old.suffix[1:]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            subprocess.run(["bash", str(ROOT / "scripts/slurm-down.sh")], capture_output=True, timeout=120,
                           env=dict(os.environ, HOPLAB_SLURM_DIR=str(old)))
    # A short path: munged's socket lives in it (sun_path holds 108 bytes).
    d = Path(f"/tmp/hoplab-slurm-test.{os.getpid()}")
    env = dict(os.environ, HOPLAB_SLURM_DIR=str(d), HOPLAB_SLURM_PORT=str(_free_port_pair()))
    up = subprocess.run(["bash", str(ROOT / "scripts/slurm-up.sh")], capture_output=True, text=True, env=env,
                        timeout=900)
    try:
        if up.returncode != 0:
            why = (up.stderr.strip().splitlines() or ["no message"])[-1]
            _cannot(f"SLURM test cluster could not start: {why}")
        conf = up.stdout.strip().splitlines()[-1].removeprefix("export SLURM_CONF=")
        old = os.environ.get("SLURM_CONF")
        os.environ["SLURM_CONF"] = conf
        try:
            yield conf
        finally:
            if old is None:
                os.environ.pop("SLURM_CONF", None)
            else:
                os.environ["SLURM_CONF"] = old
    finally:
        down = subprocess.run(["bash", str(ROOT / "scripts/slurm-down.sh")], capture_output=True, text=True,
                              env=env, timeout=120)
        assert down.returncode == 0, down.stderr
        assert not d.exists()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    lab.run(DESIGN, d / "store", jobs=1, progress=False)
    return lab.Store(d / "store").digest()


def _queue() -> list[str]:
    """The cluster's jobs (id, name, state), waiting out jobs still completing (CG)."""
    deadline = time.monotonic() + 30
    while True:
        out = subprocess.run(["squeue", "-h", "-o", "%i %j %t"], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        jobs = out.stdout.split("\n")
        jobs = [j for j in jobs if j.strip()]
        if not any(j.endswith(" CG") for j in jobs) or time.monotonic() > deadline:
            return jobs
        time.sleep(0.2)


def _design(tmp_path: Path) -> Path:
    p = tmp_path / "design.json"
    p.write_text(json.dumps(DESIGN))
    return p


def _start(tmp_path: Path, store: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
    return subprocess.Popen([sys.executable, "-m", "hoplab", "lab", "run", str(_design(tmp_path)), "--store",
                             str(store), "--slurm", "--no-progress", "--log-dir", str(tmp_path / "logs"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)


def _recorded(store: Path) -> dict[str, str]:
    """The store's runs (key: status), read as another process writes it."""
    for _ in range(100):
        if not (store / "store.sqlite").exists():
            return {}
        try:
            with sqlite3.connect(store / "store.sqlite", timeout=30) as db:
                return dict(db.execute("SELECT key, status FROM runs").fetchall())
        except sqlite3.OperationalError:  # no table yet: the writer is creating it
            time.sleep(0.05)
    raise AssertionError(f"{store}: the runs table cannot be read")


def _finish(p: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """stdout and stderr of a sweep that ends within ``timeout``. One that does not is
    stopped as Ctrl-C stops it (its jobs cancelled), so that it holds no node for the
    tests after it, and the failure shows what it printed."""
    try:
        return p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        raise AssertionError(f"the sweep did not end in {timeout:g} s; stdout:\n{out}\nstderr:\n{err}") from None


def _wait_for_runs(store: Path, n: int, p: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while len(_recorded(store)) < n and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_slurm_sweep_equals_jobs_1(slurm, reference, tmp_path):
    store = tmp_path / "store"
    p = _start(tmp_path, store, "--jobs", "2")
    out, err = _finish(p, 300)
    assert p.returncode == 0, err
    assert "submitting 2 job(s) named hoplab-slurm" in err
    assert f"{RUNS} run now (0 failed)" in out
    assert lab.Store(store).digest() == reference
    assert _queue() == []
    # dask-jobqueue names the jobs' output files after the job name.
    assert len(list((tmp_path / "logs").glob(f"{JOB_NAME}-*.out"))) == 2
    # Nothing left to do: nothing submitted.
    again = _start(tmp_path, store)
    out, err = _finish(again, 120)
    assert again.returncode == 0, err
    assert "submitting" not in err and f"{RUNS} already in" in out


def test_a_refused_submission_is_one_line(slurm, tmp_path):
    p = _start(tmp_path, tmp_path / "store", "--partition", "nope")
    out, err = _finish(p, 120)
    assert p.returncode == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("hoplab: error: --slurm: submitting a job failed: sbatch: error:"), err
    assert "nope" in last or "partition" in last.lower(), err
    assert _queue() == []


def test_an_interrupted_sweep_leaves_no_job_and_resumes(slurm, reference, tmp_path):
    store = tmp_path / "store"
    p = _start(tmp_path, store, "--jobs", "2")
    _wait_for_runs(store, 3, p)
    before = _recorded(store)
    p.send_signal(signal.SIGINT)
    out, err = _finish(p, 120)
    if p.returncode != 0:  # 0: it had just finished
        assert p.returncode == 130, err
        assert err.strip().splitlines()[-1] == "hoplab: interrupted", err
    assert _queue() == [], err
    after = _recorded(store)
    assert before.items() <= after.items(), err  # no recorded run lost
    with sqlite3.connect(store / "store.sqlite") as db:
        assert db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0
    # Resumed from Python, in this process: jobs= is the number of batch jobs.
    summary = lab.run(DESIGN, store, jobs=2, slurm={"log_dir": str(tmp_path / "logs")}, progress=False)
    assert (summary.reused, summary.ran, summary.failed) == (len(after), RUNS - len(after), 0), (str(summary), err)
    assert lab.Store(store).digest() == reference
    assert _queue() == []


@pytest.mark.parametrize("allowed_failures", [None, "0"])
def test_scancelled_jobs_are_replaced_and_lose_no_run(slurm, reference, tmp_path, allowed_failures):
    # Dask retries a task whose worker died up to allowed-failures (3) times;
    # with 0 the run in flight on a killed worker is recorded as failed.
    env = {} if allowed_failures is None else {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": allowed_failures}
    store = tmp_path / "store"
    p = _start(tmp_path, store, "--jobs", "2", env=env)
    _wait_for_runs(store, 3, p)
    before = _recorded(store)
    jobs = [j.split()[0] for j in _queue() if j.split()[1] == JOB_NAME]
    assert len(jobs) == 2
    # Every job of the sweep, as a scheduler would end them (SIGTERM, then SIGKILL).
    subprocess.run(["scancel", *jobs], check=True, timeout=30)
    # What was recorded once the jobs were told to end: runs finished between
    # the first count and the cancel need no replacement (seen in CI: the two
    # jobs finished the sweep in that gap, and no replacement was submitted).
    at_cancel = _recorded(store)
    out, err = _finish(p, 300)
    assert p.returncode == 0, err
    after = _recorded(store)
    assert before.items() <= after.items()
    assert len(after) == RUNS
    # Workers lost mid-run: Dask gives their runs to the jobs submitted in
    # their place; a run whose workers died too often is one failed line each.
    failed = [k for k, s in after.items() if s == "failed"]
    if len(at_cancel) < RUNS - 4:  # runs were left to do: each job held some (a window of 4 in flight)
        assert len(list((tmp_path / "logs").glob(f"{JOB_NAME}-*.out"))) > 2  # replacements were submitted
        if allowed_failures == "0":
            assert failed
    assert _queue() == []
    if failed:
        status = subprocess.run([sys.executable, "-m", "hoplab", "lab", "status", "--store", str(store)],
                                capture_output=True, text=True, timeout=60)
        # One line each, with Dask's error (KilledWorker, or what the scheduler
        # met when the worker vanished mid-task).
        lines = [line for line in status.stdout.splitlines() if line.startswith("failed ")]
        assert sorted(line.split()[1] for line in lines) == sorted(k[:12] for k in failed), status.stdout
        p = _start(tmp_path, store, "--retry-failed")
        out, err = _finish(p, 300)
        assert p.returncode == 0, err
    assert lab.Store(store).digest() == reference
    assert _queue() == []


def _scontrol_node(state: str) -> None:
    args = ["scontrol", "update", f"NodeName={socket.gethostname().split('.')[0]}", f"State={state}"]
    subprocess.run(args + (["Reason=hoplab test"] if state == "DRAIN" else []), check=True, timeout=30)


def test_jobs_cancelled_while_queued_are_replaced(slurm, reference, tmp_path):
    # A job scancelled before it starts never has a worker, so Dask never
    # hears that it is gone; the sweep asks the queue and submits another.
    # The node drained keeps the jobs waiting.
    _scontrol_node("DRAIN")
    p = None
    try:
        store = tmp_path / "store"
        p = _start(tmp_path, store, "--jobs", "2")
        deadline = time.monotonic() + 120
        while len(first := [j.split()[0] for j in _queue() if j.split()[1:] == [JOB_NAME, "PD"]]) < 2:
            assert p.poll() is None and time.monotonic() < deadline, p.stderr.read() if p.poll() is not None else ""
            time.sleep(0.2)
        subprocess.run(["scancel", *first], check=True, timeout=30)
        # Two others in their place, still waiting on the drained node.
        while len(others := [j.split()[0] for j in _queue() if j.split()[1] == JOB_NAME and j.split()[0] not in first]) < 2:
            assert p.poll() is None and time.monotonic() < deadline + 60, "no job submitted in place of the cancelled"
            time.sleep(0.5)
        assert _recorded(store) == {}
    except BaseException:
        if p is not None and p.poll() is None:  # Ctrl-C's path: the sweep cancels its jobs
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=120)
        raise
    finally:
        _scontrol_node("RESUME")
    out, err = _finish(p, 300)
    assert p.returncode == 0, err
    assert f"job(s) {', '.join(sorted(first))} left the queue before their worker joined" in err, err
    assert f"{RUNS} run now (0 failed)" in out
    assert lab.Store(store).digest() == reference
    assert _queue() == []


# --- without a cluster: sizing, options, job scripts -----------------------------


def _payloads():
    return [r.payload() for r in lab.Design.from_dict(DESIGN).expand()]


def test_small_work_is_one_short_job():
    from hoplab.lab import jobqueue

    p = jobqueue.plan(lab.JobQueue(), _payloads(), "slurm")
    assert (p.jobs, p.cores, p.walltime_s, p.job_name) == (1, 1, 1800, "hoplab-slurm")
    # 1 GiB for the worker and twice the estimated peak, in 512 MiB steps.
    assert p.memory_bytes == 3 << 29


def test_much_work_is_many_jobs_up_to_the_cap(monkeypatch):
    from hoplab.lab import jobqueue

    # 1,000 runs of 1e9 estimated events (1,000 s each at 1e6 events/s).
    monkeypatch.setattr(jobqueue, "estimate", lambda ps: (1000 * 1001.0, 1001.0, 2e9))
    many = [("k", "{}", 1)] * 1000
    p = jobqueue.plan(lab.JobQueue(), many, "x")
    assert p.jobs == jobqueue.MAX_JOBS
    # A worker's share (1000 * 1001 / 32 s) and one more run, doubled, plus
    # ten minutes to start and retire, in quarter hours: 18:15:00.
    assert p.walltime_s == 65700
    # ... capped at a day.
    assert jobqueue.plan(lab.JobQueue(jobs=2), many, "x").walltime_s == 86400
    assert p.memory_bytes == (1 << 30) + 4 * (1 << 30)  # 1 GiB + 2 x 2e9 B, rounded up to 512 MiB: 5 GiB
    # Given options win; --cores packs workers into a job.
    p = jobqueue.plan(lab.JobQueue(jobs=3, cores=4, walltime="1-02:00:00", memory="6GB"), many, "x")
    assert (p.jobs, p.workers, p.walltime_s, p.memory_bytes) == (3, 12, 93600, 6_000_000_000)
    p = jobqueue.plan(lab.JobQueue(cores=4), many, "x")
    assert (p.jobs, p.workers) == (jobqueue.MAX_JOBS, 4 * jobqueue.MAX_JOBS)


@pytest.mark.parametrize("kind, lines", [
    ("slurm", ["#SBATCH -J hoplab-slurm", "#SBATCH -p short", "#SBATCH -A proj7", "#SBATCH -t 01:30:00",
               "#SBATCH --cpus-per-task=2", "--nworkers 2", "--nthreads 1", "--lifetime 5100s"]),
    ("pbs", ["#PBS -N hoplab-slurm", "#PBS -q short", "#PBS -A proj7", "#PBS -l walltime=01:30:00",
             "--nworkers 2", "--lifetime 5100s"]),
])
def test_the_job_script_carries_the_options(kind, lines):
    pytest.importorskip("dask_jobqueue")
    from hoplab.lab import jobqueue

    q = lab.JobQueue(kind, partition="short", account="proj7", walltime="01:30:00", cores=2)
    before = signal.getsignal(signal.SIGINT)
    cluster = jobqueue._cluster(q, jobqueue.plan(q, _payloads(), "slurm"), [])
    try:
        assert signal.getsignal(signal.SIGINT) is before  # dask-jobqueue 0.9's import replaces it
        script = cluster.job_script()
    finally:
        cluster.close()
    for line in lines:
        assert line in script, script


@pytest.mark.parametrize("args, message", [
    (["--partition", "p"], "hoplab: error: --partition: needs --slurm or --pbs"),
    (["--cores", "2"], "hoplab: error: --cores: needs --slurm or --pbs"),
    (["--slurm", "--dask", "local"], "hoplab: error: --dask and --slurm: give one"),
    (["--slurm", "--walltime", "soon"], "hoplab: error: walltime: 'soon' is not HH:MM:SS, D-HH:MM:SS or minutes"),
    (["--pbs", "--memory", "lots"], "hoplab: error: memory: 'lots' is not an amount of memory such as 4GiB or 2000MB"),
])
def test_bad_options_are_one_line(tmp_path, args, message):
    p = subprocess.run([sys.executable, "-m", "hoplab", "lab", "run", str(_design(tmp_path)), "--store",
                        str(tmp_path / "s"), *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.strip() == message


def test_python_options_are_checked():
    from hoplab.lab.execute import LabError
    from hoplab.lab.jobqueue import as_jobqueue

    assert as_jobqueue("pbs", {"partition": "q"}) == lab.JobQueue("pbs", partition="q")
    with pytest.raises(LabError, match="slurm: unknown option 'queue'"):
        as_jobqueue("slurm", {"queue": "q"})
    with pytest.raises(LabError, match="slurm and pbs: give one"):
        lab.run(DESIGN, "unused", slurm=True, pbs=True)


def test_the_scripts_are_shell_clean():
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    for s in ("slurm-up.sh", "slurm-down.sh"):
        assert subprocess.run(["bash", "-n", str(ROOT / "scripts" / s)]).returncode == 0
