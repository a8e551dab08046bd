#!/usr/bin/env bash
# Installation test: build the wheel, install it into a fresh virtualenv in
# a temporary directory outside the checkout, and run the installed
# `hoplab` from yet another directory, so that anything still read from the
# source tree (examples, reference data) fails here.
#   scripts/test_install.sh           quick: short runs of every command
#   scripts/test_install.sh --full    also the full `reproduce seed000` and `seed003`
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$here/env.sh"
hoplab_env_setup
full=0
[ "${1:-}" = "--full" ] && full=1

tmp="$(mktemp -d "${TMPDIR:-/tmp}/hoplab-install.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
export MPLCONFIGDIR="$tmp/mpl"

echo "== maturin build --release"
(cd "$HOPLAB_ROOT" && maturin build --release --quiet --out "$tmp/wheel") >&2
wheel="$(ls "$tmp"/wheel/hoplab-*.whl)"
echo "   $(basename "$wheel"): $(du -k "$wheel" | cut -f1) kB"
# The wheel must carry the package data the commands read.
listing="$(python -m zipfile -l "$wheel")"
for f in hoplab/examples/route_break.toml hoplab/examples/chain.toml hoplab/papers/seed000/data/seed000_tables1-4.csv \
    hoplab/papers/seed001/data/seed001_table1.csv hoplab/papers/seed001/data/seed001_claims.csv \
    hoplab/papers/seed004/data/seed004_table2.csv hoplab/py.typed; do
    grep -q " *$f " <<<"$listing" || grep -q "^$f" <<<"$listing" || { echo "wheel lacks $f" >&2; exit 1; }
done
grep -q "dist-info/licenses/LICENSE\|dist-info/license_files/LICENSE\|dist-info/LICENSE" <<<"$listing" ||
    { echo "wheel lacks LICENSE" >&2; exit 1; }

echo "== fresh venv, pip install the wheel"
python -m venv "$tmp/venv"
unset VIRTUAL_ENV
"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel"
hl="$tmp/venv/bin/hoplab"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"

echo "== hoplab --version"
"$hl" --version
echo "== hoplab example chain; hoplab run chain.toml --no-save (20 s)"
"$hl" example chain >chain.toml
"$hl" run chain.toml --no-save --set duration_s=20 | tail -n 3
if [ "$full" = 1 ]; then
    echo "== hoplab reproduce seed000 (full)"
    "$hl" reproduce seed000
    echo "== hoplab reproduce seed003 (full)"
    "$hl" reproduce seed003
else
    echo "== hoplab reproduce seed000 --replicas 1 --duration 5"
    "$hl" reproduce seed000 --replicas 1 --duration 5 2>/dev/null | tail -n 4
    echo "== hoplab reproduce seed003 --replicas 1"
    "$hl" reproduce seed003 --replicas 1 2>/dev/null | tail -n 4
fi
echo "== installation test passed"
