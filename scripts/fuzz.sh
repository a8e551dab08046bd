#!/usr/bin/env bash
# The long fuzz run: every Hypothesis test in tests/python/test_fuzz_*.py
# (scenarios and --set overrides, the ns-2 readers, designs, stores; the
# emulator's [emulation] tables, a saved run's emu.json and ingress log, and
# signals at random moments of a live `hoplab emu`, which needs root and is
# skipped without; the capture reader of `hoplab analyze`: container, link
# type, timestamps, snap and original lengths drawn at random, records cut and
# overwritten; and anim.csv as `hoplab view` reads it) in turn, each for an equal share of the time
# limit, at low priority (HOPLAB_FUZZ_NICE, default 19; use 0 on a machine
# that is busy with other work, or the run starves and its 60 s stall
# watchdog fires).
#   scripts/fuzz.sh 30m                 # all fuzz tests, 30 minutes in all
#   scripts/fuzz.sh 10m test_fuzz_ns2   # only the tests whose id contains this
#   scripts/fuzz.sh 4m test_fuzz_captures; scripts/fuzz.sh 4m test_fuzz_anim
#
# Under HOPLAB_FUZZ=long a test draws examples without end, so one pytest
# call per test, each stopped at its share. At the share the run gets SIGINT.
# One SIGINT is not always enough: Hypothesis measures garbage-collection
# time with a gc callback, and a KeyboardInterrupt raised inside it is
# "ignored" by Python (an unraisable exception), so the run would go on. We
# repeat SIGINT every 15 s, then SIGKILL after a minute. A failure stops the
# whole run at once and is reported with its falsifying example.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
limit="${1:-30m}"
only="${2:-}"
cd "$here"
log="$(mktemp "${TMPDIR:-/tmp}/hoplab-fuzz.XXXXXX")"
trap 'rm -f "$log"' EXIT

secs="$(python3 -c 'import sys; v=sys.argv[1]; m={"s":1,"m":60,"h":3600}; print(int(float(v[:-1])*m[v[-1]]) if v[-1] in m else int(v))' "$limit")"
mapfile -t tests < <(.venv/bin/python -m pytest -q --collect-only -p no:cacheprovider tests/python/test_fuzz_*.py 2>/dev/null |
    grep '::' | grep -F -- "$only")
if [ "${#tests[@]}" -eq 0 ]; then
    echo "fuzz: no fuzz test matches '${only}'" >&2
    exit 2
fi
share=$((secs / ${#tests[@]}))
[ "$share" -ge 5 ] || share=5
echo "fuzz: ${#tests[@]} tests, ${share} s each"

# Run one test id for at most $share seconds; 0 when it found nothing.
fuzz_one() {
    local id="$1" pid end stopped=0 rc
    : >"$log"
    # A shell without job control (a script, nohup, setsid) starts background
    # commands with SIGINT ignored, and Python then never sees Ctrl-C: reset
    # it to the default before exec.
    HOPLAB_FUZZ=long nice -n "${HOPLAB_FUZZ_NICE:-19}" python3 -c \
        'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
        .venv/bin/python -m pytest -q -x "$id" -p no:cacheprovider >"$log" 2>&1 &
    pid=$!
    end=$((SECONDS + share))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do sleep 1; done
    if kill -0 "$pid" 2>/dev/null; then
        stopped=1
        for _ in 1 2 3 4; do
            kill -INT "$pid" 2>/dev/null || break
            for _ in $(seq 15); do kill -0 "$pid" 2>/dev/null || break 2; sleep 1; done
        done
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid"
    rc=$?
    if grep -q -E "Falsifying example|^FAILED|[0-9]+ failed" "$log"; then
        cat "$log"
        echo "fuzz: $id found a failure (above)"
        return 1
    fi
    if [ "$stopped" -eq 1 ] || [ "$rc" -eq 0 ] || [ "$rc" -eq 5 ]; then
        echo "fuzz: $id: nothing found in ${share} s"
        return 0
    fi
    cat "$log"
    echo "fuzz: $id: pytest exited $rc"
    return "$rc"
}

for id in "${tests[@]}"; do
    fuzz_one "$id" || exit 1
done
echo "fuzz: nothing found in $limit"
