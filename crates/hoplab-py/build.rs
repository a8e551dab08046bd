//! Embeds the git commit the extension was built from as `HOPLAB_GIT_COMMIT`
//! (exported to Python as `hoplab._core.__git_commit__`, written into every
//! `info.json` and shown by `hoplab --version`).
//!
//! The value is `git rev-parse HEAD`, with `-dirty` appended when tracked files
//! differ from that commit, or "unknown" when the crate is not built from a git
//! checkout of hoplab (an sdist, a tarball, git not installed). A packager can
//! set `HOPLAB_GIT_COMMIT` in the environment to name the commit explicitly.
//! Nothing here may fail the build: every git error means "unknown".

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        // Never take the index lock or rewrite the index: a build must not
        // change the mtime of a file it watches (it would rebuild forever).
        .arg("--no-optional-locks")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A path printed by `git rev-parse --git-path`, relative to `dir` unless absolute.
fn git_path(dir: &Path, name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(git(dir, &["rev-parse", "--git-path", name])?);
    Some(if p.is_absolute() { p } else { dir.join(p) })
}

/// Watch `p` if it exists: cargo treats a missing watched file as changed
/// and would rebuild every time (`packed-refs` often does not exist).
fn watch(p: &Path) {
    if p.exists() {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}

fn commit(dir: &Path) -> Option<String> {
    // Only our own checkout counts: an sdist unpacked inside some other
    // repository (a home directory under git) must not report its commit.
    git(dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    let head = git(dir, &["rev-parse", "--verify", "HEAD"])?;
    if head.len() != 40 || !head.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // Rerun when HEAD moves (a commit, a checkout) or the index changes (git
    // add). `--git-path` resolves worktrees, where `.git` is a file and refs
    // live in the common directory.
    for name in ["HEAD", "index", "packed-refs"] {
        if let Some(p) = git_path(dir, name) {
            watch(&p);
        }
    }
    if let Some(sym) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git_path(dir, &sym) {
            watch(&p);
        }
    }
    // Edits to the Rust sources that are not yet staged change "-dirty" too.
    println!(
        "cargo:rerun-if-changed={}",
        dir.join("../../crates").display()
    );
    let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"])
        .map(|s| !s.is_empty())
        .unwrap_or(false);
    Some(if dirty { format!("{head}-dirty") } else { head })
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HOPLAB_GIT_COMMIT");
    let given = std::env::var("HOPLAB_GIT_COMMIT")
        .ok()
        .filter(|s| !s.trim().is_empty());
    let value = given.unwrap_or_else(|| {
        let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
        commit(&dir).unwrap_or_else(|| "unknown".to_string())
    });
    println!("cargo:rustc-env=HOPLAB_GIT_COMMIT={value}");
}
