"""The training run of the profile-guided build (scripts/pgo.sh).

Runs every packaged example scenario (the kinds of run a user starts from:
static chains and grids, AODV, DSR, OLSR and DSDV, mobility, CBR, FTP and web
traffic), each cut to at most CUT_S simulated seconds, and seed 001's
150-node random-waypoint scenario with AODV and with DSR cut to 40 s. The
benchmark's exact scenarios (the peer matrix) are not in the set, so that
the profile is not fitted to the figures it is judged by.

    python -m hoplab._bench.train
"""

from __future__ import annotations

import sys
import tomllib

CUT_S = 20.0


def scenarios() -> list[dict]:
    from .._resources import example_names, example_text
    from .suite import mobile

    out = []
    for name in example_names():
        sc = tomllib.loads(example_text(name))
        sc["duration_s"] = min(float(sc.get("duration_s", CUT_S)), CUT_S)
        flows = [f for f in sc.get("flows", []) if float(f.get("start_s", 0.0)) < sc["duration_s"]]
        if not flows:
            continue
        sc["flows"] = flows
        out.append(sc)
    for protocol in ("aodv", "dsr"):
        sc = mobile(150, protocol)
        sc["duration_s"] = 40.0
        out.append(sc)
    return out


def main() -> int:
    from .._run import run

    for sc in scenarios():
        try:
            run(sc)
        except Exception as e:  # an example that a cut makes invalid trains nothing
            print(f"train: skipped {sc.get('name')}: {e}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
