//! ECN-capable TCP (RFC 3168 §6.1): the sender's reaction to ECN-Echo and the
//! receiver's echo of Congestion Experienced.
//!
//! - Data segments carry ECT, retransmissions do not (§6.1.5); pure ACKs
//!   never do (§6.1.4).
//! - Receiver: from a CE arrival, every ACK carries ECE until a segment with
//!   CWR arrives (§6.1.3); a segment with both clears, then sets again.
//! - Sender: on ECE, reduce once per window of data (§6.1.2): no reduction
//!   in fast recovery, nor before the cumulative ACK passes the highest
//!   segment sent at the last loss reaction or ECN reduction, nor while the
//!   CWR of the last reduction has not been sent yet. The reduction
//!   halves the window: with m = min(cwnd, FlightSize at the ACK's arrival),
//!   cwnd = m/2 and ssthresh = max(m/2, floor), floor being RFC 5681's two
//!   segments (Eq. 4) or FeW's ssthresh_min; cwnd never rises and is kept at
//!   or above one segment (FeW: w_min). CWR goes on the next new data segment,
//!   and the window of this reduction then extends to that segment: ACKs
//!   sent before the receiver saw CWR still echo the old mark, so ECE counts
//!   again only on an ACK that covers the CWR segment (Linux ends its CWR
//!   state at the highest segment sent instead, and can halve twice for one
//!   mark when delayed ACKs straddle the CWR segment). A retransmission of
//!   the CWR segment carries CWR again, so a lost CWR cannot leave the
//!   receiver echoing one mark for ever.
//!   Not modelled: §6.1.2's "cwnd of one: wait for the retransmission timer
//!   before sending" (without FeW the window stays one segment).

use super::congestion::Window;
use crate::wire::Ecn;

/// Sender-side ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnSender {
    /// Set CWR on the next new data segment.
    cwr_pending: bool,
    /// The last ECN reduction's window ends at this segment: the highest
    /// sent at the reduction, then the segment that carried CWR.
    high: Option<u64>,
    /// The last segment that carried CWR.
    cwr_sent: Option<u64>,
}

impl EcnSender {
    /// ECN bits of outgoing data segment `seq`.
    pub fn outgoing(&mut self, seq: u64, retransmit: bool) -> Ecn {
        if retransmit {
            // §6.1.5: retransmissions are not ECT. A resent CWR segment keeps
            // CWR: were it lost, the receiver would echo one mark forever.
            return Ecn { cwr: self.cwr_sent == Some(seq), ..Ecn::default() };
        }
        let cwr = std::mem::take(&mut self.cwr_pending);
        if cwr {
            self.high = Some(seq);
            self.cwr_sent = Some(seq);
        }
        Ecn { ect: true, cwr, ..Ecn::default() }
    }

    /// An ACK with ECE arrived; `snd_una` and `snd_max` are after the ACK,
    /// `loss_recover` is the sender's RFC 6582 `recover`. Whether to reduce
    /// now (§6.1.2: at most once per window, not on top of a loss reaction).
    pub fn on_ece(&mut self, snd_una: u64, snd_max: u64, in_recovery: bool, loss_recover: Option<u64>) -> bool {
        let covered = |h: Option<u64>| h.is_none_or(|h| snd_una > h);
        // Until CWR has gone out, the receiver is still echoing the old mark.
        if self.cwr_pending || in_recovery || !covered(loss_recover) || !covered(self.high) || snd_max == 0 {
            return false;
        }
        self.high = Some(snd_max - 1);
        self.cwr_pending = true;
        true
    }
}

/// The ECN window reduction (§6.1.2), see the module documentation.
pub fn reduce(w: &mut Window, flight_before: u64, ssthresh_floor: f64) {
    let half = w.cwnd().min(flight_before as f64) / 2.0;
    w.set_ssthresh(half.max(ssthresh_floor));
    w.set_cwnd(w.cwnd().min(half)); // Window keeps it at or above its floor
}

/// Receiver-side ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnReceiver {
    ece: bool,
}

impl EcnReceiver {
    /// A data segment arrived (duplicates included: its CE still counts).
    pub fn on_data(&mut self, ecn: Ecn) {
        if ecn.cwr {
            self.ece = false; // §6.1.3: CWR stops the echo
        }
        if ecn.ce {
            self.ece = true;
        }
    }

    /// ECN bits of an outgoing ACK.
    pub fn ack_bits(&self) -> Ecn {
        Ecn { ece: self.ece, ..Ecn::default() }
    }
}
