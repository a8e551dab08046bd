//! SACK: the sink's RFC 2018 blocks, the RFC 6675 scoreboard, and the
//! sender's pipe-driven loss recovery against NewReno's one hole per RTT.

use super::support::{ack, cfg, data, drain, ms, sender_with_outstanding, seqnos, Lcg, Pair};
use crate::tcp::scoreboard::{NextSeg, Scoreboard};
use crate::tcp::{TcpSender, TcpSink, Variant};
use crate::time::{Dur, SimTime};
use crate::wire::{SackBlocks, TcpSegment, TCP_HEADER};

fn blocks(b: &[(u64, u64)]) -> SackBlocks {
    let mut out = SackBlocks::default();
    for &(s, e) in b {
        assert!(out.push(s, e));
    }
    out
}

/// A duplicate-or-new ACK carrying SACK blocks, as the SACK sink sends it.
fn sack_ack(ackno: u64, b: &[(u64, u64)]) -> TcpSegment {
    let sack = blocks(b);
    TcpSegment { options: sack.option_bytes(), sack, ..ack(ackno) }
}

/// Feed `seqnos` to a SACK sink that ACKs every segment; the ACKs it sends.
fn sink_acks(sink: &mut TcpSink, seqnos: &[u64]) -> Vec<TcpSegment> {
    let mut out = Vec::new();
    for &s in seqnos {
        sink.handle_segment(ms(1), &data(s));
        while let Some(a) = sink.poll_transmit(ms(1)) {
            out.push(a);
        }
    }
    out
}

// ---- sink: block generation (RFC 2018 §4) ----

#[test]
fn sink_reports_newest_block_first_and_at_most_three() {
    let mut sink = TcpSink::new(0, &cfg(Variant::Sack, 3));
    let acks = sink_acks(&mut sink, &[0, 2, 4, 6, 8]);
    let got: Vec<(u64, Vec<(u64, u64)>)> = acks.iter().map(|a| (a.ackno, a.sack.as_slice().to_vec())).collect();
    assert_eq!(
        got,
        vec![
            (1, vec![]),
            (1, vec![(2, 3)]),
            (1, vec![(4, 5), (2, 3)]),
            (1, vec![(6, 7), (4, 5), (2, 3)]),
            (1, vec![(8, 9), (6, 7), (4, 5)]), // the oldest block falls off
        ]
    );
    // Option bytes: two NOPs + kind + length + 8 per block; none without blocks.
    let opts: Vec<u16> = acks.iter().map(|a| a.options).collect();
    assert_eq!(opts, vec![0, 12, 20, 28, 28]);
    assert_eq!(acks[3].size(), TCP_HEADER + 28, "the options grow the ACK on the wire");
}

#[test]
fn sink_first_block_holds_the_trigger_and_blocks_merge() {
    let mut sink = TcpSink::new(0, &cfg(Variant::Sack, 3));
    sink_acks(&mut sink, &[0, 2, 4, 6, 8]);
    // 3 joins 2 and 4: its block [2, 5) comes first, the newest others follow.
    let a = sink_acks(&mut sink, &[3]);
    assert_eq!(a[0].sack.as_slice(), &[(2, 5), (8, 9), (6, 7)]);
    // 1 advances the cumulative ACK past [2, 5), which is no longer reported;
    // the first block is not required as 1 advanced the ACK.
    let a = sink_acks(&mut sink, &[1]);
    assert_eq!(a[0].ackno, 5);
    assert_eq!(a[0].sack.as_slice(), &[(8, 9), (6, 7)]);
    // 5 and 7 close every hole: a plain cumulative ACK.
    let a = sink_acks(&mut sink, &[5, 7]);
    assert_eq!(a.last().unwrap().ackno, 9);
    assert!(a.last().unwrap().sack.is_empty());
    assert_eq!(a.last().unwrap().options, 0);
    assert_eq!(sink.stats().stream_errors, 0);
}

#[test]
fn sink_reports_a_duplicate_above_the_ack_and_delayed_acks_carry_blocks() {
    let mut c = cfg(Variant::Sack, 3);
    c.delayed_ack = true;
    let mut sink = TcpSink::new(0, &c);
    let a = sink_acks(&mut sink, &[0, 1, 3, 5, 3]);
    // 0, 1: one delayed ACK; 3, 5: immediate dup ACKs; 3 again: duplicate, its block first.
    let got: Vec<(u64, Vec<(u64, u64)>)> = a.iter().map(|a| (a.ackno, a.sack.as_slice().to_vec())).collect();
    assert_eq!(got, vec![(2, vec![]), (2, vec![(3, 4)]), (2, vec![(5, 6), (3, 4)]), (2, vec![(3, 4), (5, 6)])]);
}

#[test]
fn non_sack_sink_sends_no_blocks() {
    let mut sink = TcpSink::new(0, &cfg(Variant::NewReno, 3));
    let acks = sink_acks(&mut sink, &[0, 2, 4]);
    assert!(acks.iter().all(|a| a.sack.is_empty() && a.options == 0));
}

// ---- scoreboard (RFC 6675 §4) ----

#[test]
fn scoreboard_update_reports_only_new_sack_information() {
    let mut sb = Scoreboard::new(3);
    assert!(sb.update(0, &blocks(&[(2, 4)]), 10));
    assert!(!sb.update(0, &blocks(&[(2, 4)]), 10), "same blocks again: not a DupAck (RFC 6675 §2 (b))");
    assert!(sb.update(0, &blocks(&[(3, 5)]), 10), "4 is new");
    assert!(!sb.update(0, &blocks(&[(12, 14)]), 10), "beyond what was sent: ignored");
    assert_eq!(sb.high_sacked(), Some(4));
    assert!(sb.is_sacked(2) && sb.is_sacked(4) && !sb.is_sacked(1) && !sb.is_sacked(5));
    // The cumulative ACK moves the base; bits below it are gone.
    sb.update(3, &SackBlocks::default(), 10);
    assert!(!sb.is_sacked(2) && sb.is_sacked(3) && sb.is_sacked(4));
    sb.clear();
    assert_eq!(sb.high_sacked(), None);
}

#[test]
fn scoreboard_is_lost_needs_dupthresh_sacked_segments_above() {
    let mut sb = Scoreboard::new(3);
    sb.update(0, &blocks(&[(1, 3), (5, 6)]), 10); // SACKed 1, 2, 5
    assert!(sb.is_lost(0), "three SACKed above 0");
    assert!(!sb.is_lost(3), "only 5 above 3");
    assert!(!sb.is_lost(4));
    sb.update(0, &blocks(&[(7, 9)]), 10); // + 7, 8
    assert!(sb.is_lost(3) && sb.is_lost(4) && !sb.is_lost(6));
}

#[test]
fn scoreboard_pipe_counts_unsacked_not_lost_and_retransmitted() {
    // 0..10 sent; 1, 2, 5 SACKed: 0 is lost (3 above), 3 and 4 are not (1 above).
    let mut sb = Scoreboard::new(3);
    sb.update(0, &blocks(&[(1, 3), (5, 6)]), 10);
    // Unsacked: 0 (lost), 3, 4, 6, 7, 8, 9 (not lost): pipe 6.
    assert_eq!(sb.pipe(10), 6);
    sb.enter_recovery(0); // 0 retransmitted: counts once more (SetPipe (b))
    assert_eq!(sb.pipe(10), 7);
}

#[test]
fn scoreboard_next_seg_rules() {
    // 0..10 sent; SACKed 1, 2, 4, 5, 7: holes 0, 3, 6.
    let mut sb = Scoreboard::new(3);
    sb.update(0, &blocks(&[(1, 3), (4, 6), (7, 8)]), 10);
    sb.enter_recovery(0);
    // Rule 1: 3 is the smallest hole above HighRxt = 0 and has 3 SACKed above.
    assert_eq!(sb.next_seg(true), Some(NextSeg::Retransmit(3)));
    assert_eq!(sb.high_rxt(), Some(3));
    // 6 has only 7 above: not lost, so rule 2 (new data) comes first...
    assert_eq!(sb.next_seg(true), Some(NextSeg::NewData));
    // ...and without new data to send, rule 3 retransmits it anyway.
    assert_eq!(sb.next_seg(false), Some(NextSeg::Retransmit(6)));
    // Nothing unSACKed below the highest SACKed segment is left.
    assert_eq!(sb.next_seg(false), None);
    assert_eq!(sb.next_seg(true), Some(NextSeg::NewData));
}

// ---- sender ----

#[test]
fn sack_enters_recovery_at_third_dupack_halving_without_inflation() {
    let mut s = sender_with_outstanding(Variant::Sack, 10);
    // 0 lost; 1, 2 arrive: two dup ACKs with growing blocks.
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 2)]));
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 3)]));
    assert!(drain(&mut s, ms(100)).is_empty() && !s.in_recovery());
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 4)]));
    let out = drain(&mut s, ms(100));
    assert_eq!(seqnos(&out), vec![0], "the first hole; then pipe 7 >= cwnd 5");
    assert!(out[0].retransmit);
    assert!(s.in_recovery());
    assert_eq!((s.ssthresh(), s.cwnd()), (5.0, 5.0), "RFC 6675 (4.2): cwnd = ssthresh = FlightSize/2");
    // Each further SACKed arrival lowers the pipe by one; cwnd stays 5.
    // pipe = 0 (retransmitted) + 4..9 not lost (6) = 7 > 5: 4 and 5 arrive first.
    s.handle_ack(ms(101), &sack_ack(0, &[(1, 5)]));
    s.handle_ack(ms(102), &sack_ack(0, &[(1, 6)]));
    assert!(drain(&mut s, ms(102)).is_empty());
    s.handle_ack(ms(103), &sack_ack(0, &[(1, 7)]));
    assert_eq!(seqnos(&drain(&mut s, ms(103))), vec![10], "pipe 4 < 5: new data (rule 2)");
    assert_eq!(s.cwnd(), 5.0);
    // The retransmitted 0 arrives: ACK 7 is partial (RecoveryPoint = 9).
    s.handle_ack(ms(200), &sack_ack(7, &[]));
    assert!(s.in_recovery());
    s.handle_ack(ms(210), &sack_ack(11, &[]));
    assert!(!s.in_recovery(), "cumulative ACK beyond RecoveryPoint ends recovery");
    assert_eq!(s.cwnd(), 5.0);
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn sack_dupack_without_new_information_is_not_counted() {
    let mut s = sender_with_outstanding(Variant::Sack, 10);
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 2)]));
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 2)])); // e.g. a duplicate segment's ACK
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 2)]));
    assert_eq!(s.dupacks(), 1);
    assert!(!s.in_recovery());
}

#[test]
fn sack_enters_recovery_when_islost_before_three_dupacks() {
    // ACKs lost: the first dup ACK to arrive already SACKs 1..4, so
    // IsLost(HighACK + 1) holds (RFC 6675 §5 (2.b)).
    let mut s = sender_with_outstanding(Variant::Sack, 10);
    s.handle_ack(ms(100), &sack_ack(0, &[(1, 4)]));
    assert_eq!(s.dupacks(), 1);
    assert!(s.in_recovery());
    assert_eq!(seqnos(&drain(&mut s, ms(100))), vec![0]);
}

#[test]
fn sack_timeout_forgets_the_scoreboard_and_goes_back_n() {
    let mut s = sender_with_outstanding(Variant::Sack, 6);
    s.handle_ack(ms(100), &sack_ack(0, &[(2, 3)]));
    let t = s.poll_timeout().unwrap();
    s.handle_timeout(t);
    assert_eq!(s.cwnd(), 1.0);
    assert!(!s.in_recovery());
    // Go-back-N from snd_una as ns-2 Sack1 (its scoreboard is cleared).
    assert_eq!(seqnos(&drain(&mut s, t)), vec![0]);
    s.handle_ack(t + Dur::from_millis(50), &sack_ack(1, &[]));
    assert_eq!(seqnos(&drain(&mut s, t + Dur::from_millis(50))), vec![1, 2], "2 is re-sent though once SACKed");
}

/// A 20-segment window (initial cwnd 20, 40 segments in all) over a pipe
/// of 10 ms each way and 1 ms per data segment; the first transmission of
/// each of `lost` is dropped. Returns the pair after the transfer, the
/// times and segments of all retransmissions, and when the sink had every
/// segment up to the last lost one (the window repaired).
fn lossy_window(variant: Variant, lost: &'static [u64]) -> (Pair, Vec<(SimTime, u64)>, SimTime) {
    let mut p = Pair::new(&cfg(variant, 20), Some(1460 * 40), Dur::from_millis(10));
    p.data_tx = Dur::from_millis(1);
    p.drop_data = Box::new(move |seg| !seg.retransmit && lost.contains(&seg.seqno));
    let last = *lost.last().unwrap();
    let mut repaired = None;
    while !p.sender.is_done() {
        assert!(p.now < SimTime::from_secs_f64(60.0) && p.step(), "{variant:?} did not finish");
        if repaired.is_none() && p.sink.rcv_nxt() > last {
            repaired = Some(p.now);
        }
    }
    let rtx: Vec<(SimTime, u64)> = p.sent.iter().filter(|(_, s)| s.retransmit).map(|(t, s)| (*t, s.seqno)).collect();
    (p, rtx, repaired.unwrap())
}

#[track_caller]
fn check_one_rtt(lost: &'static [u64]) {
    // RTT of a data segment and its ACK: 1 ms serialisation + 2 x 10 ms.
    let rtt = Dur::from_millis(21);
    let (sack, rtx, repaired) = lossy_window(Variant::Sack, lost);
    let t0 = rtx[0].0;
    assert_eq!(sack.sender.stats().timeouts, 0);
    assert_eq!(sack.sender.stats().fast_retransmits, 1, "one recovery episode");
    assert_eq!(rtx.iter().map(|r| r.1).collect::<Vec<_>>(), lost.to_vec(), "each hole once, in order");
    // Every hole goes out before the first retransmission can be ACKed, and
    // the sink holds the whole window one RTT after the first retransmission.
    assert!(rtx.iter().all(|&(t, _)| t < t0 + rtt), "SACK retransmissions {rtx:?}");
    let k = lost.len() as u64;
    // One RTT, plus the serialisation of retransmissions sent back to back.
    let one_rtt = t0 + rtt + Dur(Dur::from_millis(1).0 * (k - 1));
    assert!(repaired <= one_rtt, "SACK repaired at {repaired}, first retransmission at {t0}");
    assert_eq!(sack.sink.stats().stream_errors, 0);

    let (newreno, nrtx, nrepaired) = lossy_window(Variant::NewReno, lost);
    let n0 = nrtx[0].0;
    assert_eq!(newreno.sender.stats().timeouts, 0);
    assert_eq!(nrtx.iter().map(|r| r.1).collect::<Vec<_>>(), lost.to_vec());
    // NewReno learns of hole k only from the partial ACK of hole k - 1: one RTT each.
    for (k, &(t, _)) in nrtx.iter().enumerate() {
        assert!(t >= n0 + Dur(rtt.0 * k as u64), "NewReno retransmission {k} at {t}, first at {n0}: {nrtx:?}");
    }
    // ...and the last hole reaches the sink a one-way trip after that.
    let one_way = Dur::from_millis(11);
    assert!(nrepaired >= n0 + Dur(rtt.0 * (k - 1)) + one_way, "NewReno repaired at {nrepaired}, first retransmission at {n0}");
    eprintln!("{lost:?}: SACK repaired {:.1} ms after its first retransmission, NewReno {:.1} ms",
        repaired.since(t0).as_secs_f64() * 1e3, nrepaired.since(n0).as_secs_f64() * 1e3);
}

#[test]
fn sack_repairs_two_losses_in_one_rtt_newreno_takes_two() {
    check_one_rtt(&[3, 8]);
}

#[test]
fn sack_repairs_three_losses_in_one_rtt_newreno_takes_three() {
    check_one_rtt(&[2, 7, 12]);
}

#[test]
fn sack_lossy_transfer_completes_in_order_within_the_clamp() {
    let mut c = cfg(Variant::Sack, 3);
    c.delayed_ack = true;
    c.max_cwnd = Some(8);
    let mut p = Pair::new(&c, Some(1460 * 800 + 11), Dur::from_millis(10));
    p.data_tx = Dur::from_millis(2);
    let mut rng = Lcg(0x5ac4);
    p.drop_data = Box::new(move |_| rng.chance(0.05));
    let mut rng2 = Lcg(0xac4);
    p.drop_ack = Box::new(move |_| rng2.chance(0.05));
    assert!(p.run_until_done(SimTime::from_secs_f64(10_000.0)));
    assert_eq!(p.sink.stats().bytes_delivered, 1460 * 800 + 11);
    assert_eq!(p.sink.stats().stream_errors, 0);
    assert!(p.max_flight <= 8, "the Pair also asserts the clamp at every send");
    assert!(p.sender.stats().fast_retransmits > 0);
}

#[test]
fn sack_sender_unused_for_other_variants() {
    // A NewReno sender ignores SACK blocks: three dup ACKs with blocks act as plain ones.
    let mut s: TcpSender = sender_with_outstanding(Variant::NewReno, 10);
    for i in 1..=3 {
        s.handle_ack(ms(100), &sack_ack(0, &[(1, 1 + i)]));
    }
    assert_eq!(s.cwnd(), 8.0, "NewReno: ssthresh 5 + 3");
}
