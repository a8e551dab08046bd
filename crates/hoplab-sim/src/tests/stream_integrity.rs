//! Stream integrity end to end (issue 10 item 6): a fault injected at a
//! relay (fault.rs) reaches `flows.stream_errors`; a clean run has none.

use super::common;

use crate::fault::{Fault, FaultHook};
use crate::world::World;
use crate::{RunOutput, Scenario};

/// Three hops, one FTP flow 0 -> 3, 20 s.
fn scenario() -> Scenario {
    Scenario::from_toml_str(&common::chain(3, "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 3\n").replace("duration = 30.0", "duration = 20.0")).unwrap()
}

fn run_with(fault: Option<(usize, FaultHook)>) -> (RunOutput, bool) {
    let sc = scenario();
    let mut w = World::new(&sc, 1);
    if let Some((node, hook)) = fault {
        w.nodes[node].fault = Some(hook);
    }
    w.run();
    let fired = fault.is_none_or(|(n, _)| w.nodes[n].fault.is_some_and(|f| f.fired));
    (w.results(0.0), fired)
}

#[test]
fn a_clean_run_has_no_stream_errors() {
    let (r, _) = run_with(None);
    assert!(r.flows[0].bytes_delivered > 1_000_000);
    assert_eq!(r.flows[0].stream_errors, 0);
    // The hook, off, changes nothing: same events as the plain run.
    assert_eq!(r.info.event_hash, crate::run(&scenario(), 1).info.event_hash);
}

#[test]
fn corruption_at_a_relay_is_seen_at_the_sink() {
    let (r, fired) = run_with(Some((2, FaultHook::new(0, 100, Fault::Corrupt))));
    assert!(fired, "segment 100 never passed node 2");
    assert_eq!(r.flows[0].stream_errors, 1);
}

#[test]
fn a_segment_shifted_at_a_relay_is_seen_at_the_sink() {
    // Segment 100 leaves node 1 labelled 101: it is buffered there, the real
    // 101 is dropped as a duplicate, 100 is retransmitted, and the bytes of
    // 100 are then delivered at 101's offset.
    let (r, fired) = run_with(Some((1, FaultHook::new(0, 100, Fault::Shift { by: 1 }))));
    assert!(fired);
    assert!(r.flows[0].stream_errors >= 1, "a misplaced range went unnoticed");
}
