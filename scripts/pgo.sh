#!/usr/bin/env bash
# Profile-guided build of the Rust extension (issue 21 item 3; measured in
# docs/BENCHMARKS.md): an instrumented build (rustc -Cprofile-generate), a
# training run (python -m hoplab._bench.train: the packaged examples, cut
# short), llvm-profdata merge, then the release build with -Cprofile-use.
# Results do not change (the same code, laid out and inlined by measured
# use): event hashes are equal to the plain build's.
#
# Needs llvm-profdata of the LLVM that rustc uses: `rustup component add
# llvm-tools` (another LLVM's profiles are refused). Exit 3 when it is not
# there, so that scripts/env.sh falls back to the plain build.
#
#   scripts/pgo.sh                  # into the active virtualenv (maturin develop)
#   scripts/pgo.sh wheel OUTDIR     # also a wheel (as scripts/test_install.sh builds it)
#
# Run inside the virtualenv that scripts/env.sh sets up (maturin on PATH).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
log() { printf 'hoplab-pgo: %s\n' "$*" >&2; }

host="$(rustc -vV | sed -n 's/^host: //p')"
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    log "no llvm-profdata for this rustc (rustup component add llvm-tools)"
    exit 3
fi
# Separate target directories: other RUSTFLAGS would otherwise invalidate
# the plain build that `cargo test` shares.
dir="$root/target/pgo"
rm -rf "$dir/raw"
mkdir -p "$dir/raw"
manifest=(--manifest-path crates/hoplab-py/Cargo.toml)

log "1/4 instrumented build"
CARGO_TARGET_DIR="$dir/gen" RUSTFLAGS="-Cprofile-generate=$dir/raw" \
    maturin develop --release --quiet "${manifest[@]}" >&2
log "2/4 training run (the packaged examples)"
python -m hoplab._bench.train
log "3/4 merging the profile"
"$profdata" merge -o "$dir/merged.profdata" "$dir/raw"
log "4/4 optimised build"
CARGO_TARGET_DIR="$dir/use" RUSTFLAGS="-Cprofile-use=$dir/merged.profdata" \
    maturin develop --release --quiet "${manifest[@]}" >&2
if [ "${1:-}" = wheel ]; then
    CARGO_TARGET_DIR="$dir/use" RUSTFLAGS="-Cprofile-use=$dir/merged.profdata" \
        maturin build --release --quiet --zig --compatibility manylinux2014 --out "${2:?wheel OUTDIR}" "${manifest[@]}" >&2
fi
