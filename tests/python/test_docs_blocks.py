"""Every command and code block of README.md and docs/*.md runs here, so none can go stale.

A block's fence carries its language, which says how it is checked:

  sh       commands, run in order by `bash -e -o pipefail`; must exit 0
  console  `$ COMMAND` lines, each followed by what it prints on stdout (progress and notes go to
           stderr; end the command in `2>&1` to show an error line); compared line by line,
           trailing spaces ignored
  python   a script; must exit 0
  pycon    a `>>>` session, run by doctest (NORMALIZE_WHITESPACE, ELLIPSIS): output compared
  toml     parsed by tomllib (and written to a file with `file NAME`)
  text     not run: diagrams, directory layouts, usage synopses; a `$ ` prompt in one is an error

An HTML comment on the lines right above a fence (invisible on GitHub) changes how it runs:

  <!-- docs-test: skip: REASON -->           not run (a reason is required)
  <!-- docs-test: file NAME -->              toml: also written to NAME for the blocks after it
  <!-- docs-test: example output -->         console/pycon: numbers may differ, the rest may not
  <!-- docs-test: shorter: "OLD" => "NEW" --> run with OLD replaced by NEW (a long run cut short;
                                               several pairs separated by ` ; `); OLD must occur
  <!-- docs-test: dir NAME -->               run in the empty directory NAME instead of the
                                               document's default one, which has examples/

Blocks of one document run in order and share its working directories (a block may use the
files an earlier one wrote). `hoplab` and `./hoplab` run as `python -m hoplab` with this
interpreter; the README's walk-through runs in an empty directory, as from an installed wheel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import hoplab

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"sh", "console", "python", "pycon", "toml", "text"}
TIMEOUT_S = 600

FENCE = re.compile(r"^```(\S*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
PAIR = re.compile(r'^"(.*)"\s*=>\s*"(.*)"$')
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


@dataclass
class Block:
    doc: str  # path relative to the repository
    line: int  # the opening fence's line, 1-based
    lang: str
    text: str
    skip: str | None = None
    file: str | None = None
    example: bool = False
    dir: str | None = None
    replace: list[tuple[str, str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}:{self.lang}"

    def source(self) -> str:
        text = self.text
        for old, new in self.replace:
            text = text.replace(old, new)
        return text


def parse(markdown: str, doc: str) -> tuple[list[Block], list[str]]:
    """The fenced blocks of a markdown text with their markers, and every problem found."""
    blocks: list[Block] = []
    problems: list[str] = []
    pending: list[tuple[int, str]] = []  # markers seen on the lines just above
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line)
        fence = FENCE.match(line)
        if marker:
            pending.append((i + 1, marker.group(1)))
        elif fence:
            start = i
            body = []
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                problems.append(f"{doc}:{start + 1}: fence never closed")
            block = Block(doc, start + 1, fence.group(1), "\n".join(body) + "\n")
            for where, directive in pending:
                problems += apply_marker(block, directive, f"{doc}:{where}")
            pending = []
            problems += check(block)
            blocks.append(block)
        else:
            for where, _ in pending:
                problems.append(f"{doc}:{where}: docs-test marker not directly above a fence")
            pending = []
        i += 1
    for where, _ in pending:
        problems.append(f"{doc}:{where}: docs-test marker not directly above a fence")
    return blocks, problems


def apply_marker(block: Block, directive: str, where: str) -> list[str]:
    name, _, arg = directive.partition(" ")
    name, arg = name.rstrip(":"), arg.strip()
    if name == "skip":
        if not arg:
            return [f"{where}: `skip` needs a reason"]
        block.skip = arg
    elif name == "file" and arg:
        block.file = arg
    elif name == "dir" and arg:
        block.dir = arg
    elif directive == "example output":
        block.example = True
    elif name == "shorter" and arg:
        for pair in arg.split(" ; "):
            m = PAIR.match(pair.strip())
            if not m:
                return [f'{where}: `shorter` takes "OLD" => "NEW" pairs, not {pair!r}']
            block.replace.append((m.group(1), m.group(2)))
    else:
        return [f"{where}: unknown docs-test marker {directive!r}"]
    return []


def check(block: Block) -> list[str]:
    at = f"{block.doc}:{block.line}"
    problems = []
    if block.lang not in LANGUAGES:
        problems.append(f"{at}: fence needs one of {sorted(LANGUAGES)}, not {block.lang!r}")
    if block.lang == "text" and any(ln.startswith("$ ") for ln in block.text.splitlines()):
        problems.append(f"{at}: a `$ ` prompt in a text block: make it a console block")
    if block.lang == "console" and not block.text.startswith("$ "):
        problems.append(f"{at}: a console block starts with a `$ ` command")
    if block.file and block.lang != "toml":
        problems.append(f"{at}: `file` is for toml blocks")
    if block.example and block.lang not in ("console", "pycon"):
        problems.append(f"{at}: `example output` is for console and pycon blocks")
    for old, _ in block.replace:
        if old not in block.text:
            problems.append(f"{at}: `shorter` replaces {old!r}, which the block does not contain")
    return problems


def collect() -> tuple[list[Block], list[str]]:
    blocks, problems = [], []
    for path in DOCS:
        b, p = parse(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
        blocks += b
        problems += p
    return blocks, problems


BLOCKS, PROBLEMS = collect()


# ---------------------------------------------------------------- the environment blocks run in


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict:
    """PATH with a `hoplab` that is `python -m hoplab` of this interpreter and package."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "hoplab"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m hoplab "$@"\n')
    shim.chmod(0o755)
    package_parent = str(Path(hoplab.__file__).resolve().parents[1])
    e = dict(os.environ)
    e["PATH"] = f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{e.get('PATH', '')}"
    e["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, e.get("PYTHONPATH")) if p)
    e["MPLBACKEND"] = "Agg"
    e["COLUMNS"] = "200"  # pandas and click: one width wherever the test runs
    e.pop("HOPLAB_DEBUG", None)
    e.setdefault("MPLCONFIGDIR", str(tmp_path_factory.mktemp("mpl")))
    return e


_DIRS: dict[tuple[str, str | None], Path] = {}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """The working directory of a document (with examples/) or of a named `dir`."""

    def get(block: Block) -> Path:
        key = (block.doc, block.dir)
        if key not in _DIRS:
            d = tmp_path_factory.mktemp(re.sub(r"\W", "_", f"{block.doc}_{block.dir or 'main'}"))
            if block.dir is None:
                shutil.copytree(Path(hoplab.__file__).parent / "examples", d / "examples")
            _DIRS[key] = d
        return _DIRS[key]

    return get


def shell(command: str, cwd: Path, env: dict, stderr=subprocess.STDOUT) -> subprocess.CompletedProcess:
    command = re.sub(r"(?<![\w./-])\./hoplab\b", "hoplab", command)
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=stderr,
        text=True, timeout=TIMEOUT_S,
    )


def console_steps(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) per `$ ` line; a trailing backslash continues a command."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        out = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            out.append(lines[i])
            i += 1
        steps.append((command, out))
    return steps


def shape(lines: list[str]) -> list[list[str]]:
    """Lines with every number replaced by `#` and spacing ignored: an example output's form."""
    return [NUMBER.sub("#", ln).split() for ln in lines]


def trimmed(lines: list[str]) -> list[str]:
    lines = [ln.rstrip() for ln in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


# ---------------------------------------------------------------- the tests


def test_docs_blocks_are_well_formed():
    """Every fence has a known language, every marker sits on a block and still applies."""
    assert PROBLEMS == []
    assert len(BLOCKS) > 20, "the docs' blocks were not found"


def test_readme_links_resolve():
    """The README's table of contents points at files that exist."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(((?!https?:|#)[^)#\s]+)", text)
    assert targets
    assert [t for t in targets if not (ROOT / t).exists()] == []


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block(block: Block, env, workdir):
    if block.lang == "text":
        return
    if block.skip:
        pytest.skip(block.skip)
    cwd = workdir(block)
    source = block.source()
    where = block.id
    if block.lang == "toml":
        tomllib.loads(source)
        if block.file:
            (cwd / block.file).write_text(source, encoding="utf-8")
    elif block.lang == "sh":
        r = shell(source, cwd, env)
        assert r.returncode == 0, f"{where}: exit {r.returncode}\n{r.stdout[-4000:]}"
    elif block.lang == "python":
        script = cwd / f"_block_{block.line}.py"
        script.write_text(source, encoding="utf-8")
        r = subprocess.run([sys.executable, script.name], cwd=cwd, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
        assert r.returncode == 0, f"{where}: exit {r.returncode}\n{r.stdout[-4000:]}"
    elif block.lang == "pycon":
        session = cwd / f"_block_{block.line}.txt"
        session.write_text(_numbers_as_ellipsis(source) if block.example else source,
                           encoding="utf-8")
        r = subprocess.run(
            [sys.executable, "-m", "doctest", "-o", "NORMALIZE_WHITESPACE", "-o", "ELLIPSIS",
             session.name],
            cwd=cwd, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=TIMEOUT_S,
        )
        assert r.returncode == 0, f"{where}: the session printed otherwise\n{r.stdout[-6000:]}"
    elif block.lang == "console":
        for command, expected in console_steps(source):
            r = shell(command, cwd, env, stderr=subprocess.PIPE)
            got = trimmed(r.stdout.splitlines())
            expected = trimmed(expected)
            if block.example:
                assert shape(got) == shape(expected), f"{where}: `{command}` printed\n" + "\n".join(got)
            else:
                assert got == expected, (f"{where}: `{command}` printed\n" + "\n".join(got)
                                         + f"\nand on stderr\n{r.stderr[-2000:]}")


def _numbers_as_ellipsis(session: str) -> str:
    """An example session's expected output with each number matching any text."""
    out = []
    for ln in session.splitlines():
        stripped = ln.lstrip()
        if stripped.startswith((">>> ", "... ")) or stripped in (">>>", "..."):
            out.append(ln)
        else:
            out.append(NUMBER.sub("...", ln))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the parser itself


def test_parse_attaches_markers_to_the_next_fence_only():
    md = (
        "text\n"
        '<!-- docs-test: shorter: "--replicas 5" => "--replicas 1" -->\n'
        "<!-- docs-test: dir walk -->\n"
        "```sh\nhoplab reproduce seed000 --replicas 5\n```\n"
        "```sh\nhoplab reproduce seed000 --replicas 5\n```\n"
    )
    blocks, problems = parse(md, "x.md")
    assert problems == []
    assert blocks[0].source() == "hoplab reproduce seed000 --replicas 1\n"
    assert blocks[0].dir == "walk" and blocks[1].dir is None
    assert blocks[1].source() == "hoplab reproduce seed000 --replicas 5\n"


def test_parse_reports_stale_and_stray_markers():
    md = (
        '<!-- docs-test: shorter: "--duration 120" => "--duration 5" -->\n'
        "```sh\nhoplab run chain.toml\n```\n"
        "<!-- docs-test: skip -->\n"
        "```python\nprint(1)\n```\n"
        "<!-- docs-test: example output -->\n"
        "\n"
        "```\nuntagged\n```\n"
        "```text\n$ hoplab run x.toml\n```\n"
    )
    _, problems = parse(md, "x.md")
    assert any("x.md:2:" in p and "does not contain" in p for p in problems)
    assert any("x.md:5:" in p and "needs a reason" in p for p in problems)
    assert any("x.md:9:" in p and "not directly above" in p for p in problems)
    assert any("x.md:11:" in p and "fence needs one of" in p for p in problems)
    assert any("x.md:14:" in p and "console block" in p for p in problems)


def test_example_output_compares_form_not_numbers():
    assert shape(["flow 0  309.5 kbit/s  1,572.9 ms"]) == shape(["flow 0  280.0 kbit/s  12.0 ms"])
    assert shape(["flow 0  309.5 kbit/s"]) != shape(["flow 0  309.5 kB/s"])
    steps = console_steps("$ hoplab run a.toml \\\n    --seed 3\nline 1\n$ ls\nb\n")
    assert steps == [("hoplab run a.toml  --seed 3", ["line 1"]), ("ls", ["b"])]
