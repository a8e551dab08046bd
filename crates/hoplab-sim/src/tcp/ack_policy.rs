//! When the sink acknowledges: the receiver models of `[tcp] receiver`, and
//! the window it advertises (`[tcp] clamp`).
//!
//! The sink handles what every model shares (an immediate ACK for an
//! out-of-order segment, a duplicate, or one that fills a hole: RFC 5681
//! §4.2) and asks this state machine about every in-order segment, about the
//! delayed-ACK timer, and tells it of every ACK sent.
//!
//! - `ns2`: ns-2's `Agent/TCPSink/DelAck` — an ACK for every second
//!   in-order segment, or when a 100 ms timer started by the first one expires
//!   (RFC 1122 §4.2.3.2 allows up to 500 ms).
//! - `every`: an ACK for every segment (ns-2's plain `TCPSink`).
//! - `linux`: the receiver of seed 000's testbed (Linux 2.6.12), read from
//!   2.6-era `net/ipv4/tcp_input.c`, `tcp_output.c`, `tcp_timer.c` and
//!   `tcp.c`; each rule below cites its function. In short: quick ACKs at
//!   the start and after reordering or duplicates; otherwise an ACK once more
//!   than one full segment has arrived since the last ACK, or when the
//!   application's read opens the window to at least twice what was left of
//!   it (with a window clamped to two segments that is every segment: seed 000
//!   §4.1's finding); anything else waits for the adaptive delayed-ACK timer.
//!
//! What the Linux model leaves out, and why:
//! - The handshake. Linux bounds its timer by the RTT the receiver measured
//!   in the three-way handshake (timestamps are on by default in 2.6); hoplab
//!   has no handshake, so `Linux::new` takes that estimate as an argument. The
//!   sink passes a negligible one ([`HANDSHAKE_SRTT`]): on the testbed's 1-4
//!   hop chains a handshake takes a few milliseconds, below TCP_DELACK_MIN,
//!   so the timer is bounded by 40 ms and the receiver's RTO is TCP_RTO_MIN.
//! - Receive-window growth (`tcp_grow_window`: rcv_ssthresh rising from four
//!   segments, with a quick ACK at each step). The advertised window is the
//!   clamp from the first segment on: the application reads at once, and
//!   out-of-order segments are held outside the window (a receive buffer
//!   larger than the window, as Linux's default 87380 B is for a clamp of a
//!   few segments). Only the first few round trips differ.
//! - Interactive (pingpong) mode: the receiver sends no data, so it never
//!   enters it; nor a socket locked by the reader (`icsk_ack.blocked`).
//! - Jiffies: times are exact nanoseconds, not 1 ms ticks.

use super::TcpConfig;
use super::config::{TcpReceiver, WindowClamp};
use crate::time::{Dur, SimTime};

/// Linux 2.6 `include/net/tcp.h` with HZ = 1000 (2.6.12's default).
const TCP_ATO_MIN: Dur = Dur::from_millis(40); // HZ/25
const TCP_DELACK_MIN: Dur = Dur::from_millis(40); // HZ/25
const TCP_DELACK_MAX: Dur = Dur::from_millis(200); // HZ/5
/// `tcp_send_delayed_ack`: `max_ato = HZ/2` for full-sized segments.
const DELACK_MAX_FULL: Dur = Dur::from_millis(500);
const TCP_RTO_MIN: Dur = Dur::from_millis(200); // HZ/5
const TCP_TIMEOUT_INIT: Dur = Dur::from_millis(3000); // 3*HZ
const TCP_MAX_QUICKACKS: u32 = 16;
const TCP_MIN_RCVMSS: u32 = 536;
const TCP_MIN_MSS: u32 = 88;

/// The receiver's RTT estimate from the (unmodelled) handshake: negligible
/// against TCP_DELACK_MIN and TCP_RTO_MIN (module documentation).
pub const HANDSHAKE_SRTT: Option<Dur> = Some(Dur::ZERO);

impl TcpConfig {
    /// The receiver model in force: `delayed_ack = false` means `every`.
    pub fn receiver_model(&self) -> TcpReceiver {
        if self.delayed_ack {
            self.receiver
        } else {
            TcpReceiver::Every
        }
    }

    /// The window the receiver advertises, in bytes: its buffer
    /// (`receive_window`), or with `clamp = "receiver"` at most `max_cwnd`
    /// segments (Linux `TCP_WINDOW_CLAMP`, seed 000 §3).
    pub fn advertised_window(&self) -> u32 {
        match (self.clamp, self.max_cwnd) {
            (WindowClamp::Receiver, Some(m)) => {
                let clamp = (m as u64 * self.mss.max(1) as u64).min(u32::MAX as u64) as u32;
                self.receive_window.min(clamp)
            }
            _ => self.receive_window,
        }
    }

    /// The cap on the sender's cwnd: `max_cwnd` with `clamp = "sender"`
    /// (ns-2 `maxcwnd_`, Linux `snd_cwnd_clamp`), none with `"receiver"`.
    pub fn cwnd_clamp(&self) -> Option<u32> {
        match self.clamp {
            WindowClamp::Sender => self.max_cwnd.filter(|&m| m > 0),
            WindowClamp::Receiver => None,
        }
    }
}

/// The sink's ACK policy.
#[derive(Clone, Debug)]
pub enum AckPolicy {
    Every { window: u32 },
    Ns2(Ns2DelAck),
    Linux(Linux),
}

impl AckPolicy {
    pub fn new(cfg: &TcpConfig) -> AckPolicy {
        let window = cfg.advertised_window();
        match cfg.receiver_model() {
            TcpReceiver::Every => AckPolicy::Every { window },
            TcpReceiver::Ns2 => AckPolicy::Ns2(Ns2DelAck { window, timeout: cfg.delack_timeout, unacked: 0, deadline: None }),
            TcpReceiver::Linux => AckPolicy::Linux(Linux::new(window, cfg.mss, HANDSHAKE_SRTT)),
        }
    }

    /// An in-order segment of `len` bytes arrived and the application read
    /// it; `ooo_empty`: nothing is held out of order. True: ACK now.
    pub fn on_in_order(&mut self, now: SimTime, len: u32, ooo_empty: bool) -> bool {
        match self {
            AckPolicy::Every { .. } => true,
            AckPolicy::Ns2(p) => p.on_in_order(now),
            AckPolicy::Linux(p) => p.on_in_order(now, len, ooo_empty),
        }
    }

    /// An out-of-order segment arrived (the sink ACKs it at once).
    pub fn on_out_of_order(&mut self) {
        if let AckPolicy::Linux(p) = self {
            p.enter_quickack_mode(); // tcp_data_queue, out-of-order path
        }
    }

    /// A segment already received arrived again (the sink ACKs it at once).
    pub fn on_duplicate(&mut self) {
        if let AckPolicy::Linux(p) = self {
            p.enter_quickack_mode(); // tcp_data_queue: "A retransmit ... Force an immediate ack"
        }
    }

    /// The sink sent an ACK (any kind).
    pub fn on_ack_sent(&mut self) {
        match self {
            AckPolicy::Every { .. } => {}
            AckPolicy::Ns2(p) => {
                p.unacked = 0;
                p.deadline = None;
            }
            AckPolicy::Linux(p) => p.on_ack_sent(),
        }
    }

    /// The delayed-ACK timer may have expired. True: ACK now.
    pub fn on_timeout(&mut self, now: SimTime) -> bool {
        match self {
            AckPolicy::Every { .. } => false,
            // RFC 5681 §4.2: ACK within 500 ms (here delack_timeout)
            AckPolicy::Ns2(p) => p.deadline.is_some_and(|t| now >= t),
            AckPolicy::Linux(p) => p.on_timeout(now),
        }
    }

    /// When the delayed-ACK timer fires, if it is running.
    pub fn deadline(&self) -> Option<SimTime> {
        match self {
            AckPolicy::Every { .. } => None,
            AckPolicy::Ns2(p) => p.deadline,
            AckPolicy::Linux(p) => p.timer,
        }
    }

    /// The window to advertise in the next ACK, in bytes (RFC 9293 SEG.WND).
    pub fn window(&self) -> u32 {
        match self {
            AckPolicy::Every { window } => *window,
            AckPolicy::Ns2(p) => p.window,
            AckPolicy::Linux(p) => p.select_window(),
        }
    }
}

/// ns-2 `DelAckSink`: every second segment, or a fixed timer.
#[derive(Clone, Debug)]
pub struct Ns2DelAck {
    window: u32,
    timeout: Dur,
    /// In-order segments since the last ACK.
    unacked: u32,
    deadline: Option<SimTime>,
}

impl Ns2DelAck {
    fn on_in_order(&mut self, now: SimTime) -> bool {
        self.unacked += 1;
        if self.unacked >= 2 {
            return true; // RFC 1122 §4.2.3.2: every second full-sized segment
        }
        if self.deadline.is_none() {
            self.deadline = Some(now + self.timeout); // ns-2 DelAck timer
        }
        false
    }
}

/// The Linux 2.6 receiver's ACK state (`icsk_ack` and the window fields of
/// `tcp_sock`), in bytes.
#[derive(Clone, Debug)]
pub struct Linux {
    /// `window_clamp`: the largest window it advertises.
    window_clamp: u32,
    /// `tp->srtt` from the handshake, if any; and the receiver's `icsk_rto`.
    srtt: Option<Dur>,
    rto: Dur,
    /// `icsk_ack.rcv_mss`: its guess of the sender's MSS.
    rcv_mss: u32,
    last_seg_size: u32,
    /// `icsk_ack.quick`: quick ACKs left.
    quick: u32,
    /// `icsk_ack.ato`: the delayed-ACK timeout; zero before the first data.
    ato: Dur,
    /// `icsk_ack.lrcvtime`: when data last arrived.
    lrcvtime: SimTime,
    /// `ICSK_ACK_SCHED`: an ACK is owed.
    scheduled: bool,
    /// `ICSK_ACK_PUSHED` / `ICSK_ACK_PUSHED2`: short segments seen.
    pushed: bool,
    pushed2: bool,
    /// `ICSK_ACK_TIMER` with `icsk_ack.timeout`.
    timer: Option<SimTime>,
    /// `rcv_nxt - rcv_wup`: bytes received in order since the last ACK.
    since_ack: u64,
    /// `rcv_wnd`: the window the last ACK advertised.
    rcv_wnd: u32,
}

impl Linux {
    /// A receiver whose window is clamped at `window_clamp` bytes, for a
    /// sender announcing `mss`, with `srtt` from the handshake (`None`: no
    /// estimate, as without timestamps on a passive open).
    pub fn new(window_clamp: u32, mss: u32, srtt: Option<Dur>) -> Linux {
        let window_clamp = window_clamp.max(1);
        let mss = mss.max(1);
        // tcp_select_initial_window: a multiple of the MSS.
        let rcv_wnd = if window_clamp >= mss { window_clamp / mss * mss } else { window_clamp };
        // tcp_rtt_estimator, first sample m: rto = m + max(2m, TCP_RTO_MIN);
        // with no sample the RTO stays TCP_TIMEOUT_INIT.
        let rto = srtt.map_or(TCP_TIMEOUT_INIT, |m| m + (m + m).max(TCP_RTO_MIN));
        // tcp_initialize_rcv_mss
        let rcv_mss = mss.min(rcv_wnd / 2).clamp(TCP_MIN_MSS, TCP_MIN_RCVMSS);
        Linux {
            window_clamp,
            srtt,
            rto,
            rcv_mss,
            last_seg_size: 0,
            quick: 0,
            ato: Dur::ZERO,
            lrcvtime: SimTime::ZERO,
            scheduled: false,
            pushed: false,
            pushed2: false,
            timer: None,
            since_ack: 0,
            rcv_wnd,
        }
    }

    /// `__tcp_select_window`: the whole clamp is free (the application has
    /// read everything); the window offered stays as it is if it is within
    /// one rcv_mss of that, else it becomes the largest multiple of rcv_mss.
    fn select_window(&self) -> u32 {
        let mss = self.rcv_mss.min(self.window_clamp);
        let free = self.window_clamp;
        if self.rcv_wnd + mss <= free || self.rcv_wnd > free {
            free / mss * mss
        } else {
            self.rcv_wnd
        }
    }

    /// `tcp_measure_rcv_mss`. Our short segments are the last of a transfer
    /// and carry PSH, so Linux's rule for short segments without PSH is moot.
    fn measure_rcv_mss(&mut self, len: u32) {
        let lss = self.last_seg_size;
        self.last_seg_size = 0;
        if len >= self.rcv_mss {
            self.rcv_mss = len;
            return;
        }
        if len >= TCP_MIN_RCVMSS {
            self.last_seg_size = len;
            if len == lss {
                self.rcv_mss = len;
                return;
            }
        }
        self.pushed2 |= self.pushed;
        self.pushed = true;
    }

    /// `tcp_incr_quickack`: about half a window's worth of quick ACKs.
    fn incr_quickack(&mut self) {
        let mut q = self.rcv_wnd / (2 * self.rcv_mss);
        if q == 0 {
            q = 2;
        }
        if q > self.quick {
            self.quick = q.min(TCP_MAX_QUICKACKS);
        }
    }

    /// `tcp_enter_quickack_mode`.
    fn enter_quickack_mode(&mut self) {
        self.incr_quickack();
        self.ato = TCP_ATO_MIN;
    }

    /// An in-order segment of `len` bytes arrived and was read; true: ACK now.
    pub fn on_in_order(&mut self, now: SimTime, len: u32, ooo_empty: bool) -> bool {
        // tcp_event_data_recv
        self.scheduled = true;
        self.measure_rcv_mss(len);
        if self.ato == Dur::ZERO {
            self.incr_quickack(); // the first data segment
            self.ato = TCP_ATO_MIN;
        } else {
            let m = now.since(self.lrcvtime);
            if m <= Dur(TCP_ATO_MIN.0 / 2) {
                self.ato = Dur(self.ato.0 / 2) + Dur(TCP_ATO_MIN.0 / 2);
            } else if m < self.ato {
                self.ato = (Dur(self.ato.0 / 2) + m).min(self.rto);
            } else if m > self.rto {
                self.incr_quickack(); // "Too long gap": the sender restarts
            }
        }
        self.lrcvtime = now;
        self.since_ack += len as u64;

        // __tcp_ack_snd_check (out-of-order data is the sink's business)
        let more_than_a_segment = self.since_ack > self.rcv_mss as u64;
        if (more_than_a_segment && self.select_window() >= self.rcv_wnd) || self.quick > 0 {
            return true;
        }
        if self.send_delayed_ack(now) {
            return true;
        }

        // tcp_cleanup_rbuf: the application reads the segment at once.
        if self.scheduled && (more_than_a_segment || ((self.pushed2 || self.pushed) && ooo_empty)) {
            return true;
        }
        // "We send an ACK if we can now advertise a non-zero window which has
        // been raised significantly": at least twice what is left of it.
        let left = (self.rcv_wnd as u64).saturating_sub(self.since_ack);
        if 2 * left <= self.window_clamp as u64 {
            let new = self.select_window() as u64;
            if new > 0 && new >= 2 * left {
                return true;
            }
        }
        false
    }

    /// `tcp_send_delayed_ack`: arm the timer; true if the ACK must go now.
    fn send_delayed_ack(&mut self, now: SimTime) -> bool {
        let mut ato = self.ato;
        if ato > TCP_DELACK_MIN {
            let mut max_ato = if self.pushed { TCP_DELACK_MAX } else { DELACK_MAX_FULL };
            if let Some(srtt) = self.srtt {
                max_ato = max_ato.min(srtt.max(TCP_DELACK_MIN));
            }
            ato = ato.min(max_ato);
        }
        let mut timeout = now + ato;
        if let Some(old) = self.timer {
            // "If delack timer ... is about to expire, send ACK now."
            if old <= now + Dur(ato.0 / 4) {
                return true;
            }
            timeout = timeout.min(old); // keep the earlier deadline
        }
        self.scheduled = true;
        self.timer = Some(timeout);
        false
    }

    /// `tcp_event_ack_sent`: `tcp_dec_quickack_mode`, the timer and pending
    /// flags cleared; `tcp_select_window`: rcv_wup = rcv_nxt.
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            if self.quick <= 1 {
                self.quick = 0;
                self.ato = TCP_ATO_MIN; // "Leaving quickack mode we deflate ATO"
            } else {
                self.quick -= 1;
            }
        }
        self.scheduled = false;
        self.pushed = false;
        self.pushed2 = false;
        self.timer = None;
        self.since_ack = 0;
        self.rcv_wnd = self.select_window();
    }

    /// `tcp_delack_timer`: "Delayed ACK missed: inflate ATO", then ACK.
    pub fn on_timeout(&mut self, now: SimTime) -> bool {
        match self.timer {
            Some(t) if now >= t => {}
            _ => return false,
        }
        self.timer = None;
        if !self.scheduled {
            return false;
        }
        self.ato = (self.ato + self.ato).min(self.rto);
        true
    }

    /// When the delayed-ACK timer fires, if it is armed.
    #[cfg(test)]
    pub fn deadline(&self) -> Option<SimTime> {
        self.timer
    }
    /// Quick ACKs left (for tests).
    #[allow(dead_code)]
    pub fn quick(&self) -> u32 {
        self.quick
    }
    /// The current delayed-ACK timeout before its bounds (for tests).
    #[cfg(test)]
    pub fn ato(&self) -> Dur {
        self.ato
    }
}
