#!/usr/bin/env python3
"""Whole-process start-up times of hoplab commands (docs/BENCHMARKS.md, "Start-up").

    scripts/startup_times.py [--repeat N] [--launcher wrapper|module|script ...] [--markdown]

Each command runs N times, interleaved with the others so that a change in
the machine's load hits them all alike; the table gives the best and the
median wall time in ms. Launchers: `./hoplab` (the bash wrapper, which
checks the venv and the build first), `.venv/bin/python -m hoplab` and the
console script `.venv/bin/hoplab`. HOPLAB_ROOT (default: this checkout)
chooses the tree whose `./hoplab` runs; PYTHONPATH is passed through, so an
older tree can be timed with the same venv.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(os.environ.get("HOPLAB_ROOT", HERE))
VENV = Path(os.environ.get("HOPLAB_VENV", HERE / ".venv"))


def commands(tmp: Path) -> list[tuple[str, list[str]]]:
    chain = str(HERE / "examples" / "chain.toml")
    design = str(HERE / "examples" / "designs" / "window_vs_hops.toml")
    saved = tmp / "saved"
    return [
        ("--help", ["--help"]),
        ("--version", ["--version"]),
        ("validate chain", ["validate", chain]),
        ("config", ["config"]),
        ("example", ["example"]),
        ("design expand", ["design", "expand", design]),
        ("run chain (120 s) --no-save", ["run", chain, "--no-save"]),
        ("run chain (120 s), saved", ["run", chain, "--out", str(saved)]),
        ("plot timeseries", ["plot", "timeseries", str(saved), "-o", str(tmp / "ts.png")]),
    ]


def launcher(name: str) -> list[str]:
    return {"wrapper": [str(ROOT / "hoplab")], "module": [str(VENV / "bin" / "python"), "-m", "hoplab"],
            "script": [str(VENV / "bin" / "hoplab")]}[name]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--launcher", action="append", choices=["wrapper", "module", "script"])
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    launchers = a.launcher or ["wrapper", "module", "script"]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        env = {**os.environ, "HOPLAB_VENV": str(VENV), "MPLCONFIGDIR": str(tmp / "mpl")}
        cmds = commands(tmp)
        times: dict[tuple[str, str], list[float]] = {(l, n): [] for l in launchers for n, _ in cmds}
        for _ in range(a.repeat):
            for l in launchers:
                for n, args in cmds:  # in order: "plot timeseries" reads what "saved" wrote
                    t0 = time.perf_counter()
                    r = subprocess.run(launcher(l) + args, capture_output=True, env=env, cwd=tmp)
                    times[(l, n)].append(time.perf_counter() - t0)
                    if r.returncode != 0:
                        raise SystemExit(f"{l} {n}: exit {r.returncode}\n{r.stderr.decode()}")
    sep = " | " if a.markdown else "  "
    head = ["command"] + [f"{l} best / median (ms)" for l in launchers]
    print(("| " if a.markdown else "") + sep.join(head) + (" |" if a.markdown else ""))
    if a.markdown:
        print("|" + "---|" * len(head))
    for n, _ in cmds:
        cells = [n] + [f"{1e3 * min(times[(l, n)]):.0f} / {1e3 * statistics.median(times[(l, n)]):.0f}"
                       for l in launchers]
        print(("| " if a.markdown else "") + sep.join(cells) + (" |" if a.markdown else ""))


if __name__ == "__main__":
    main()
