#!/usr/bin/env bash
# The whole test suite: Rust unit/integration tests, then the Python tests
# against the extension built in .venv (created on first use, see env.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$here/env.sh"
hoplab_env_setup
cd "$HOPLAB_ROOT"

MPLCONFIGDIR="$(mktemp -d "${TMPDIR:-/tmp}/hoplab-mpl.XXXXXX")"
export MPLCONFIGDIR
trap 'rm -rf "$MPLCONFIGDIR"' EXIT

"$here/system-deps.sh"

echo "== cargo test --release --workspace"
# Optimised, but without the wheel's fat LTO and single codegen unit: each
# test binary would be link-time optimised whole, minutes of CI for no
# difference in what the tests check (no test is timed).
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 cargo test --release --workspace

# hoplab view's browser tests drive Debian's Chromium (apt-get install chromium nodejs npm)
# with playwright-core from npm (tests/browser/package-lock.json); without them they skip.
if command -v npm >/dev/null && [ -x /usr/bin/chromium ] && [ ! -d tests/browser/node_modules/playwright-core ]; then
    echo "== npm ci (tests/browser)"
    (cd tests/browser && npm ci --no-audit --no-fund) || echo "npm ci failed: the browser tests will skip" >&2
fi

echo "== pytest tests/python"
python -m pytest -q -rs tests/python
