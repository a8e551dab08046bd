//! Many flows sharing few nodes (issue 22 item 6): after an event a node
//! re-reads the deadlines of the agents that event fed, not of all its
//! agents. Before, every event at a node read every agent there, so engine
//! time grew with the square of the flows (10,000 CBR flows on a 5-node
//! chain: 1.19 s for 38,000 events). The count of reads is the measure: it
//! is exact, where a timing would be noise.

use crate::world::World;
use crate::Scenario;

/// A 4-hop chain, 2 s, with `n` 1 kbit/s CBR flows between pseudo-random
/// pairs starting in [0, 1.9) s.
fn many_flows(n: usize) -> Scenario {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let flows: Vec<String> = (0..n)
        .map(|_| {
            let a = next(5);
            let b = (a + 1 + next(4)) % 5;
            let start = next(1900) as f64 / 1000.0;
            format!(r#"{{"kind":"cbr","src":{a},"dst":{b},"start_s":{start},"rate_kbps":1.0,"packet_size_bytes":512}}"#)
        })
        .collect();
    let json = format!(
        r#"{{"name":"flows","duration_s":2.0,"seed":1,"topology":{{"kind":"chain","nodes":5,"spacing_m":200.0}},"flows":[{}],"output":{{"timeseries":false}}}}"#,
        flows.join(",")
    );
    Scenario::from_json_str(&json).unwrap()
}

fn reads_per_event(n: usize) -> (u64, u64) {
    let sc = many_flows(n);
    let mut w = World::new(&sc, 1);
    w.run();
    let reads: u64 = w.nodes.iter().map(|nd| nd.agent_reads).sum();
    (reads, w.events())
}

#[test]
fn agent_deadlines_read_per_event_not_per_flow() {
    for n in [200, 4000] {
        let (reads, events) = reads_per_event(n);
        // Each agent is read once at the start (2 agents per flow); after
        // that an event feeds one agent, sometimes two (a packet and its
        // reply). Reading every agent at the node would be ~2n/5 per event.
        let after_start = reads.saturating_sub(2 * n as u64);
        assert!(after_start <= 3 * events, "{n} flows: {reads} agent reads for {events} events");
    }
}
