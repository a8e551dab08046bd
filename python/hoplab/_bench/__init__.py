"""Benchmark tooling behind `hoplab bench` (private: not part of hoplab's API).

    suite    the fixed scenarios, each timed in a fresh process (`hoplab bench`)
    one      that child process: `python -m hoplab._bench.one NAME`
    memory   peak memory of long runs (`hoplab bench --memory`)
    lab      the lab's overhead per run (`hoplab bench --lab`)
"""
