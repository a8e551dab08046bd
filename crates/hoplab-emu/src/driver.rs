//! The real-time loop. Simulated time is real time since the start (the
//! monotonic clock). Each turn the engine runs up to now + look-ahead;
//! deliveries it produced are written to their node's TUN device when the
//! clock reaches their simulated time; packets read from a TUN device enter
//! the simulation stamped at their arrival plus the look-ahead, which is
//! never before what the engine has already handled. So the look-ahead is
//! added delay on the first hop in exchange for the engine's head start,
//! and a write is late only when the engine (or the machine) fell behind.

use crate::clock::{now_ns, set_fifo, Waiter};
use crate::lateness::Lateness;
use crate::log::IngressLog;
use crate::net::{read_packet, write_packet, NodeNet};
use hoplab_sim::ipv4::{parse, Reject};
use hoplab_sim::{Delivery, Emulation, InjectError};
use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;

/// `emulation.on_lag`, declared with the scenario's `[emulation]` table.
pub use hoplab_sim::OnLag;

#[derive(Clone, Debug)]
pub struct Config {
    pub lookahead_ns: u64,
    pub on_lag: OnLag,
    pub lag_threshold_ns: u64,
    /// Spin this long before each deadline instead of sleeping.
    pub spin_ns: u64,
    /// Ask for SCHED_FIFO (warned about, not fatal, if refused).
    pub fifo: bool,
    /// Where to write the ingress log.
    pub log: Option<PathBuf>,
    /// Tests: stop the loop for `.1` ns once simulated time passes `.0`
    /// (a stand-in for a descheduled process).
    pub stall: Option<(u64, u64)>,
    /// How often (ns) to call the caller's `poll` (signals, commands).
    pub poll_ns: u64,
}

/// Whether the caller wants the run to go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Continue,
    Stop,
}

/// What a live run did.
#[derive(Debug, Default)]
pub struct Report {
    pub packets_in: u64,
    pub packets_out: u64,
    /// Writes the device refused (its queue full).
    pub write_drops: u64,
    pub dropped_not_ipv4: u64,
    pub dropped_malformed: u64,
    /// To an address that is not a real node's.
    pub dropped_unknown_destination: u64,
    pub lateness: Lateness,
    /// Why the run ended: "end" (the scenario's duration), "stopped" (the
    /// caller), "lag" (on_lag = abort).
    pub ended: &'static str,
    /// The abort's one-line message.
    pub message: Option<String>,
    /// The last horizon: replay runs up to it.
    pub horizon_ns: u64,
    pub steps: u64,
    /// The longest engine step, in ns of real time.
    pub max_step_ns: u64,
    pub fifo: Option<String>,
    /// CLOCK_MONOTONIC at simulated time zero: a delivery at simulated time
    /// t is due at t0_ns + t (what a probe stamped with that clock compares).
    pub t0_ns: u64,
}

/// Run `emu` in real time with the real nodes' devices `nets` until the
/// scenario ends, `poll` says stop, or a lag aborts it.
pub fn run_live(emu: &mut Emulation, nets: &[NodeNet], cfg: &Config, poll: &mut dyn FnMut() -> Stop) -> io::Result<Report> {
    let mut rep = Report { lateness: Lateness::new(cfg.lag_threshold_ns), ..Report::default() };
    if cfg.fifo {
        rep.fifo = set_fifo(10).err().map(|e| format!("SCHED_FIFO refused: {e}"));
    }
    let mut log = cfg.log.as_deref().map(IngressLog::create).transpose()?;
    let mut node_of_addr = vec![usize::MAX; nets.iter().map(|n| n.node as usize + 1).max().unwrap_or(0)];
    for (k, n) in nets.iter().enumerate() {
        node_of_addr[n.node as usize] = k;
    }
    let fds: Vec<_> = nets.iter().map(|n| &n.tun).collect();
    let mut waiter = Waiter::new(&fds, cfg.spin_ns)?;
    let end = emu.end_ns();
    let look = cfg.lookahead_ns;
    // The engine advances at least twice per look-ahead, so a delivery is
    // known before it is due.
    let tick = (look / 2).max(50_000);
    let mut out: VecDeque<Delivery> = VecDeque::new();
    let mut ready = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut last_stamp = 0u64;
    let mut stalled = false;
    let t0 = now_ns();
    rep.t0_ns = t0;
    let sim = || now_ns() - t0;
    let mut next_poll = cfg.poll_ns;
    // When the loop meant to be back here (the last wait's deadline).
    let mut expected = 0u64;
    rep.ended = "end";
    loop {
        let now = sim();
        if rep.lateness.observe(expected, now) {
            let msg = format!("emulation fell behind real time at {:.3} s by {:.3} ms (lag_threshold_ms = {})", expected as f64 / 1e9, (now - expected) as f64 / 1e6, cfg.lag_threshold_ns as f64 / 1e6);
            if let Some(r) = lagged(&mut rep, cfg, msg, now) {
                return finish(r, log);
            }
        }
        expected = now;
        if let Some((at, dur)) = cfg.stall.filter(|_| !stalled) {
            if now >= at {
                stalled = true;
                std::thread::sleep(std::time::Duration::from_nanos(dur));
                continue;
            }
        }
        let horizon = (now + look).min(end + 1);
        let s0 = now_ns();
        emu.run_until(horizon);
        rep.max_step_ns = rep.max_step_ns.max(now_ns() - s0);
        rep.steps += 1;
        rep.horizon_ns = horizon;
        out.extend(emu.drain());
        while out.front().is_some_and(|d| d.time_ns <= sim()) {
            let d = out.pop_front().expect("front exists");
            let k = node_of_addr.get(d.node as usize).copied().unwrap_or(usize::MAX);
            if k == usize::MAX {
                continue; // filtered at ingress: cannot happen
            }
            if write_packet(&nets[k].tun, &d.bytes)? {
                rep.packets_out += 1;
            } else {
                rep.write_drops += 1;
            }
            let done = sim();
            if rep.lateness.record(d.time_ns, done) {
                let msg = format!(
                    "emulation fell behind real time at {:.3} s: a write {:.3} ms late (lag_threshold_ms = {})",
                    d.time_ns as f64 / 1e9,
                    (done - d.time_ns) as f64 / 1e6,
                    cfg.lag_threshold_ns as f64 / 1e6
                );
                if let Some(r) = lagged(&mut rep, cfg, msg, done) {
                    return finish(r, log);
                }
            }
        }
        if horizon > end && out.is_empty() {
            break;
        }
        let now = sim();
        if now >= next_poll {
            next_poll = now + cfg.poll_ns;
            if poll() == Stop::Stop {
                rep.ended = "stopped";
                break;
            }
        }
        let due = out.front().map_or(u64::MAX, |d| d.time_ns);
        let deadline = due.min(now + tick).min(next_poll);
        waiter.wait(t0 + deadline, &mut ready)?;
        expected = deadline.min(sim());
        for &k in &ready {
            while let Some(n) = read_packet(&nets[k].tun, &mut buf)? {
                let bytes = &buf[..n];
                match parse(bytes) {
                    Err(Reject::NotIpv4) => rep.dropped_not_ipv4 += 1,
                    Err(Reject::Malformed) => rep.dropped_malformed += 1,
                    Err(Reject::UnknownDestination) => rep.dropped_unknown_destination += 1,
                    Ok(p) if node_of_addr.get(p.dst_node as usize).is_none_or(|&j| j == usize::MAX) => rep.dropped_unknown_destination += 1,
                    Ok(_) => {
                        // Never before the engine's horizon nor an earlier stamp.
                        let at = (sim() + look).max(last_stamp).max(rep.horizon_ns);
                        match emu.inject(nets[k].node, bytes.to_vec(), at) {
                            Ok(()) => {
                                last_stamp = at;
                                rep.packets_in += 1;
                                if let Some(l) = log.as_mut() {
                                    l.record(nets[k].node, at, bytes)?;
                                }
                            }
                            Err(InjectError::Packet(_)) => rep.dropped_unknown_destination += 1,
                            Err(e) => return Err(io::Error::other(format!("inject: {e}"))),
                        }
                    }
                }
            }
        }
    }
    rep.lateness.close(sim());
    finish(rep, log)
}

/// A new episode of falling behind: warn, or end the run (the report, taken).
fn lagged(rep: &mut Report, cfg: &Config, msg: String, now: u64) -> Option<Report> {
    if cfg.on_lag == OnLag::Abort {
        rep.lateness.close(now);
        rep.ended = "lag";
        rep.message = Some(format!("{msg}; on_lag = \"abort\": stopped"));
        return Some(std::mem::take(rep));
    }
    eprintln!("hoplab emu: warning: {msg}");
    None
}

fn finish(rep: Report, log: Option<IngressLog>) -> io::Result<Report> {
    if let Some(l) = log {
        l.finish()?;
    }
    Ok(rep)
}
