//! The IEEE 802.11 Distributed Coordination Function (802.11-1999 §9.2) as a
//! sans-IO state machine: inputs are medium changes, received frames, the end
//! of our own transmissions and timer expiries; outputs are `MacEvent`s and
//! four timer deadlines (`timers()`), which the node turns into events.

use crate::phy::PhyTiming;
use crate::rng::Stream;
use crate::time::{Dur, SimTime};
use crate::wire::{Frame, FrameKind, NodeId, Packet, PacketType, BROADCAST};

/// The DCF's timers, indices into `timers()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacTimer {
    /// DIFS/EIFS deferral plus backoff countdown completes.
    Access = 0,
    /// CTS or ACK did not arrive.
    Timeout = 1,
    /// SIFS before a CTS, DATA or ACK.
    Sifs = 2,
    /// The NAV expires.
    Nav = 3,
}
pub const MAC_TIMERS: usize = 4;
const ALL_TIMERS: [MacTimer; MAC_TIMERS] = [MacTimer::Access, MacTimer::Timeout, MacTimer::Sifs, MacTimer::Nav];

impl MacTimer {
    pub fn from_index(i: usize) -> MacTimer {
        ALL_TIMERS[i]
    }
}

/// Resolved DCF parameters.
#[derive(Clone, Debug)]
pub struct MacConfig {
    pub phy: PhyTiming,
    pub slot: Dur,
    pub sifs: Dur,
    pub rts_threshold: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// §9.2.5.4 NAV reset after an RTS that is not followed by a frame.
    pub nav_reset: bool,
    /// ns-2: a frame arriving at an idle medium also backs off.
    pub idle_backoff: bool,
    /// ns-2 `bugFix_timer_ false`: that wait is a defer timer that does not
    /// pause (with `idle_backoff`).
    pub idle_defer: bool,
    /// ns-2: the CTS and the DATA after a CTS need an idle medium at SIFS.
    pub cts_needs_idle: bool,
    /// ns-2: a captured frame sets the NAV to EIFS + its airtime.
    pub capture_nav: bool,
    /// ns-2: a reception error sets the NAV to EIFS (then DIFS).
    pub eifs_nav: bool,
    /// ns-2: RTS when the frame with PLCP and 34-byte header reaches the threshold.
    pub rts_ns2_basis: bool,
    /// DATA header bytes beyond the standard's 24 (ns-2: 6 more).
    pub data_header_extra: u32,
}

impl MacConfig {
    pub fn from_scenario(m: &super::config::Mac) -> MacConfig {
        MacConfig {
            phy: PhyTiming::new(m.preamble, m.data_rate_mbps, m.basic_rate_mbps),
            slot: Dur::from_micros(m.slot_us as u64),
            sifs: Dur::from_micros(m.sifs_us as u64),
            rts_threshold: m.rts_threshold,
            short_retry_limit: m.short_retry_limit,
            long_retry_limit: m.long_retry_limit,
            cw_min: m.cw_min,
            cw_max: m.cw_max,
            nav_reset: m.nav_reset,
            idle_backoff: m.idle_backoff,
            idle_defer: m.idle_defer && m.idle_backoff,
            cts_needs_idle: m.cts_needs_idle,
            capture_nav: m.capture_nav,
            eifs_nav: m.eifs_nav,
            rts_ns2_basis: m.rts_threshold_basis == super::config::RtsThresholdBasis::Ns2,
            data_header_extra: m.data_header_bytes.saturating_sub(24),
        }
    }
    /// DIFS = SIFS + 2 slots (§9.2.10).
    pub fn difs(&self) -> Dur {
        self.sifs + self.slot.mul(2)
    }
    /// Airtime of a control frame (RTS, CTS, ACK) at the basic rate.
    pub fn ctrl_time(&self, bytes: u32) -> Dur {
        self.phy.airtime(bytes, self.phy.basic_rate_bps)
    }
    pub fn data_time(&self, bytes: u32) -> Dur {
        self.phy.airtime(bytes, self.phy.data_rate_bps)
    }
    /// The MPDU that carries an IP packet of `packet_bytes`: the header and
    /// FCS (24 B header, or ns-2's 30 with `data_header_bytes`) and the packet.
    pub fn data_mpdu(&self, packet_bytes: u32) -> u32 {
        crate::wire::DATA_OVERHEAD_BYTES + self.data_header_extra + packet_bytes
    }
    /// EIFS = SIFS + ACK airtime at the lowest rate + DIFS (§9.2.10).
    pub fn eifs(&self) -> Dur {
        self.sifs + self.ctrl_time(crate::wire::ACK_BYTES) + self.difs()
    }
}

/// A response due after SIFS: what its frame is built from then.
#[derive(Clone, Copy, Debug)]
enum Reply {
    Cts { to: NodeId, duration_us: u32 },
    Ack { to: NodeId },
    /// Our DATA frame, after the receiver's CTS.
    Data,
}

impl Reply {
    fn kind(self) -> FrameKind {
        match self {
            Reply::Cts { .. } => FrameKind::Cts,
            Reply::Ack { .. } => FrameKind::Ack,
            Reply::Data => FrameKind::Data,
        }
    }
}

/// What the DCF asks of the node.
#[derive(Debug)]
pub enum MacEvent {
    /// Put the frame `Dcf::tx_frame` holds on the air now.
    Transmit,
    /// A data frame for us (or broadcast) arrived: hand its packet to IP.
    Deliver { from: NodeId, packet: Packet },
    /// The current packet (`uid`) reached `next_hop` (or was broadcast).
    TxOk { next_hop: NodeId, uid: u64 },
    /// Retries exhausted: link-layer failure feedback for routing.
    TxFailed { next_hop: NodeId, packet: Packet },
    /// A received duplicate was discarded (ns-2 drop code DUP).
    Duplicate { ptype: PacketType },
    /// Promiscuous mode: a unicast data frame from `from` to `to`, not for us.
    Overheard { from: NodeId, to: NodeId, packet: Packet },
    /// A CTS was not sent because the medium was busy when it was due
    /// (`cts_needs_idle`; ns-2 drop code BSY).
    Withheld,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MacStats {
    pub frames_sent: u64,
    pub data_sent: u64,
    pub retransmissions: u64,
    pub retry_drops: u64,
    /// CTSs withheld because the medium was busy (`cts_needs_idle`).
    pub cts_withheld: u64,
    /// DATA frames withheld after a CTS because the medium was busy.
    pub data_withheld: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No exchange of ours under way (a backoff may be pending).
    Idle,
    TxRts,
    WaitCts,
    /// CTS received; DATA goes out after SIFS.
    SifsData,
    TxData,
    WaitAck,
}

struct Outgoing {
    packet: Packet,
    next_hop: NodeId,
    seq: u16,
    use_rts: bool,
    short_retries: u32,
    long_retries: u32,
    retry: bool,
}

pub struct Dcf {
    /// Pass unicast data frames addressed to others up (DSR snooping).
    pub promiscuous: bool,
    cfg: MacConfig,
    addr: NodeId,
    rng: Stream,
    difs: Dur,
    eifs: Dur,
    cts_time: Dur,
    ack_time: Dur,
    // Medium state (§9.2.1: physical and virtual carrier sense).
    phy_busy: bool,
    nav_until: SimTime,
    /// When the NAV was last set from an overheard RTS and `nav_reset` is
    /// on: the end of the window in which a frame must start (§9.2.5.4).
    nav_reset_at: Option<SimTime>,
    medium_idle: bool,
    idle_since: SimTime,
    use_eifs: bool,
    // Access (§9.2.5).
    backoff: Option<u32>,
    /// `idle_defer`: ns-2's mhDefer_ running for DIFS + k slots; it fires
    /// the Access timer at this instant whatever the medium does meanwhile.
    defer: Option<SimTime>,
    /// `idle_defer`: a frame waits for the exchange under way (our CTS or
    /// ACK) to end before its defer starts (ns-2 tx_resume).
    defer_pending: bool,
    cw: u32,
    phase: Phase,
    cur: Option<Outgoing>,
    /// A response to send after SIFS (CTS, ACK, or our DATA after a CTS),
    /// its frame built when it goes out (no frame copied in and out here).
    sifs_reply: Option<Reply>,
    /// What our ongoing transmission is.
    on_air: Option<FrameKind>,
    /// The frame of the last `Transmit`, until the node moves it onto the
    /// air (`tx_frame_slot`): a frame moves once, from here into the table
    /// of frames on the air, not through the output queue as well.
    tx_frame: Option<Frame>,
    next_seq: u16,
    /// Last sequence number seen from each transmitter (§9.2.9).
    dup_cache: Vec<(NodeId, u16)>,
    /// Deadlines by `MacTimer`; `SimTime::MAX` when unarmed (not `Option`:
    /// the node compares all four after every event).
    timers: [SimTime; MAC_TIMERS],
    /// Bit `i`: timer `i` was written with a new deadline since the node
    /// last took these bits (`take_changed_timers`), so the node re-arms
    /// only those instead of comparing all four after every event.
    changed: u8,
    out: Vec<MacEvent>,
    pub stats: MacStats,
}

/// ns-2 PHY_MIB::getHdrLen11(): 24 bytes of PLCP (192 bits) + the 30-byte
/// four-address header + 4-byte FCS.
const NS2_HDR_LEN11: u32 = 58;

/// ns-2's `usec()`: a duration rounded to the nearest microsecond.
fn dur_us_round(d: Dur) -> Dur {
    Dur::from_micros((d.0 + 500) / 1000)
}

fn dur_us_ceil(d: Dur) -> u32 {
    d.0.div_ceil(1000) as u32
}

impl Dcf {
    pub fn new(addr: NodeId, cfg: MacConfig, rng: Stream) -> Dcf {
        Dcf {
            promiscuous: false,
            difs: cfg.difs(),
            eifs: cfg.eifs(),
            cts_time: cfg.ctrl_time(crate::wire::CTS_BYTES),
            ack_time: cfg.ctrl_time(crate::wire::ACK_BYTES),
            cw: cfg.cw_min,
            cfg,
            addr,
            rng,
            phy_busy: false,
            nav_until: SimTime::ZERO,
            nav_reset_at: None,
            medium_idle: true,
            idle_since: SimTime::ZERO,
            use_eifs: false,
            backoff: None,
            defer: None,
            defer_pending: false,
            phase: Phase::Idle,
            cur: None,
            sifs_reply: None,
            on_air: None,
            tx_frame: None,
            next_seq: 0,
            dup_cache: Vec::new(),
            timers: [SimTime::MAX; MAC_TIMERS],
            changed: 0,
            out: Vec::new(),
            stats: MacStats::default(),
        }
    }

    /// Airtime of a frame we send: control frames at the basic rate, data
    /// frames at the data rate (§9.6).
    pub fn airtime(&self, f: &Frame) -> Dur {
        match f.kind {
            FrameKind::Data => self.cfg.data_time(f.bytes() + self.cfg.data_header_extra),
            _ => self.cfg.ctrl_time(f.bytes()),
        }
    }

    /// Timer deadlines, indexed by `MacTimer as usize` (the MAC tests' view).
    #[cfg(test)]
    pub fn timers(&self) -> [Option<SimTime>; MAC_TIMERS] {
        self.timers.map(|t| (t != SimTime::MAX).then_some(t))
    }

    /// The same, `SimTime::MAX` for an unarmed timer.
    #[inline]
    pub fn deadlines(&self) -> &[SimTime; MAC_TIMERS] {
        &self.timers
    }

    /// Whether a deadline changed since `take_changed_timers`.
    #[inline]
    pub fn timers_changed(&self) -> bool {
        self.changed != 0
    }

    /// The timers whose deadlines changed (bit `MacTimer as usize`), and
    /// forget them.
    #[inline]
    pub fn take_changed_timers(&mut self) -> u8 {
        std::mem::take(&mut self.changed)
    }

    #[inline(always)]
    fn set_timer(&mut self, t: MacTimer, at: SimTime) {
        let slot = &mut self.timers[t as usize];
        if *slot != at {
            *slot = at;
            self.changed |= 1 << t as u8;
        }
    }

    /// Outputs produced since the last call, oldest first.
    #[cfg(test)]
    pub fn take_events(&mut self) -> std::vec::Drain<'_, MacEvent> {
        self.out.drain(..)
    }

    /// Hand over the outputs by swapping buffers with `empty` (no copy of
    /// the events, which carry whole frames).
    pub fn swap_events(&mut self, empty: &mut Vec<MacEvent>) {
        debug_assert!(empty.is_empty());
        std::mem::swap(&mut self.out, empty);
    }

    /// The frame of the pending `MacEvent::Transmit`.
    pub fn tx_frame(&self) -> Option<&Frame> {
        self.tx_frame.as_ref()
    }

    /// Where that frame waits: the node takes it from here.
    pub fn tx_frame_slot(&mut self) -> &mut Option<Frame> {
        &mut self.tx_frame
    }

    pub fn has_events(&self) -> bool {
        !self.out.is_empty()
    }

    /// The MAC holds no packet and will take the next one from the queue.
    pub fn is_ready(&self) -> bool {
        self.cur.is_none()
    }

    fn draw_backoff(&mut self) -> u32 {
        self.rng.below_incl(self.cw)
    }

    /// Accept a packet for `next_hop` (only when `is_ready()`).
    pub fn enqueue(&mut self, now: SimTime, packet: Packet, next_hop: NodeId) {
        debug_assert!(self.cur.is_none());
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) & 0x0fff;
        // §9.2: RTS/CTS for unicast MPDUs longer than dot11RTSThreshold.
        let mpdu = self.cfg.data_mpdu(packet.size());
        let long = if self.cfg.rts_ns2_basis {
            // ns-2 Mac802_11::sendRTS: no RTS if `ch->size() < RTSThreshold_`,
            // the size counting getHdrLen11() (24 B PLCP + 34 B header + FCS).
            packet.size() + NS2_HDR_LEN11 >= self.cfg.rts_threshold
        } else {
            mpdu > self.cfg.rts_threshold
        };
        let use_rts = next_hop != BROADCAST && long;
        self.cur = Some(Outgoing { packet, next_hop, seq, use_rts, short_retries: 0, long_retries: 0, retry: false });
        self.stats.data_sent += 1;
        // §9.2.5.1: a frame arriving at a busy medium waits for a backoff;
        // one arriving at an idle medium may go after DIFS without one.
        if self.backoff.is_none() && !self.medium_idle {
            self.backoff = Some(self.draw_backoff());
        } else if self.backoff.is_none() && self.cfg.idle_defer {
            // ns-2 Mac802_11::send with bugFix_timer_ false: the defer timer
            // for DIFS + (Random % cw_) slots, which does not pause; none if
            // it is busy with our CTS or ACK (the SIFS uses mhDefer_), whose
            // end starts one (tx_resume).
            if self.sifs_reply.is_some() {
                self.defer_pending = true;
            } else {
                self.start_defer(now);
            }
        } else if self.backoff.is_none() && self.cfg.idle_backoff {
            // ns-2 Mac802_11::send: DIFS plus a backoff from the arrival,
            // however long the medium has been idle.
            self.backoff = Some(self.draw_backoff());
            self.idle_since = self.idle_since.max(now);
        }
        self.schedule_access(now);
    }

    /// The carrier sense the radio is left with when a reception or our
    /// transmission ends, given before that end is handled
    /// (`handle_rx`, `handle_rx_error`, `handle_tx_end`), whose closing
    /// medium refresh then reads it. The same as the end followed by
    /// `handle_medium(now, busy)`: none of them reads the carrier sense
    /// before that refresh, and a refresh while the radio is still busy
    /// changes nothing. One refresh instead of two.
    pub fn phy_after_end(&mut self, busy: bool) {
        self.phy_busy = busy;
    }

    /// Physical carrier sense changed (or was re-read).
    pub fn handle_medium(&mut self, now: SimTime, phy_busy: bool) {
        self.phy_busy = phy_busy;
        if phy_busy {
            self.nav_frame_started(now);
        }
        self.refresh_medium(now);
    }

    /// A frame was received without error.
    pub fn handle_rx(&mut self, now: SimTime, frame: &Frame) {
        // §9.2.3.4: a correctly received frame ends EIFS deferral.
        self.use_eifs = false;
        if frame.dst != self.addr {
            if frame.dst == BROADCAST {
                if let Some(p) = &frame.packet {
                    self.out.push(MacEvent::Deliver { from: frame.src, packet: p.clone() });
                }
            } else if let (true, Some(p)) = (self.promiscuous, &frame.packet) {
                self.out.push(MacEvent::Overheard { from: frame.src, to: frame.dst, packet: p.clone() });
            }
            if frame.dst != BROADCAST && frame.duration_us > 0 {
                // §9.2.5.4: virtual carrier sense; the NAV only grows.
                let until = now + Dur::from_micros(frame.duration_us as u64);
                if until > self.nav_until {
                    self.nav_until = until;
                    self.nav_set_by(now, frame.kind);
                }
            }
            self.refresh_medium(now);
            return;
        }
        match frame.kind {
            FrameKind::Rts => {
                // §9.2.5.4 / §9.2.6: answer with CTS after SIFS only if the NAV is idle.
                // ns-2 recvRTS checks only tx_state_ and pktCTRL_; the medium
                // (NAV included) is checked when the CTS is due (check_pktCTRL).
                let nav_ok = self.cfg.cts_needs_idle || now >= self.nav_until;
                if self.phase == Phase::Idle && self.sifs_reply.is_none() && nav_ok {
                    let dur = frame.duration_us.saturating_sub(dur_us_ceil(self.cfg.sifs + self.cts_time));
                    self.respond_after_sifs(now, Reply::Cts { to: frame.src, duration_us: dur });
                }
            }
            FrameKind::Cts => {
                if self.phase == Phase::WaitCts {
                    self.set_timer(MacTimer::Timeout, SimTime::MAX);
                    let cur = self.cur.as_mut().expect("waiting for CTS without a frame");
                    // §9.2.5.3: the short retry count is reset by a CTS.
                    cur.short_retries = 0;
                    self.phase = Phase::SifsData;
                    self.respond_after_sifs(now, Reply::Data);
                }
            }
            FrameKind::Data => {
                // §9.2.8: every unicast data frame is acknowledged after SIFS.
                if self.sifs_reply.is_none() {
                    self.respond_after_sifs(now, Reply::Ack { to: frame.src });
                }
                let p = frame.packet.as_ref().expect("data frame without packet");
                // §9.2.9: discard a retry whose <TA, seq> we have seen.
                match self.dup_cache.iter_mut().find(|(a, _)| *a == frame.src) {
                    Some((_, s)) if frame.retry && *s == frame.seq => {
                        self.out.push(MacEvent::Duplicate { ptype: p.ptype() });
                    }
                    Some((_, s)) => {
                        *s = frame.seq;
                        self.out.push(MacEvent::Deliver { from: frame.src, packet: p.clone() });
                    }
                    None => {
                        self.dup_cache.push((frame.src, frame.seq));
                        self.out.push(MacEvent::Deliver { from: frame.src, packet: p.clone() });
                    }
                }
            }
            FrameKind::Ack => {
                if self.phase == Phase::WaitAck {
                    self.set_timer(MacTimer::Timeout, SimTime::MAX);
                    self.succeed();
                }
            }
        }
        self.refresh_medium(now);
    }

    /// A sensed frame could not be decoded: defer with EIFS (§9.2.3.4).
    pub fn handle_rx_error(&mut self, now: SimTime) {
        if self.cfg.eifs_nav {
            // ns-2 recv_timer: `set_nav(usec(phymib_.getEIFS()))`; the
            // backoff resumes with DIFS when the NAV ends (navHandler).
            self.extend_nav(now, now + dur_us_round(self.eifs), false);
        } else {
            self.use_eifs = true;
        }
        self.refresh_medium(now);
    }

    /// The radio dropped a sensed frame of `airtime` that started now
    /// because the frame being received is much stronger (capture).
    pub fn handle_captured(&mut self, now: SimTime, airtime: Dur) {
        if self.cfg.capture_nav {
            // ns-2 Mac802_11::capture: `set_nav(usec(phymib_.getEIFS() + txtime(p)))`.
            self.extend_nav(now, now + dur_us_round(self.eifs + airtime), false);
            self.refresh_medium(now);
        }
    }

    /// The NAV grows to `until` if that is later (ns-2 set_nav, §9.2.5.4).
    fn extend_nav(&mut self, now: SimTime, until: SimTime, from_rts: bool) {
        if until > self.nav_until {
            self.nav_until = until;
            self.nav_set_by(now, if from_rts { FrameKind::Rts } else { FrameKind::Data });
        }
    }

    /// Our transmission ended.
    pub fn handle_tx_end(&mut self, now: SimTime) {
        match self.on_air.take() {
            Some(FrameKind::Rts) => {
                self.phase = Phase::WaitCts;
                // CTSTimeout: SIFS + CTS airtime + a slot (which covers the
                // round-trip propagation, §9.2.5.7).
                self.set_timer(MacTimer::Timeout, now + self.cfg.sifs + self.cts_time + self.cfg.slot);
            }
            Some(FrameKind::Data) if self.phase == Phase::TxData => {
                if self.cur.as_ref().is_some_and(|c| c.next_hop == BROADCAST) {
                    self.succeed();
                } else {
                    self.phase = Phase::WaitAck;
                    self.set_timer(MacTimer::Timeout, now + self.cfg.sifs + self.ack_time + self.cfg.slot);
                }
            }
            _ => {}
        }
        self.refresh_medium(now);
    }

    pub fn handle_timer(&mut self, now: SimTime, t: MacTimer) {
        self.set_timer(t, SimTime::MAX);
        match t {
            MacTimer::Access if self.defer.is_some() => self.defer_expired(now),
            MacTimer::Access => {
                self.backoff = None;
                if self.cur.is_some() && self.phase == Phase::Idle {
                    self.start_exchange();
                }
            }
            MacTimer::Timeout => self.fail(now),
            MacTimer::Sifs => {
                if let Some(r) = self.sifs_reply.take() {
                    if self.cfg.cts_needs_idle && matches!(r, Reply::Cts { .. } | Reply::Data) && (self.phy_busy || now < self.nav_until) {
                        self.withhold(r.kind());
                        self.refresh_medium(now);
                        return;
                    }
                    let f = match r {
                        Reply::Cts { to, duration_us } => Frame { kind: FrameKind::Cts, src: self.addr, dst: to, duration_us, seq: 0, retry: false, packet: None },
                        Reply::Ack { to } => Frame { kind: FrameKind::Ack, src: self.addr, dst: to, duration_us: 0, seq: 0, retry: false, packet: None },
                        Reply::Data => {
                            // The packet has not changed since the CTS: nothing
                            // touches `cur` while the DCF waits in SifsData.
                            self.phase = Phase::TxData;
                            self.data_frame()
                        }
                    };
                    self.transmit(f);
                }
            }
            MacTimer::Nav => self.nav_timer(now),
        }
        self.refresh_medium(now);
    }

    // ----- NAV reset after an RTS (§9.2.5.4) -----
    //
    // "A STA that used information from an RTS frame as the most recent basis
    // to update its NAV setting is permitted to reset its NAV if no
    // PHY-RXSTART.indication is detected from the PHY during a period of
    // 2 x aSIFSTime + CTS_Time + 2 x aSlotTime starting at the PHY-RXEND of
    // the RTS." The Nav timer serves both deadlines: the reset check while
    // one is pending, then the NAV's end. The medium turning busy stands for
    // PHY-RXSTART; a medium still busy at the deadline also keeps the NAV.

    /// The NAV was just extended by a frame of `kind` ending now.
    fn nav_set_by(&mut self, now: SimTime, kind: FrameKind) {
        self.nav_reset_at = (self.cfg.nav_reset && kind == FrameKind::Rts)
            .then(|| now + self.cfg.sifs.mul(2) + self.cts_time + self.cfg.slot.mul(2));
        self.arm_nav_timer(now);
    }

    /// A frame started: the RTS's exchange goes on, keep the NAV.
    fn nav_frame_started(&mut self, now: SimTime) {
        if self.nav_reset_at.take().is_some() {
            self.arm_nav_timer(now);
        }
    }

    fn nav_timer(&mut self, now: SimTime) {
        if self.nav_reset_at.is_some_and(|t| now >= t) {
            self.nav_reset_at = None;
            if !self.phy_busy && self.nav_until > now {
                self.nav_until = now;
            }
        }
        self.arm_nav_timer(now);
    }

    /// The Nav timer: the pending reset check, else the NAV's end if ahead.
    fn arm_nav_timer(&mut self, now: SimTime) {
        let at = match self.nav_reset_at {
            Some(r) if r < self.nav_until => r,
            _ if self.nav_until > now => self.nav_until,
            _ => SimTime::MAX,
        };
        self.set_timer(MacTimer::Nav, at);
    }

    /// ns-2: the medium is not idle (`is_idle()`) when a CTS or the DATA
    /// after a CTS is due.
    fn withhold(&mut self, kind: FrameKind) {
        if kind == FrameKind::Cts {
            // check_pktCTRL: `discard(pktCTRL_, DROP_MAC_BUSY)`.
            self.stats.cts_withheld += 1;
            self.out.push(MacEvent::Withheld);
        } else {
            // check_pktTx: `sendRTS(...); inc_cw(); mhBackoff_.start(cw_, is_idle());`
            // the exchange starts again with an RTS; no retry is counted.
            self.stats.data_withheld += 1;
            self.phase = Phase::Idle;
            self.inc_cw();
            self.backoff = Some(self.draw_backoff());
        }
    }

    fn respond_after_sifs(&mut self, now: SimTime, r: Reply) {
        if self.defer.take().is_some() {
            // ns-2 recvRTS: `if(mhDefer_.busy()) mhDefer_.stop()`; the
            // frame's defer starts again when the reply is done (tx_resume).
            self.defer_pending = true;
        }
        self.sifs_reply = Some(r);
        self.set_timer(MacTimer::Sifs, now + self.cfg.sifs);
    }

    /// CW <- 2 (CW + 1) - 1, at most aCWmax (IEEE 802.11-1999 §9.2.4; ns-2 Mac802_11::inc_cw).
    #[inline]
    fn inc_cw(&mut self) {
        self.cw = (2 * (self.cw + 1) - 1).min(self.cfg.cw_max);
    }

    // ----- ns-2's defer timer (`idle_defer`, bugFix_timer_ false) -----

    /// mhDefer_.start(DIFS + rTime): DIFS plus a drawn number of slots
    /// (drawn as every backoff here, from [0, CW]; ns-2 draws
    /// `Random::random() % cw_`, as its backoff timer does).
    fn start_defer(&mut self, now: SimTime) {
        let k = self.draw_backoff();
        self.defer = Some(now + self.difs + self.cfg.slot.mul(k as u64));
    }

    /// deferHandler -> check_pktRTS / check_pktTx: send if the medium is
    /// idle (`is_idle()`: nothing sensed, NAV clear), else `inc_cw()` and
    /// a backoff, which waits for the medium as any other.
    fn defer_expired(&mut self, now: SimTime) {
        self.defer = None;
        if self.cur.is_none() || self.phase != Phase::Idle {
            return;
        }
        if !self.phy_busy && now >= self.nav_until {
            self.start_exchange();
        } else {
            self.inc_cw();
            self.backoff = Some(self.draw_backoff());
        }
    }

    fn data_frame(&self) -> Frame {
        let cur = self.cur.as_ref().expect("no frame to send");
        let duration_us = if cur.next_hop == BROADCAST {
            0
        } else {
            // §7.2.2: SIFS + ACK.
            dur_us_ceil(self.cfg.sifs + self.ack_time)
        };
        Frame { kind: FrameKind::Data, src: self.addr, dst: cur.next_hop, duration_us, seq: cur.seq, retry: cur.retry, packet: Some(cur.packet.clone()) }
    }

    fn start_exchange(&mut self) {
        let cur = self.cur.as_ref().expect("no frame to send");
        if cur.use_rts {
            let data = self.cfg.data_time(self.cfg.data_mpdu(cur.packet.size()));
            // §7.2.1.1: 3 SIFS + CTS + DATA + ACK.
            let dur = self.cfg.sifs.mul(3) + self.cts_time + data + self.ack_time;
            let f = Frame { kind: FrameKind::Rts, src: self.addr, dst: cur.next_hop, duration_us: dur_us_ceil(dur), seq: 0, retry: false, packet: None };
            self.phase = Phase::TxRts;
            self.transmit(f);
        } else {
            let f = self.data_frame();
            self.phase = Phase::TxData;
            self.transmit(f);
        }
    }

    /// The uid of the packet the DCF is sending or retrying, if any.
    pub fn current_uid(&self) -> Option<u64> {
        self.cur.as_ref().map(|c| c.packet.uid)
    }

    fn transmit(&mut self, f: Frame) {
        // §9.2.3.4: EIFS follows only the erroneous frame; after our own
        // transmission the last frame on the medium is ours, and DIFS applies.
        self.use_eifs = false;
        self.on_air = Some(f.kind);
        self.stats.frames_sent += 1;
        debug_assert!(self.tx_frame.is_none(), "the last frame was not taken");
        self.tx_frame = Some(f);
        self.out.push(MacEvent::Transmit);
    }

    /// The exchange completed (ACK received, or broadcast sent).
    fn succeed(&mut self) {
        let cur = self.cur.as_ref().expect("success without a frame");
        let (next_hop, uid) = (cur.next_hop, cur.packet.uid);
        self.cur = None; // dropped where it is, not moved out first
        self.phase = Phase::Idle;
        // §9.2.4: CW returns to CWmin after a successful transmission, and
        // §9.2.5.2: a backoff follows every transmission.
        self.cw = self.cfg.cw_min;
        self.backoff = Some(self.draw_backoff());
        self.out.push(MacEvent::TxOk { next_hop, uid });
    }

    /// CTS or ACK timeout: retry with a doubled window, or give up (§9.2.5.3).
    fn fail(&mut self, now: SimTime) {
        let waited_cts = self.phase == Phase::WaitCts;
        self.phase = Phase::Idle;
        let cfg = &self.cfg;
        let cur = self.cur.as_mut().expect("timeout without a frame");
        // RTS failures and failures of frames sent without RTS count against
        // the short retry limit; DATA after a CTS against the long one.
        let exhausted = if waited_cts || !cur.use_rts {
            cur.short_retries += 1;
            cur.short_retries >= cfg.short_retry_limit
        } else {
            cur.long_retries += 1;
            cur.long_retries >= cfg.long_retry_limit
        };
        if exhausted {
            let cur = self.cur.take().unwrap();
            self.cw = self.cfg.cw_min;
            self.stats.retry_drops += 1;
            self.out.push(MacEvent::TxFailed { next_hop: cur.next_hop, packet: cur.packet });
        } else {
            // §7.1.3.1.4: the Retry bit marks a retransmitted DATA frame.
            cur.retry |= !waited_cts;
            self.stats.retransmissions += 1;
            self.inc_cw();
        }
        self.backoff = Some(self.draw_backoff());
        // The deferral for the next attempt starts now, not when the medium
        // went idle before the timeout.
        if self.medium_idle {
            self.idle_since = now;
        }
    }

    #[inline(always)]
    fn refresh_medium(&mut self, now: SimTime) {
        let idle = !self.phy_busy && now >= self.nav_until;
        if idle != self.medium_idle {
            self.medium_changed(now, idle);
        }
        self.schedule_access(now);
    }

    #[inline(never)]
    fn medium_changed(&mut self, now: SimTime, idle: bool) {
        self.medium_idle = idle;
        if idle {
            self.idle_since = now;
        } else {
            self.freeze(now);
        }
    }

    fn ifs(&self) -> Dur {
        if self.use_eifs {
            self.eifs
        } else {
            self.difs
        }
    }

    /// The medium turned busy: the backoff counts down only whole idle slots
    /// after DIFS/EIFS, then freezes (§9.2.5.2).
    fn freeze(&mut self, now: SimTime) {
        if self.defer.is_some() || self.defer_pending {
            return; // ns-2's defer timer runs on; no backoff meanwhile
        }
        if self.timers[MacTimer::Access as usize] != SimTime::MAX {
            self.set_timer(MacTimer::Access, SimTime::MAX);
            let start = self.idle_since + self.ifs();
            if let (Some(b), true) = (self.backoff.as_mut(), now > start) {
                let slots = (now - start).0 / self.cfg.slot.0;
                *b -= (slots as u32).min(*b);
            }
        }
        // §9.2.5.1: a frame that did not find the medium idle for DIFS
        // defers, then backs off. This includes a relay's packet that arrives
        // while its ACK is still pending, since that deferral had no timer armed.
        if self.backoff.is_none() && self.cur.is_some() && self.phase == Phase::Idle {
            self.backoff = Some(self.draw_backoff());
        }
    }

    /// `idle_defer`: the Access timer is the defer's, armed whatever the
    /// medium; a pending defer starts once the DCF is free (tx_resume).
    #[cold]
    #[inline(never)]
    fn schedule_defer(&mut self, now: SimTime) {
        let free = self.phase == Phase::Idle && self.sifs_reply.is_none() && self.on_air.is_none();
        if self.defer_pending && free && self.cur.is_some() {
            self.defer_pending = false;
            self.start_defer(now);
        }
        let at = match self.defer {
            Some(d) if free => d.max(now),
            _ => SimTime::MAX,
        };
        self.set_timer(MacTimer::Access, at);
    }

    #[inline(always)]
    fn schedule_access(&mut self, now: SimTime) {
        if self.cfg.idle_defer && (self.defer.is_some() || self.defer_pending) {
            self.schedule_defer(now);
            return;
        }
        let wants = (self.cur.is_some() || self.backoff.is_some())
            && self.phase == Phase::Idle
            && self.sifs_reply.is_none()
            && self.on_air.is_none()
            && self.medium_idle;
        let at = if wants {
            let at = self.idle_since + self.ifs() + self.cfg.slot.mul(self.backoff.unwrap_or(0) as u64);
            at.max(now)
        } else {
            SimTime::MAX
        };
        self.set_timer(MacTimer::Access, at);
    }
}
