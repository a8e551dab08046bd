"""The engine's layering (issue 19): scripts/check_layers.py finds no import
cycle between the modules of crates/hoplab-sim/src and no import of a
protocol module under `wire`; and it does find them when they are there."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_layers.py"


def load():
    spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_engine_layers_have_no_cycle_and_wire_imports_no_protocol():
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_check_finds_a_cycle_and_a_wire_import(tmp_path):
    src = tmp_path / "src"
    (src / "wire").mkdir(parents=True)
    (src / "net").mkdir()
    (src / "lib.rs").write_text("mod wire;\nmod net;\nmod tcp;\n")
    (src / "wire" / "mod.rs").write_text("pub mod packet;\n")
    (src / "wire" / "packet.rs").write_text("use crate::net::msg::RoutingMsg; // the old wire.rs\n")
    (src / "net" / "mod.rs").write_text("pub mod msg;\nuse crate::tcp::Variant;\n")
    (src / "net" / "msg.rs").write_text("use crate::wire::packet::Packet;\n")
    (src / "tcp.rs").write_text("use crate::{net::RouteAction, time::Dur};\n#[cfg(test)]\nmod tests { use crate::wire::Packet; }\n")
    mod = load()
    edges = mod.graph(str(src))
    assert set(edges["wire::packet"]) == {"net"}
    assert set(edges["tcp"]) == {"net", "time"}, "test modules do not count"
    assert mod.cycles(edges) == [["net", "tcp", "wire::packet"]]
    r = subprocess.run([sys.executable, str(SCRIPT), "--src", str(src)], capture_output=True, text=True)
    assert r.returncode == 1
    assert "wire layer imports a protocol module: wire::packet -> net" in r.stdout
    assert "import cycle among 3 modules (net, tcp, wire::packet)" in r.stdout


def test_the_check_follows_a_parents_re_export_and_skips_test_only_uses(tmp_path):
    # scenario/mod.rs re-exports model's item; model imports tcp; tcp uses the
    # re-exported name: a cycle through the re-export.
    src = tmp_path / "src"
    (src / "scenario").mkdir(parents=True)
    (src / "lib.rs").write_text("mod scenario;\nmod tcp;\nmod time;\n")
    (src / "scenario" / "mod.rs").write_text("mod model;\npub use model::Scenario;\n"
                                             "#[cfg(test)]\nuse crate::time::Dur;\n")
    (src / "scenario" / "model.rs").write_text("use crate::tcp::TcpParams;\n")
    (src / "tcp.rs").write_text("use crate::scenario::Scenario;\n")
    (src / "time.rs").write_text("")
    mod = load()
    edges = mod.graph(str(src))
    assert set(edges["scenario"]) == {"scenario::model"}, "test-only uses do not count"
    assert mod.cycles(edges) == [["scenario", "scenario::model", "tcp"]]
