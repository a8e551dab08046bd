//! The `[mac]` table: IEEE 802.11 DCF parameters and the interface queue.

pub use crate::phy::config::Preamble;
use serde::{Deserialize, Serialize};

/// IEEE 802.11 DCF parameters (IEEE 802.11-1999 §15.3.3 DSSS PHY defaults,
/// as ns-2's Mac/802_11 uses them).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mac {
    pub data_rate_mbps: f64,
    pub basic_rate_mbps: f64,
    /// Frames whose MPDU is longer than this many bytes use RTS/CTS; 0 means
    /// always, a value above any frame size means never (dot11RTSThreshold).
    #[serde(rename = "rts_threshold_bytes")]
    pub rts_threshold: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    pub slot_us: u32,
    pub sifs_us: u32,
    pub preamble: Preamble,
    /// Interface queue capacity in packets (ns-2 PriQueue, 50).
    pub queue_limit: u32,
    /// Routing packets go ahead of data in the interface queue (ns-2
    /// PriQueue `Prefer_Routing_Protocols 1`); false: one FIFO (mac/ifq.rs).
    pub queue_routing_first: bool,
    /// ns-2's CMUPriQueue, the queue its DSR runs on: four queues served in
    /// strict order (routing, real-time, TCP ACKs, the rest), each holding
    /// `queue_limit` (mac/ifq.rs). Overrides `queue_routing_first`.
    pub queue_classes: bool,
    /// ns-2's PriQueue to the packet: DropTail refuses a packet at
    /// `length + 1 >= qlim_`, so it holds `queue_limit - 1`, and each routing
    /// packet goes to the very head, dropping the tail at `qlim_` (mac/ifq.rs).
    pub queue_ns2_priqueue: bool,
    /// Reset a NAV set by an overheard RTS when no frame starts within
    /// 2 SIFS + CTS + 2 slots of the RTS's end (IEEE 802.11-1999 §9.2.5.4,
    /// "permitted"). Off by default: ns-2's Mac802_11, which the seeds ran,
    /// does not do it (ns-3 does).
    pub nav_reset: bool,
    /// A frame that finds the medium idle also waits DIFS plus a random
    /// backoff, counted from its arrival, as ns-2's Mac802_11::send does.
    /// Off by default: IEEE 802.11-1999 §9.2.5.1 lets it go after DIFS.
    pub idle_backoff: bool,
    /// With `idle_backoff`: ns-2's `bugFix_timer_ false`. The wait of a
    /// frame that finds the medium idle is ns-2's defer timer, DIFS + k
    /// slots from its arrival, which does not pause while the medium is
    /// busy; if the medium is busy when it expires, the CW doubles and a
    /// backoff follows (Mac802_11::send, deferHandler, check_pktRTS,
    /// check_pktTx, tx_resume). Off: ns-2's default bugFix_timer_ true, the
    /// backoff timer with DIFS, which pauses.
    pub idle_defer: bool,
    /// ns-2 Mac802_11::check_pktCTRL / check_pktTx: the CTS, and the DATA
    /// after a CTS, go out after SIFS only if the medium is idle then
    /// (nothing being received, NAV clear); a withheld CTS is dropped, a
    /// withheld DATA goes back to RTS with a doubled CW. The NAV is not
    /// checked when the RTS arrives. Off: the NAV is checked at the RTS
    /// (IEEE 802.11-1999 §9.2.5.4), responses go regardless of the medium.
    pub cts_needs_idle: bool,
    /// ns-2 Mac802_11::capture: a frame captured away (dropped because the
    /// frame being received is CPThresh stronger) sets the NAV to EIFS plus
    /// its airtime.
    pub capture_nav: bool,
    /// ns-2 Mac802_11::recv_timer: a reception error sets the NAV to EIFS,
    /// after which the backoff resumes with DIFS (EIFS + DIFS in all, and
    /// the medium reads busy meanwhile). Off: EIFS replaces DIFS (§9.2.3.4).
    pub eifs_nav: bool,
    /// What `rts_threshold_bytes` is compared with: `mpdu` (MAC header +
    /// IP packet + FCS, RTS if longer) or `ns2` (ns-2 sendRTS: the size with
    /// the 24-byte PLCP and 34-byte MAC header + FCS, RTS if not smaller).
    pub rts_threshold_basis: RtsThresholdBasis,
    /// MAC header of a DATA frame before the 4-byte FCS: 24 bytes (three
    /// addresses, IEEE 802.11-1999 §7.2.2); ns-2's hdr_mac802_11 has four
    /// addresses, 30 bytes, so its DATA frames last 24 µs longer at 2 Mbit/s.
    pub data_header_bytes: u32,
}

/// `[mac] rts_threshold_basis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtsThresholdBasis {
    /// IEEE 802.11: RTS/CTS for MPDUs longer than dot11RTSThreshold.
    #[default]
    Mpdu,
    /// ns-2.35 Mac802_11::sendRTS: `ch->size() < RTSThreshold_` sends no RTS,
    /// where the size includes getHdrLen11() = 24 B PLCP + 34 B header + FCS.
    Ns2,
}

impl Default for Mac {
    fn default() -> Self {
        Mac {
            data_rate_mbps: 2.0,
            basic_rate_mbps: 1.0,
            rts_threshold: 0,
            short_retry_limit: 7,
            long_retry_limit: 4,
            cw_min: 31,
            cw_max: 1023,
            slot_us: 20,
            sifs_us: 10,
            preamble: Preamble::Long,
            queue_limit: 50,
            queue_routing_first: true,
            queue_classes: false,
            queue_ns2_priqueue: false,
            nav_reset: false,
            idle_backoff: false,
            idle_defer: false,
            cts_needs_idle: false,
            capture_nav: false,
            eifs_nav: false,
            rts_threshold_basis: RtsThresholdBasis::Mpdu,
            data_header_bytes: 24,
        }
    }
}
