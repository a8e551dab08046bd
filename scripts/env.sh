# shellcheck shell=bash
# Shared setup for ./hoplab and scripts/test.sh: a project-local virtualenv
# (.venv) with maturin, every dependency (the core's and all extras': development
# runs the whole test suite), pytest, hypothesis and dask, and the Rust extension
# hoplab._core built into it with `maturin develop --release`.
#
# Source this file, then call `hoplab_env_setup`. Everything it needs is in
# the repository plus a system python3 (>= 3.11), and cargo to build the
# extension: once built, and until crates/ or a build file changes, cargo is
# not needed.

HOPLAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOPLAB_VENV="${HOPLAB_VENV:-$HOPLAB_ROOT/.venv}"
# Python packages the venv needs; changing this list reinstalls them.
HOPLAB_PY_DEPS=("maturin==1.16.*" "pandas" "click>=8" "pytest" "hypothesis" "pyarrow" "scipy" "statsmodels"
    "scikit-posthocs" "matplotlib" "tqdm" "dask[distributed]" "dask-jobqueue" "dpkt")

_hoplab_log() { printf 'hoplab-setup: %s\n' "$*" >&2; }

_hoplab_python() {
    local py
    for py in "${HOPLAB_PYTHON:-}" python3 python3.13 python3.12 python3.11; do
        [ -n "$py" ] || continue
        if command -v "$py" >/dev/null 2>&1 &&
            "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
            echo "$py"
            return 0
        fi
    done
    _hoplab_log "needs Python >= 3.11 (set HOPLAB_PYTHON to its path)"
    return 1
}

# The reason the Rust extension must be (re)built, or nothing when the build
# is current: the first file under crates/ (or a build file) newer than the
# last build's stamp. One `find` that stops at the first hit: cheap.
_hoplab_stale() {
    local stamp_build="$HOPLAB_VENV/.hoplab-build"
    if [ -f "$stamp_build" ] && ls "$HOPLAB_ROOT"/python/hoplab/_core*.so >/dev/null 2>&1; then
        find "$HOPLAB_ROOT/crates" "$HOPLAB_ROOT/Cargo.toml" "$HOPLAB_ROOT/Cargo.lock" \
            "$HOPLAB_ROOT/pyproject.toml" -newer "$stamp_build" -print -quit 2>/dev/null
    else
        echo "(no build yet)"
    fi
}

# rustc's own llvm-profdata (rustup component llvm-tools), which scripts/pgo.sh needs.
_hoplab_has_profdata() {
    local host
    host="$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')" || return 1
    [ -n "$host" ] && [ -x "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" ]
}

hoplab_env_setup() {
    local py stamp_deps stamp_build want newer
    # cargo is needed only to build: a current build runs without it.
    newer="$(_hoplab_stale)"
    if [ -n "$newer" ] && ! command -v cargo >/dev/null 2>&1; then
        if [ "$newer" = "(no build yet)" ]; then
            _hoplab_log "the Rust extension is not built yet and cargo is not on PATH: install Rust (https://rustup.rs) and run again"
        else
            _hoplab_log "the Rust extension is out of date (${newer#"$HOPLAB_ROOT"/} changed) and cargo is not on PATH: install Rust (https://rustup.rs) and run again"
        fi
        return 1
    fi
    if [ ! -x "$HOPLAB_VENV/bin/python" ]; then
        py="$(_hoplab_python)" || return 1
        _hoplab_log "creating $HOPLAB_VENV with $py"
        "$py" -m venv "$HOPLAB_VENV" || return 1
    fi
    # Activate: maturin develop installs into $VIRTUAL_ENV.
    export VIRTUAL_ENV="$HOPLAB_VENV"
    export PATH="$HOPLAB_VENV/bin:$PATH"
    unset PYTHONHOME

    stamp_deps="$HOPLAB_VENV/.hoplab-deps"
    want="${HOPLAB_PY_DEPS[*]}"
    if [ "$(cat "$stamp_deps" 2>/dev/null)" != "$want" ]; then
        _hoplab_log "installing ${want}"
        python -m pip install --quiet --disable-pip-version-check "${HOPLAB_PY_DEPS[@]}" || return 1
        printf '%s' "$want" >"$stamp_deps"
    fi

    # Rebuild the extension when the Rust sources or the build files changed
    # since the last build (or the extension is missing).
    stamp_build="$HOPLAB_VENV/.hoplab-build"
    if [ -n "$newer" ]; then
        # Profile-guided when rustc's llvm-profdata is there (scripts/pgo.sh:
        # 6-10 % less engine time, twice the build time); HOPLAB_PGO=0 skips it.
        if [ "${HOPLAB_PGO:-1}" != 0 ] && _hoplab_has_profdata &&
            _hoplab_log "building the Rust extension, profile-guided (scripts/pgo.sh; HOPLAB_PGO=0 for a plain build): $newer" &&
            "$HOPLAB_ROOT/scripts/pgo.sh"; then
            :
        else
            _hoplab_log "building the Rust extension (maturin develop --release): $newer"
            (cd "$HOPLAB_ROOT" && maturin develop --release --quiet \
                --manifest-path crates/hoplab-py/Cargo.toml) >&2 || return 1
        fi
        touch "$stamp_build"
    fi
    # Keep matplotlib & co. from writing into the home directory: one fixed
    # directory per venv (a fresh mktemp per call leaked one per call).
    if [ -z "${MPLCONFIGDIR:-}" ]; then
        export MPLCONFIGDIR="$HOPLAB_VENV/mplconfig"
        mkdir -p "$MPLCONFIGDIR"
    fi
    return 0
}
