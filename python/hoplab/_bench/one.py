"""Child process of `hoplab bench`: run one named scenario, print one JSON line.

    python -m hoplab._bench.one NAME   (a key of hoplab._bench.suite.SCENARIOS)
"""

from __future__ import annotations

import json
import resource
import sys
import time


def _rss_mb() -> float:
    # Linux reports ru_maxrss in KiB (macOS in bytes).
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / (1024 * 1024) if sys.platform == "darwin" else r / 1024


def main(argv: list[str]) -> int:
    import pandas  # noqa: F401  (see below)

    from .. import _core
    from .suite import build

    # `import hoplab` no longer imports pandas (issue 19); importing it here
    # keeps "peak RSS" what docs/BENCHMARKS.md has always recorded: the
    # interpreter with pandas and numpy loaded, plus the engine.

    scenario = build(argv[0])
    text = json.dumps(scenario)
    baseline = _rss_mb()
    t0 = time.perf_counter()
    out = _core.run_json(text, None)
    wall = time.perf_counter() - t0
    print(json.dumps({
        "scenario": argv[0],
        "nodes": out["info"]["nodes"],
        "flows": len(scenario["flows"]),
        "events": out["info"]["events"],
        "wall_s": wall,
        "engine_wall_s": out["info"]["wall_s"],
        "peak_rss_mb": _rss_mb(),
        "baseline_rss_mb": baseline,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
