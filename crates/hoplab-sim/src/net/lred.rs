//! LRED, link-layer ECN marking (Fu, Zerfos, Luo, Lu, Zhang, Gerla: "The
//! Impact of Multihop Wireless Channel on TCP Throughput and Loss", INFOCOM
//! 2003), as seed 001 §5.5 ran it: marking only, without adaptive pacing
//! (the 802.11 backoff is left intact).
//!
//! Each node keeps an exponentially weighted average of the MAC
//! retransmissions its packets needed; when a node hands the head of its
//! interface queue to the MAC, it marks CE on that packet, if it is ECN-
//! capable, with probability
//!   0                                        avg < min_th
//!   max_p * (avg - min_th) / (max_th - min_th)   min_th <= avg < max_th
//!   max_p                                    avg >= max_th.
//! RED's ramp (Floyd & Jacobson 1993) with the queue length replaced by the
//! retry average, as LRED proposes. Our decisions: the probability stays at
//! max_p above max_th (no mark-everything region: the packet is not
//! dropped, so the TCP source still halves only once per window); packets
//! that are not ECN-capable are never dropped (seed 001 used LRED only as an
//! ECN marker); RED's count-since-last-mark correction is not applied.
//!
//! Defaults are ours: the LRED paper's own values could not be checked (only
//! its abstract was reachable from here), and seed 001 gives none.
//! - min_th = 0.5, max_th = 1.5 retransmissions per packet. An uncontended
//!   link needs none; in seed 001's saturated 6-hop DSR chain with standard
//!   TCP each node averages 0.3 to 0.7 retransmissions per DATA frame here
//!   (`mac_retransmissions / mac_data_sent`), so a threshold of one retry
//!   would never mark and LRED would do nothing. Marking starts at one retry
//!   every other packet and reaches max_p at three every two.
//! - max_p = 0.1, ns-2 RED's default (`linterm_` 10).
//! - weight = 0.02: the average spans about fifty packets, a fraction of a
//!   second at a 2 Mbit/s chain's rates (RED's 0.002 is for a queue sampled
//!   at every arrival on a fast link).
//!
//! Which transmissions update the average: every unicast packet the node
//! sends (data, TCP ACKs, routing), when its MAC exchange ends, with the
//! retransmissions it took; a packet the MAC gave up on counts its final
//! failed attempt too. Broadcasts have no retries and are not counted.
//! The average is per node, as LRED keeps it at each node's link layer.

/// LRED parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LredParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub weight: f64,
}

impl Default for LredParams {
    fn default() -> Self {
        LredParams { min_th: 0.5, max_th: 1.5, max_p: 0.1, weight: 0.02 }
    }
}

/// One node's LRED state.
#[derive(Clone, Debug)]
pub struct LinkRed {
    p: LredParams,
    avg: f64,
}

impl LinkRed {
    pub fn new(p: LredParams) -> LinkRed {
        LinkRed { p, avg: 0.0 }
    }

    /// A packet's MAC exchange ended after `retries` retransmissions.
    pub fn on_tx_done(&mut self, retries: u32) {
        self.avg += self.p.weight * (retries as f64 - self.avg);
    }

    /// The current average of retransmissions per packet.
    #[cfg(test)]
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Marking probability at the current average.
    pub fn probability(&self) -> f64 {
        let p = &self.p;
        if self.avg < p.min_th {
            0.0
        } else if self.avg >= p.max_th {
            p.max_p
        } else {
            p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th)
        }
    }

    /// Whether to mark the packet now going to the MAC; `u` is a uniform
    /// draw in [0, 1) from the node's LRED stream.
    pub fn should_mark(&self, u: f64) -> bool {
        u < self.probability()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(avg_retries: f64) -> LinkRed {
        // weight 1: the average is the last sample.
        let mut l = LinkRed::new(LredParams { min_th: 1.0, max_th: 3.0, max_p: 0.2, weight: 1.0 });
        l.avg = avg_retries;
        l
    }

    #[test]
    fn probability_is_zero_below_min_th_linear_between_and_max_p_at_max_th() {
        assert_eq!(at(0.0).probability(), 0.0);
        assert_eq!(at(0.99).probability(), 0.0);
        assert_eq!(at(1.0).probability(), 0.0);
        assert!((at(1.5).probability() - 0.05).abs() < 1e-12);
        assert!((at(2.0).probability() - 0.1).abs() < 1e-12);
        assert!((at(2.5).probability() - 0.15).abs() < 1e-12);
        assert_eq!(at(3.0).probability(), 0.2);
        assert_eq!(at(6.0).probability(), 0.2, "held at max_p above max_th");
    }

    #[test]
    fn average_is_an_ewma_of_retries_per_packet() {
        let mut l = LinkRed::new(LredParams { weight: 0.5, ..LredParams::default() });
        l.on_tx_done(4);
        assert_eq!(l.avg(), 2.0);
        l.on_tx_done(0);
        assert_eq!(l.avg(), 1.0);
        l.on_tx_done(2);
        assert_eq!(l.avg(), 1.5);
        assert!((l.probability() - 0.1).abs() < 1e-12, "at max_th: max_p");
        l.on_tx_done(0);
        assert!((l.probability() - 0.025).abs() < 1e-12, "a quarter of the way: max_p / 4");
        assert!(l.should_mark(0.02) && !l.should_mark(0.03));
    }
}
