//! Airtime of 802.11 DSSS frames (IEEE 802.11-1999 §15.2, 802.11b-1999 §18.2).

use super::config::Preamble;
use crate::time::Dur;

#[derive(Clone, Debug)]
pub struct PhyTiming {
    /// PLCP preamble + header duration.
    pub plcp: Dur,
    pub data_rate_bps: u64,
    pub basic_rate_bps: u64,
}

impl PhyTiming {
    pub fn new(preamble: Preamble, data_rate_mbps: f64, basic_rate_mbps: f64) -> PhyTiming {
        let plcp = match preamble {
            // 144-bit preamble + 48-bit header at 1 Mbit/s (§15.2.3).
            Preamble::Long => Dur::from_micros(192),
            // 802.11b short preamble: 72 bits at 1 Mbit/s + header at 2 Mbit/s (§18.2.2.2).
            Preamble::Short => Dur::from_micros(96),
        };
        PhyTiming {
            plcp,
            data_rate_bps: (data_rate_mbps * 1e6).round() as u64,
            basic_rate_bps: (basic_rate_mbps * 1e6).round() as u64,
        }
    }

    /// Airtime of an MPDU of `bytes` at `rate_bps`, PLCP included.
    pub fn airtime(&self, bytes: u32, rate_bps: u64) -> Dur {
        self.plcp + Dur::for_bits(bytes as u64 * 8, rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn airtimes_at_2_and_11_mbps() {
        let t = PhyTiming::new(Preamble::Long, 2.0, 1.0);
        // ACK: 192 µs + 14·8 bits at 1 Mbit/s = 304 µs.
        assert_eq!(t.airtime(14, t.basic_rate_bps), Dur::from_micros(304));
        // 1528-byte data frame at 2 Mbit/s: 192 + 6112 µs.
        assert_eq!(t.airtime(1528, t.data_rate_bps), Dur::from_micros(6304));
        let t11 = PhyTiming::new(Preamble::Long, 11.0, 1.0);
        // 1528·8/11 = 1111.27 µs, rounded up to the nanosecond.
        assert_eq!(t11.airtime(1528, t11.data_rate_bps), Dur(192_000 + 1_111_273));
    }
}
