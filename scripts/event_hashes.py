"""Event hashes of a fixed set of default-setting runs: the examples and one
run of each protocol and TCP variant. A change that is meant to leave the
model alone (a refactor, a new option that is off by default, a new compat
profile) must leave every line unchanged.

    python scripts/event_hashes.py              # print
    python scripts/event_hashes.py --check F    # compare with F, exit 1 on a change
    python scripts/event_hashes.py --write F
"""

from __future__ import annotations

import sys
from pathlib import Path

import hoplab
from hoplab import scenario as S
from hoplab.result import event_hash_text

ROOT = Path(__file__).resolve().parent.parent


def cases():
    for p in sorted((ROOT / "examples").glob("*.toml")):
        yield p.stem, p
    base = dict(duration=30.0, timeseries=False)
    for proto in ("aodv", "dsr", "olsr", "dsdv"):
        sc = S.chain(4, **base)
        sc["routing"] = {"protocol": proto}
        yield f"chain4-{proto}", sc
    for variant in ("tahoe", "reno", "sack", "vegas"):
        yield f"chain4-{variant}", S.chain(4, tcp={"variant": variant}, **base)
    yield "chain4-few", S.chain(4, tcp={"few_alpha": 0.5}, **base)
    yield "chain4-ecn-lred", dict(S.chain(4, tcp={"ecn": True}, **base), lred={"enabled": True})
    yield "chain4-rts100", S.chain(4, mac={"rts_threshold_bytes": 100}, **base)
    sc = S.chain(4, tcp={"elfn": True}, **base)
    sc["routing"] = {"protocol": "aodv"}
    yield "chain4-aodv-elfn", sc
    yield "grid5-static", S.grid(5, 5, **base)


def lines() -> list[str]:
    out = []
    for name, sc in cases():
        for seed in (1, 2):
            r = hoplab.run(sc, seed=seed)
            out.append(f"{name}\t{seed}\t{event_hash_text(r.info['event_hash'])}\t{int(r.info['events'])}")
    return out


def main(argv: list[str]) -> int:
    got = lines()
    if len(argv) == 2 and argv[0] == "--write":
        Path(argv[1]).write_text("\n".join(got) + "\n")
    elif len(argv) == 2 and argv[0] == "--check":
        want = Path(argv[1]).read_text().splitlines()
        bad = [f"{w}  ->  {g}" for w, g in zip(want, got) if w != g]
        if len(want) != len(got):
            bad.append(f"{len(want)} lines recorded, {len(got)} now")
        print("\n".join(bad) if bad else f"all {len(got)} event hashes unchanged")
        return 1 if bad else 0
    else:
        print("\n".join(got))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
