//! TCP Vegas as ns-2's `Agent/TCP/Vegas`: BaseRTT, the α/β band, the
//! modified slow start and the fine-grained retransmission check.
//!
//! `Path` below gives each segment the RTT the test sets at the moment it
//! is sent (a FIFO path, optionally behind a bottleneck that serialises
//! segments), so the tests choose exactly what Vegas measures.

use std::collections::VecDeque;

use super::support::{ack, cfg, drain, ms, seqnos};
use crate::tcp::{FewParams, TcpConfig, TcpSender, TcpSink, Variant, Vegas, VegasParams};
use crate::time::{Dur, SimTime};
use crate::wire::TcpSegment;

fn vegas() -> Variant {
    Variant::Vegas
}

fn state(s: &TcpSender) -> &Vegas {
    s.congestion().vegas().expect("a Vegas sender")
}

/// One once-per-RTT evaluation, as the sender saw it.
#[derive(Clone, Copy, Debug)]
struct Round {
    at: SimTime,
    diff: i64,
    /// cwnd just before and just after the ACK that ended the round.
    before: f64,
    after: f64,
    slow_start: bool,
}

/// A sender and an ACK-every-segment sink. A data segment sent at t reaches
/// the sink at max(t, bottleneck free) + `tx` + `rtt` (FIFO); its ACK comes
/// back at once. `lose` drops chosen transmissions.
struct Path {
    now: SimTime,
    sender: TcpSender,
    sink: TcpSink,
    rtt: Dur,
    tx: Dur,
    link_free: SimTime,
    wire: VecDeque<(SimTime, TcpSegment)>,
    lose: Box<dyn FnMut(&TcpSegment) -> bool>,
    sent: Vec<(SimTime, TcpSegment)>,
    rounds: Vec<Round>,
}

impl Path {
    fn new(c: &TcpConfig, rtt: Dur) -> Path {
        Path {
            now: SimTime::ZERO,
            sender: TcpSender::new(0, c, None, false),
            sink: TcpSink::new(0, c),
            rtt,
            tx: Dur::ZERO,
            link_free: SimTime::ZERO,
            wire: VecDeque::new(),
            lose: Box::new(|_| false),
            sent: Vec::new(),
            rounds: Vec::new(),
        }
    }

    fn flush(&mut self) {
        while let Some(seg) = self.sender.poll_transmit(self.now) {
            self.sent.push((self.now, seg.clone()));
            let start = self.link_free.max(self.now);
            self.link_free = start + self.tx;
            let last = self.wire.back().map_or(SimTime::ZERO, |e| e.0);
            if !(self.lose)(&seg) {
                self.wire.push_back(((self.link_free + self.rtt).max(last), seg));
            }
        }
    }

    fn next_event(&self) -> Option<SimTime> {
        [self.wire.front().map(|e| e.0), self.sender.poll_timeout()].into_iter().flatten().min()
    }

    /// Run every event up to and including `t`.
    fn run_until(&mut self, t: SimTime) {
        self.flush();
        while let Some(e) = self.next_event().filter(|&e| e <= t) {
            self.now = e;
            while self.wire.front().is_some_and(|w| w.0 <= e) {
                let (_, seg) = self.wire.pop_front().unwrap();
                self.sink.handle_segment(e, &seg);
                while let Some(a) = self.sink.poll_transmit(e) {
                    let evals = state(&self.sender).stats().evaluations;
                    let before = self.sender.cwnd();
                    let slow_start = before < self.sender.ssthresh();
                    self.sender.handle_ack(e, &a);
                    let v = state(&self.sender);
                    if v.stats().evaluations > evals {
                        let diff = v.last_diff().unwrap();
                        self.rounds.push(Round { at: e, diff, before, after: self.sender.cwnd(), slow_start });
                    }
                    self.flush();
                }
            }
            if self.sender.poll_timeout().is_some_and(|d| d <= e) {
                self.sender.handle_timeout(e);
            }
            self.flush();
        }
        self.now = t;
    }

    fn rounds_between(&self, from: SimTime, to: SimTime) -> Vec<Round> {
        self.rounds.iter().copied().filter(|r| r.at > from && r.at <= to).collect()
    }
}

fn path(iw: u32, rtt_ms: u64) -> Path {
    Path::new(&cfg(vegas(), iw), Dur::from_millis(rtt_ms))
}

#[test]
fn base_rtt_is_the_smallest_rtt_seen() {
    let mut p = path(2, 100);
    p.run_until(ms(100));
    // The first ACK starts the clock: time since the first transmission.
    assert_eq!(state(&p.sender).base_rtt(), Some(Dur::from_millis(100)));
    assert_eq!(state(&p.sender).fine_timeout(), Some(Dur::from_millis(150)), "1.5 x the first RTT");
    p.run_until(ms(1000));
    p.rtt = Dur::from_millis(150);
    p.run_until(ms(2000));
    assert_eq!(state(&p.sender).base_rtt(), Some(Dur::from_millis(100)), "longer RTTs leave BaseRTT alone");
    p.rtt = Dur::from_millis(80);
    p.run_until(ms(3000));
    assert_eq!(state(&p.sender).base_rtt(), Some(Dur::from_millis(80)), "a shorter RTT becomes BaseRTT");
    assert_eq!(p.sender.stats().retransmissions, 0);
}

#[test]
fn slow_start_grows_every_other_rtt() {
    // Constant RTT: nothing queues, diff stays 0 (<= γ), and the window
    // doubles in every second round only.
    let mut p = path(2, 100);
    let mut cwnd = Vec::new();
    for k in 1..=8u64 {
        p.run_until(ms(100 * k + 50));
        cwnd.push(p.sender.cwnd());
    }
    assert_eq!(cwnd, vec![2.0, 4.0, 4.0, 8.0, 8.0, 16.0, 16.0, 32.0]);
    assert!(p.rounds.iter().all(|r| r.slow_start && r.diff == 0), "{:?}", p.rounds);
    assert_eq!(state(&p.sender).stats().gamma_exits, 0);
}

#[test]
fn slow_start_ends_when_diff_exceeds_gamma() {
    let mut p = path(2, 100);
    p.run_until(ms(550)); // cwnd 8, a hold round under way
    assert_eq!(p.sender.cwnd(), 8.0);
    // From now on the path queues: each segment takes 150 ms.
    p.rtt = Dur::from_millis(150);
    p.run_until(ms(1500));
    let exit = p.rounds.iter().find(|r| r.slow_start && r.diff > 1).copied().expect("a round with diff > γ");
    assert_eq!(p.sender.ssthresh(), 2.0, "ns-2: ssthresh 2 after slow start");
    assert_eq!(exit.after, exit.before - exit.before / 8.0, "cwnd cut by an eighth on leaving: {exit:?}");
    assert_eq!(state(&p.sender).stats().gamma_exits, 1);
}

#[test]
fn congestion_avoidance_keeps_diff_between_alpha_and_beta() {
    // Enter congestion avoidance through a γ exit, then steer diff = W (1 - BaseRTT / RTT).
    let mut p = path(2, 100);
    p.run_until(ms(550));
    p.rtt = Dur::from_millis(150);
    p.run_until(ms(2000));
    assert_eq!(p.sender.ssthresh(), 2.0);
    assert!(p.rounds.last().is_some_and(|r| !r.slow_start));

    // diff inside [α, β]: the window holds.
    let t0 = p.now;
    p.run_until(t0 + Dur::from_millis(3000));
    let hold = p.rounds_between(t0 + Dur::from_millis(500), p.now);
    assert!(hold.len() >= 10, "{hold:?}");
    for r in &hold {
        assert!((1..=3).contains(&r.diff), "diff {} outside [α, β]: {hold:?}", r.diff);
        assert_eq!(r.after, r.before, "held inside the band: {r:?}");
    }
    let held = p.sender.cwnd();

    // Nothing queues any more (RTT = BaseRTT): diff < α, one more segment per RTT.
    p.rtt = Dur::from_millis(100);
    let t1 = p.now;
    p.run_until(t1 + Dur::from_millis(1000));
    let grow = p.rounds_between(t1 + Dur::from_millis(200), p.now);
    assert!(grow.iter().all(|r| r.diff < 1), "{grow:?}");
    let grown = p.sender.cwnd();
    let rtts = 1000.0 / 100.0;
    assert!(grown - held >= rtts - 3.0 && grown - held <= rtts + 1.0, "{held} -> {grown} in {rtts} RTTs");

    // Twice the BaseRTT: diff ~ W/2 > β, one segment less per RTT until diff <= β.
    p.rtt = Dur::from_millis(200);
    let t2 = p.now;
    p.run_until(t2 + Dur::from_millis(6000));
    // (Rounds in the first 500 ms still measure segments sent at 100 ms.)
    let shrink = p.rounds_between(t2 + Dur::from_millis(500), p.now);
    let mut cut = 0;
    for r in &shrink {
        if r.diff > 3 {
            assert_eq!(r.after, (r.before - 1.0).max(2.0), "shrinks by one above β: {r:?}");
            cut += 1;
        } else {
            assert!(r.diff >= 1, "{r:?}");
        }
    }
    assert!(cut >= 5, "{shrink:?}");
    let last = shrink.last().unwrap();
    assert!((1..=3).contains(&last.diff), "settles inside the band: {last:?}");
    assert!(p.sender.cwnd() <= 8.0, "W (1 - 1/2) <= β + 1/2 means W <= 7, cwnd {}", p.sender.cwnd());
    assert_eq!(p.sender.stats().retransmissions, 0);
}

/// Growth over one second with nothing queued (RTT = BaseRTT), from
/// congestion avoidance reached through a γ exit.
fn vegas_growth_in_ten_rtts(c: &TcpConfig) -> f64 {
    let mut p = Path::new(c, Dur::from_millis(100));
    p.run_until(ms(550));
    p.rtt = Dur::from_millis(150);
    p.run_until(ms(2000));
    assert!(p.rounds.last().is_some_and(|r| !r.slow_start));
    p.rtt = Dur::from_millis(100);
    let held = p.sender.cwnd();
    p.run_until(p.now + Dur::from_millis(1000));
    assert_eq!(p.sender.stats().retransmissions, 0);
    p.sender.cwnd() - held
}

#[test]
fn few_scales_the_congestion_avoidance_growth_of_vegas() {
    // seed 001 §4: FeW composes with any variant; Vegas grows in its timed
    // hook, whose increase FeW keeps α of (Eq. 9).
    let plain = vegas_growth_in_ten_rtts(&cfg(vegas(), 2));
    let few = TcpConfig { few: Some(FewParams { alpha: 0.25, w_min: 0.1, ssthresh_min: 0.1 }), ..cfg(vegas(), 2) };
    let scaled = vegas_growth_in_ten_rtts(&few);
    assert!(plain >= 7.0, "plain Vegas: one segment per RTT, grew {plain}");
    assert!(scaled > 0.5 && scaled <= 0.25 * 10.0 + 1.0, "FeW α = 0.25: about 2.5 segments, grew {scaled}");
}

#[test]
fn behind_a_bottleneck_vegas_queues_between_alpha_and_beta_segments() {
    // 100 ms propagation and 10 ms per segment at the bottleneck: the pipe
    // holds 11 segments; Vegas should keep 1 to 3 more in the queue.
    let mut p = path(2, 100);
    p.tx = Dur::from_millis(10);
    p.run_until(ms(30_000));
    assert_eq!(p.sender.stats().retransmissions, 0, "no loss: Vegas never fills a queue");
    let late = p.rounds_between(ms(20_000), ms(30_000));
    assert!(late.iter().all(|r| (1..=3).contains(&r.diff)), "{late:?}");
    let w = p.sender.cwnd();
    assert!((12.0..=15.0).contains(&w), "cwnd {w}: 11 in the pipe plus α..β queued");
    assert_eq!(state(&p.sender).base_rtt(), Some(Dur::from_millis(110)));
}

/// A sender that has had ACKs at 100 ms for the first window: fine
/// timeout 150 ms, segments 3.. sent at t = 100 ms.
fn warmed(iw: u32) -> TcpSender {
    let mut s = TcpSender::new(0, &cfg(vegas(), iw), None, false);
    drain(&mut s, ms(0));
    for a in 1..=iw as u64 {
        s.handle_ack(ms(100), &ack(a));
    }
    let out = drain(&mut s, ms(100));
    assert_eq!(seqnos(&out), (iw as u64..2 * iw as u64).collect::<Vec<_>>(), "first round: no growth yet");
    assert_eq!(state(&s).fine_timeout(), Some(Dur::from_millis(150)));
    s
}

#[test]
fn a_dup_ack_retransmits_at_once_when_the_fine_timeout_has_expired() {
    // Segment 8 (sent at 100 ms) is lost; the first dup ACK comes at 260 ms.
    let mut s = warmed(8);
    s.handle_ack(ms(260), &ack(8));
    let out = drain(&mut s, ms(260));
    assert_eq!(seqnos(&out), vec![8], "retransmitted on the first duplicate ACK");
    assert!(out[0].retransmit);
    assert_eq!(s.dupacks(), 1, "long before the third");
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(state(&s).stats().early_retransmits, 1);
    // Cut to 3/4 of the window (8 - 8/4 = 6), inflated by the one dup ACK.
    assert_eq!(s.cwnd(), 7.0);
    assert!(!s.in_recovery(), "Vegas inflates without the sender's fast recovery");
}

#[test]
fn a_dup_ack_before_the_fine_timeout_waits_for_the_third() {
    let mut s = warmed(8);
    // Age of segment 8 at 200 ms: 100 ms < 150 ms.
    for _ in 0..2 {
        s.handle_ack(ms(200), &ack(8));
        assert!(drain(&mut s, ms(200)).is_empty());
    }
    assert_eq!(s.cwnd(), 8.0);
    s.handle_ack(ms(200), &ack(8));
    assert_eq!(state(&s).stats().early_retransmits, 0);
    assert_eq!(s.cwnd(), 6.0 + 3.0, "3/4 of 8, inflated by three dup ACKs");
    // The retransmission first, then one new segment fits the inflated window.
    assert_eq!(seqnos(&drain(&mut s, ms(200))), vec![8, 16]);
    // Further dup ACKs inflate by one each.
    s.handle_ack(ms(200), &ack(8));
    assert_eq!(s.cwnd(), 10.0);
    assert_eq!(seqnos(&drain(&mut s, ms(200))), vec![17]);
}

#[test]
fn losses_of_one_window_cut_it_once() {
    let mut s = warmed(8);
    for _ in 0..3 {
        s.handle_ack(ms(200), &ack(8));
    }
    drain(&mut s, ms(200)); // 8 re-sent, cwnd 6 + 3: the cut happened at 200 ms
    // 8 fills the hole; 12 (sent at 100 ms) is lost as well. ACK 12 at 250 ms:
    // 12 is 150 ms old, under the fine timeout, so nothing is re-sent yet.
    s.handle_ack(ms(250), &ack(12));
    assert!(drain(&mut s, ms(250)).iter().all(|seg| !seg.retransmit));
    let cwnd = s.cwnd();
    for _ in 0..3 {
        s.handle_ack(ms(260), &ack(12));
    }
    let out = drain(&mut s, ms(260));
    assert_eq!(out.first().map(|o| (o.seqno, o.retransmit)), Some((12, true)));
    assert_eq!(s.stats().fast_retransmits, 2);
    // 12 was sent before the cut: no second cut, only the inflation continues.
    assert_eq!(s.cwnd(), cwnd, "no second cut for the same window");
}

#[test]
fn a_new_ack_deflates_and_checks_the_next_segment() {
    let mut s = warmed(8);
    for _ in 0..4 {
        s.handle_ack(ms(200), &ack(8)); // fast retransmit, then one inflation
    }
    assert_eq!(seqnos(&drain(&mut s, ms(200))), vec![8, 16, 17]);
    // The retransmission of 8 arrives but 9 was lost too: ACK 9 is new. It
    // deflates cwnd to the cut value 6 with ssthresh 2 (ns-2), and it ends a
    // round: 10 segments sent in 200 ms against 10 expected in 100 ms is
    // diff 5 > β, one segment less.
    s.handle_ack(ms(300), &ack(9));
    assert_eq!(s.ssthresh(), 2.0);
    assert_eq!(state(&s).last_diff(), Some(5));
    assert_eq!(s.cwnd(), 5.0);
    // The first new ACK after a retransmission checks segment 9's age: 200
    // ms, past the fine timeout, so it goes again at once, with no dup ACK.
    let out = drain(&mut s, ms(300));
    assert_eq!(seqnos(&out), vec![9]);
    assert!(out[0].retransmit);
    assert_eq!(state(&s).stats().ack_retransmits, 1);
    assert_eq!(s.stats().fast_retransmits, 1);

    // That retransmission is lost too: a dup ACK after the fine timeout
    // re-sends it, doubles the fine timeout and, as 9 was re-sent after
    // the cut, halves the window: 5 / 2 = 2, inflated by 4 dup ACKs (ns-2
    // counts on from the threshold after a retransmission).
    let timeout = state(&s).fine_timeout().unwrap();
    let later = ms(300) + timeout + Dur::from_millis(1);
    s.handle_ack(later, &ack(9));
    let out = drain(&mut s, later);
    assert_eq!(out.first().map(|o| (o.seqno, o.retransmit)), Some((9, true)));
    assert_eq!(state(&s).fine_timeout(), Some(timeout.mul(2)));
    assert_eq!(s.cwnd(), 2.0 + 4.0);
    assert_eq!(s.stats().fast_retransmits, 2);
}

#[test]
fn a_timeout_restarts_from_two_segments() {
    let mut s = warmed(8);
    let rto = s.poll_timeout().unwrap();
    s.handle_timeout(rto);
    assert_eq!(s.cwnd(), 2.0, "ns-2 v_slowstart_");
    assert_eq!(s.ssthresh(), 4.0, "FlightSize 8 / 2");
    let out = drain(&mut s, rto);
    assert_eq!(seqnos(&out), vec![8, 9]);
}

#[test]
fn parameters_come_from_the_scenario() {
    use crate::scenario::{Scenario, TcpParams};
    let p = TcpParams { variant: Some(Variant::Vegas), vegas_beta: Some(5), ..TcpParams::default() };
    let c = TcpConfig::from_params(&p);
    assert_eq!((c.variant, c.vegas), (Variant::Vegas, VegasParams { alpha: 1, beta: 5, gamma: 1 }));
    let sc = Scenario::from_toml_str(
        "duration = 1.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 200.0\n[tcp]\nvariant = \"vegas\"\nvegas_alpha = 2\nvegas_beta = 4\nvegas_gamma = 2\n",
    )
    .expect("valid vegas scenario");
    let c = TcpConfig::from_params(&sc.tcp);
    assert_eq!((c.variant, c.vegas), (Variant::Vegas, VegasParams { alpha: 2, beta: 4, gamma: 2 }));
    // The Vegas fields do nothing for the other variants.
    let c = TcpConfig::from_params(&TcpParams { vegas_alpha: Some(2), ..TcpParams::default() });
    assert_eq!(c.variant, Variant::NewReno);
    assert_eq!(c, TcpConfig::from_params(&TcpParams::default()));
}

#[test]
fn bad_parameters_name_the_field() {
    use crate::scenario::Scenario;
    let base = "duration = 1.0\n[topology]\nkind = \"chain\"\nnodes = 2\nspacing = 200.0\n";
    let flow = "[[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 1\n";
    for (extra, field) in [
        ("[tcp]\nvegas_alpha = 0\n", "tcp.vegas_alpha"),
        ("[tcp]\nvegas_gamma = 0\n", "tcp.vegas_gamma"),
        ("[tcp]\nvegas_alpha = 4\n", "tcp.vegas_alpha"),
        ("[tcp]\nvegas_beta = 0\n", "tcp.vegas_beta"),
        ("[tcp]\nvegas_alpha = 2\nvegas_beta = 1\n", "tcp.vegas_alpha"),
        ("[tcp]\nvegas_alpha = -1\n", "tcp.vegas_alpha"),
    ] {
        let e = Scenario::from_toml_str(&format!("{base}{extra}")).expect_err(extra);
        assert_eq!(e.field, field, "{extra}: {e}");
    }
    // A flow's own value is checked against the scenario-wide one.
    let e = Scenario::from_toml_str(&format!("{base}[tcp]\nvegas_alpha = 3\n{flow}tcp = {{ vegas_beta = 2 }}\n")).expect_err("3 > 2");
    assert!(e.field.starts_with("flows[0].tcp.vegas_"), "{e}");
}

/// Time-weighted mean cwnd of flow 0 over [from, end] from the time series.
fn mean_cwnd(out: &crate::RunOutput, from: f64, end: f64) -> f64 {
    let ts = &out.timeseries;
    let (mut area, mut cur, mut last) = (0.0, None::<f64>, from);
    for i in 0..ts.time_s.len() {
        let t = ts.time_s[i].clamp(from, end);
        if let Some(c) = cur {
            area += c * (t - last);
        }
        if ts.time_s[i] <= end {
            cur = Some(ts.cwnd[i]);
            last = t;
        }
    }
    area += cur.unwrap_or(0.0) * (end - last);
    area / (end - from)
}

#[test]
fn four_hop_chain_delivers_with_a_small_window() {
    use crate::scenario::Scenario;
    let run = |variant: &str, seed: u64| {
        let toml = format!(
            "duration = 60.0\n[topology]\nkind = \"chain\"\nnodes = 5\nspacing = 200.0\n[tcp]\nvariant = \"{variant}\"\n\
             [[flows]]\nkind = \"ftp\"\nsrc = 0\ndst = 4\n"
        );
        crate::run(&Scenario::from_toml_str(&toml).unwrap(), seed)
    };
    for seed in 1..=3 {
        let v = run("vegas", seed);
        let r = run("new_reno", seed);
        let (f, g) = (&v.flows[0], &r.flows[0]);
        let (wv, wr) = (mean_cwnd(&v, 5.0, 60.0), mean_cwnd(&r, 5.0, 60.0));
        eprintln!(
            "seed {seed}: vegas {:.1} kbit/s, mean cwnd {wv:.2}, {} retransmissions, {} timeouts | \
             newreno {:.1} kbit/s, mean cwnd {wr:.2}, {} retransmissions, {} timeouts",
            f.throughput_kbps, f.retransmissions, f.timeouts, g.throughput_kbps, g.retransmissions, g.timeouts
        );
        assert_eq!(f.stream_errors, 0);
        // Vegas keeps α..β segments queued instead of filling the interface
        // queue: a window near the path's few segments, at about the same rate.
        assert!(wv <= 6.0 && wv < 0.75 * wr, "seed {seed}: mean cwnd {wv:.2} vs NewReno {wr:.2}");
        assert!(f.throughput_kbps >= 0.9 * g.throughput_kbps, "seed {seed}");
        assert!(f.retransmissions < g.retransmissions, "seed {seed}");
    }
}
