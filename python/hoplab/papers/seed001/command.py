"""`hoplab reproduce seed001`: its options and how an invocation becomes a
`Plan`, rows (`experiment.run_seed001`, and for the optional figures
`window_loss.run` and `grids.run`), a report and summary CSVs."""

from __future__ import annotations

from pathlib import Path

from .._framework import (Outcome, Paper, Progress, duration_option, option, parse_hops, parse_list, reading_option,
                          readings, replicas_option)


def run(*, out: Path | None, jobs: int, progress: Progress, replicas: int | None, duration: float | None,
        hops_text: str | None, schemes_text: str | None, only_text: str | None, reading: str = "ns2",
        quick: bool = False) -> Outcome:
    from . import experiment as r1
    from . import grids, window_loss

    every = r1.EXPERIMENTS + r1.OPTIONAL_EXPERIMENTS
    plan = r1.Plan(
        experiments=r1.EXPERIMENTS if only_text is None else every if only_text.strip() == "all"
        else parse_list(only_text, every, "--only"),
        hops=(r1.QUICK_HOPS if quick else r1.DEFAULT_HOPS) if hops_text is None else parse_hops(hops_text),
        schemes=tuple(r1.SCHEMES) if schemes_text is None else parse_list(schemes_text, tuple(r1.SCHEMES),
                                                                          "--schemes"),
        replicas=replicas or (r1.QUICK_REPLICAS if quick else r1.DEFAULT_REPLICAS), duration=duration,
        readings=readings(reading))
    runs = r1.run_seed001(plan, out=out, jobs=jobs, progress=progress)
    main = bool(set(plan.experiments) & set(r1.EXPERIMENTS))
    files = {"summary.csv": r1.summary_frame(runs).to_csv(index=False).encode()} if main else {}
    csvs = ["runs.csv"] if main else []
    sections = []
    for fig in (window_loss, grids):
        if fig.selected(plan):
            rows = fig.run(plan, out=out, jobs=jobs, progress=progress)
            sections.append(fig.report(rows, plan))
            files[fig.SUMMARY_NAME] = fig.summary(rows).to_csv(index=False).encode()
            csvs.append(fig.CSV_NAME)
    note = None if out is None else (f"per-run rows: {', '.join(str(out / name) for name in csvs)}; "
                                      f"summaries: {', '.join(str(out / name) for name in files)}")
    return Outcome(r1.report_seed001(runs, plan, sections), files, note)


PAPER = Paper(
    name="seed001",
    help="""Seed 001 (Nahm et al.): Table 1 (static vs DSR, 6-hop chain and
    7x7 grid) and the chains of Fig. 9 (1 and 4 flows: TCP static and DSR,
    FeW, ADTCP at alpha 1 and 0.01) and Fig. 12 (2 flows, TCP and TCP-ECN at
    alpha 1 and 0.01), as tables beside the paper's numbers and stated
    gains; on request (--only), Figs. 5 and 8 (W against p beside Eq. 1) and
    Figs. 10 and 11 (grids and 150 mobile nodes).""",
    options=[
        replicas_option("Replicas per configuration (seeds 1..R) [default: 5]."),
        duration_option("Simulated seconds per run [default: 200 (Figs. 9, 11, 12), 120 (Table 1), "
                        "500 (Figs. 5, 8)]."),
        option("--hops", "hops_text", default=None, metavar="LIST",
               help="Chain lengths of Figs. 5, 8, 9 and 12, e.g. 6,14 or 4-22 or 4-22:2 [default: 4-22:2]."),
        option("--schemes", "schemes_text", default=None, metavar="LIST",
               help="Transports to run, of tcp, few, adtcp, adtcp+few, ecn, ecn+few [default: all]."),
        option("--only", "only_text", default=None, metavar="LIST",
               help="Experiments to run, of table1, fig9, fig12, fig5, fig8, fig11 (with Fig. 10's traffic "
                    "patterns), or all [default: table1,fig9,fig12]."),
        option("--quick", is_flag=True, default=False,
               help="A first look: one seed and chain lengths 4,10,16,22, unless --replicas or --hops say "
                    "otherwise."),
        reading_option("Read the paper's simulator as ns-2.35 (compat = \"ns2\": ns-2's MAC, CMU DSR, 1000 B "
                       "segments, an ACK per segment) or as the standards, or both side by side, for the "
                       "figures; Table 1 always shows both."),
    ],
    run=run,
)
