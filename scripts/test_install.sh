#!/usr/bin/env bash
# Installation test: build the release wheel (manylinux2014, with zig), install
# it into fresh virtualenvs in a temporary directory outside the checkout, and
# run the installed `hoplab` from yet another directory, so that anything still
# read from the source tree (examples, reference data) fails here. First the
# core alone (no scipy, statsmodels, matplotlib, dask): run, save, the lab, and
# the one-line error of a command that needs an extra; then `hoplab[all]`.
# Prints each venv's site-packages size.
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

# glibc 2.17 (manylinux2014: RHEL/CentOS 7 and everything later) is Rust's own
# minimum for x86_64-unknown-linux-gnu; zig links against that glibc whatever
# the build machine has.
python -m ziglang version >/dev/null 2>&1 || python -m pip install --quiet ziglang
echo "== maturin build --release --zig --compatibility manylinux2014"
(cd "$HOPLAB_ROOT" && maturin build --release --quiet --zig --compatibility manylinux2014 --out "$tmp/wheel") >&2
wheel="$(ls "$tmp"/wheel/hoplab-*.whl)"
echo "   $(basename "$wheel"): $(du -k "$wheel" | cut -f1) kB"
case "$(basename "$wheel")" in
    *manylinux_2_17_x86_64*|*manylinux2014_x86_64*) ;;
    *) echo "the wheel is not tagged manylinux2014 (glibc 2.17)" >&2; exit 1 ;;
esac
# The wheel must carry the package data the commands read.
listing="$(python -m zipfile -l "$wheel")"
for f in hoplab/examples/route_break.toml hoplab/examples/chain.toml hoplab/papers/seed000/data/seed000_tables1-4.csv \
    hoplab/papers/seed001/data/seed001_table1.csv hoplab/papers/seed001/data/seed001_claims.csv \
    hoplab/papers/seed004/data/seed004_table2.csv hoplab/py.typed \
    hoplab/_view/page.html hoplab/_view/anim.js hoplab/_view/anim.css; do
    grep -q " *$f " <<<"$listing" || grep -q "^$f" <<<"$listing" || { echo "wheel lacks $f" >&2; exit 1; }
done
grep -q "dist-info/licenses/LICENSE\|dist-info/license_files/LICENSE\|dist-info/LICENSE" <<<"$listing" ||
    { echo "wheel lacks LICENSE" >&2; exit 1; }
unset VIRTUAL_ENV

site_size() { du -sh "$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" | cut -f1; }

# fresh_venv NAME SPEC: a new venv $tmp/NAME with SPEC pip-installed; sets hl to its hoplab.
fresh_venv() {
    python -m venv "$tmp/$1"
    "$tmp/$1/bin/python" -m pip install --quiet --disable-pip-version-check "$2"
    echo "   site-packages: $(site_size "$tmp/$1")"
    hl="$tmp/$1/bin/hoplab"
}

echo "== fresh venv, pip install the wheel: the core alone"
fresh_venv core "$wheel"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
for m in scipy statsmodels matplotlib dask; do
    if "$tmp/core/bin/python" -c "import $m" 2>/dev/null; then echo "the core installed $m" >&2; exit 1; fi
done

echo "== hoplab --version"
"$hl" --version
echo "== hoplab example chain; hoplab run chain.toml --no-save (20 s); run --out"
"$hl" example chain >chain.toml
"$hl" run chain.toml --no-save --set duration_s=20 | tail -n 3
"$hl" run chain.toml --set duration_s=20 --out run1 | tail -n 1
echo "== hoplab design expand; hoplab lab run; hoplab lab export (the store, core only)"
printf 'name = "clamp"\nbase = "chain.toml"\nreplicas = 1\n[factors]\n"tcp.max_cwnd" = [2, 4]\n' >d.toml
"$hl" design expand d.toml
"$hl" lab run d.toml --store store --jobs 1 --no-progress
"$hl" lab export --store store -o flows.parquet
echo "== without hoplab[plot]: hoplab plot timeseries says which extra, in one line"
set +e
err="$("$hl" plot timeseries run1 -o ts.png 2>&1 >/dev/null)"; code=$?
set -e
echo "   exit $code: $err"
[ "$code" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "pip install 'hoplab\[plot\]'" <<<"$err" ||
    { echo "expected one line naming hoplab[plot], exit 2" >&2; exit 1; }
if [ "$full" = 1 ]; then
    echo "== hoplab reproduce seed000 (full, core)"
    "$hl" reproduce seed000
else
    echo "== hoplab reproduce seed000 --replicas 1 --duration 5 (core)"
    "$hl" reproduce seed000 --replicas 1 --duration 5 2>/dev/null | tail -n 4
fi

echo "== fresh venv, pip install the wheel with [all] (and [test]: pytest, for the README below)"
fresh_venv all "$wheel[all,test]"
echo "== hoplab plot timeseries"
"$hl" plot timeseries run1 -o ts.png
# Issue 23: the README's walk-through works as written from the installed
# wheel. Its blocks run in an empty directory with this venv's hoplab; the
# test file is the checkout's, the package is the wheel's.
echo "== the README's blocks, with the installed wheel (tests/python/test_docs_blocks.py -k README)"
"$tmp/all/bin/python" -c 'import hoplab, sys; p = hoplab.__file__; sys.exit(0 if "site-packages" in p else f"hoplab from {p}, not the wheel")'
"$tmp/all/bin/python" -m pytest -q -p no:cacheprovider "$HOPLAB_ROOT/tests/python/test_docs_blocks.py" -k "README" | tail -n 2
if [ "$full" = 1 ]; then
    echo "== hoplab reproduce seed003 (full)"
    "$hl" reproduce seed003
else
    echo "== hoplab reproduce seed003 --replicas 1"
    "$hl" reproduce seed003 --replicas 1 2>/dev/null | tail -n 4
fi
echo "== installation test passed"
