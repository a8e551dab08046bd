"""`hoplab lab run|status|summary|export`: experiment designs run into a
resumable store (hoplab/lab).

    hoplab lab run DESIGN --store DIR [--jobs N] [--dask ADDRESS|local] [--retry-failed]
    hoplab lab run DESIGN --store DIR --slurm|--pbs [--partition P] [--account A] [--walltime T] [--jobs N] ...
    hoplab lab status --store DIR [DESIGN]
    hoplab lab summary DIR --by FACTOR --metric M [...]   (lab_summary.py)
    hoplab lab export --store DIR [--design NAME] [--table flows] -o FILE.csv|FILE.parquet
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._designs import lab_errors, load_design
from .errors import HoplabError
from .lab_summary import summary_cmd

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["lab_group"]


@click.group("lab")
def lab_group() -> None:
    """Run designs into a result store, see what is done, summarise and export results."""


lab_group.add_command(summary_cmd)


@lab_group.command("run")
@click.argument("design", type=click.Path(path_type=Path))
@click.option("--store", "store", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The store directory (created if missing; reused runs are never run again).")
@click.option("--jobs", type=click.IntRange(1, 4096), default=None,
              help="Worker processes (default: the cores available); 1 runs in this process.")
@click.option("--dask", "dask", default=None, metavar="ADDRESS|local",
              help="Run on Dask: a scheduler address (tcp://host:8786) or `local` for a LocalCluster of --jobs workers.")
@click.option("--slurm", "scheduler", flag_value="slurm", default=None,
              help="Run on SLURM batch jobs (dask-jobqueue SLURMCluster), sized from the cost estimate; "
                   "--jobs is then the number of jobs.")
@click.option("--pbs", "scheduler", flag_value="pbs", help="The same on PBS (PBSCluster; untested).")
@click.option("--partition", default=None, help="--slurm/--pbs: the partition (PBS: queue).")
@click.option("--account", default=None, help="--slurm/--pbs: the account to charge.")
@click.option("--walltime", default=None, metavar="HH:MM:SS",
              help="--slurm/--pbs: per job (default: from the cost estimate, 00:30:00 to 24:00:00).")
@click.option("--memory", default=None, metavar="SIZE", help="--slurm/--pbs: per job, e.g. 4GiB (default: from the cost estimate).")
@click.option("--cores", type=click.IntRange(1, 1024), default=1, show_default=True,
              help="--slurm/--pbs: worker processes (cores) per job.")
@click.option("--job-name", default=None, help="--slurm/--pbs: (default: hoplab-DESIGN_NAME).")
@click.option("--log-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="--slurm/--pbs: where jobs write their output (default: the scheduler's, e.g. "
                   "slurm-ID.out here).")
@click.option("--retry-failed", is_flag=True, help="Run again the runs recorded as failed.")
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: if a terminal).")
def run_cmd(design: Path, store: Path, jobs: int | None, dask: str | None, scheduler: str | None,
            partition: str | None, account: str | None, walltime: str | None, memory: str | None, cores: int,
            job_name: str | None, log_dir: Path | None, retry_failed: bool, progress: bool | None) -> None:
    """Run every run of DESIGN that STORE does not hold yet; a failed run is recorded with its error."""
    from .. import lab

    queue_opts = {"partition": partition, "account": account, "walltime": walltime, "memory": memory,
                  "job_name": job_name, "log_dir": log_dir}
    if scheduler is None:
        given = [k for k, v in queue_opts.items() if v is not None] + (["cores"] if cores != 1 else [])
        if given:
            raise HoplabError(f"--{given[0].replace('_', '-')}: needs --slurm or --pbs")
    elif dask:
        raise HoplabError(f"--dask and --{scheduler}: give one")
    d = load_design(design)
    with lab_errors(design):
        kw = {}
        if scheduler is not None:
            kw[scheduler] = lab.JobQueue(scheduler, jobs=jobs, cores=cores,
                                         **{k: (str(v) if v is not None else None) for k, v in queue_opts.items()})
        summary = lab.run(d, store, jobs=None if scheduler else jobs, backend="dask" if dask else "local",
                          address=dask if dask and dask != "local" else None, progress=progress,
                          retry_failed=retry_failed, **kw)
    click.echo(str(summary))
    if summary.failed:
        click.echo(f"hoplab: {summary.failed} run(s) failed; `hoplab lab status --store {store}` lists them",
                   err=True)


@lab_group.command("status")
@click.option("--store", "store", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.argument("design", type=click.Path(path_type=Path), required=False)
def status_cmd(store: Path, design: Path | None) -> None:
    """Runs done, failed, damaged (a table file lost: `lab run` runs them again) and missing per design
    in STORE (or of DESIGN), and the errors of failed runs."""
    from .. import lab

    d = load_design(design) if design is not None else None
    with lab_errors(design):
        st = lab.status(store, d)
        click.echo(st.to_string(index=False))
        with lab.Store(store, readonly=True) as s:
            failed = s.query("SELECT key, seed, error FROM runs WHERE status = 'failed' ORDER BY key LIMIT 20")
        for r in failed.itertuples(index=False):
            click.echo(f"failed {r.key[:12]} seed {r.seed}: {r.error}")


@lab_group.command("export")
@click.option("--store", "store", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--design", "design", default=None, help="One design's runs (default: all).")
@click.option("--table", "table", default="flows", show_default=True,
              help="flows, runs, nodes, drops, timeseries, overhead, route_events, paths, outages or trace.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="A .csv or .parquet file.")
def export_cmd(store: Path, design: str | None, table: str, output: Path) -> None:
    """Write a store's results as one tidy table (the DataFrame of `hoplab.lab.load`)."""
    from .. import lab

    suffix = output.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise HoplabError(f"{output}: unknown table format {suffix or '(none)'!r} (use .csv or .parquet)")
    with lab_errors():
        try:
            df = lab.load(store, design, table)
        except ValueError as e:
            raise HoplabError(str(e)) from None
    _write_table(df, output, suffix)
    click.echo(f"{len(df)} rows -> {output}", err=True)


def _write_table(df: "pd.DataFrame", output: Path, suffix: str) -> None:
    """Write beside `output` and rename, so an earlier file there stays whole
    until the new one is; a write that fails (a full disk) names `output`
    and leaves no temporary file behind."""
    tmp = output.with_name(f".{output.name}.tmp")
    try:
        if suffix == ".csv":
            df.to_csv(tmp, index=False)
        else:
            df.to_parquet(tmp, index=False)
        tmp.replace(output)
    except OSError as e:
        _remove(tmp)
        # pandas and pyarrow do not always set the error's filename: the destination is what to name;
        # the errno's own words (pyarrow's strerror is a sentence of its own around them).
        reason = os.strerror(e.errno) if e.errno else (e.strerror or str(e))
        raise HoplabError(f"{output}: cannot write: {reason}") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink(missing_ok=True)
