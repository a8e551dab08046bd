//! The radiotap header in front of each 802.11 frame (radiotap.org,
//! "Defined fields"; all fields little-endian, each aligned to its size).

/// What radiotap says about one frame.
#[derive(Clone, Copy, Debug)]
pub struct RadioInfo {
    /// TSFT: simulated time in µs.
    pub tsft_us: u64,
    /// PHY rate in bit/s.
    pub rate_bps: u64,
    /// 802.11b short preamble (flags 0x02).
    pub short_preamble: bool,
    /// Antenna signal in dBm: the frame's power at the node that received
    /// it; None for a frame as sent.
    pub signal_dbm: Option<i8>,
}

/// Channel 1: 2412 MHz (IEEE 802.11-2012 §17.4.6.3).
pub const FREQ_MHZ: u16 = 2412;
/// Channel flags: 2 GHz spectrum (0x0080) + CCK (0x0020), an 802.11b channel.
const CHANNEL_FLAGS: u16 = 0x00a0;
/// Flags: the frame includes its FCS.
const FLAG_FCS: u8 = 0x10;
const FLAG_SHORT_PREAMBLE: u8 = 0x02;
/// Present bits: TSFT (0), Flags (1), Rate (2), Channel (3).
const PRESENT: u32 = 0b1111;
/// Present bit of dBm antenna signal (5): one signed byte.
const PRESENT_SIGNAL: u32 = 1 << 5;
/// 8-byte header + TSFT 8 + flags 1 + rate 1 + channel 4 (a frame as sent).
pub const LEN: u16 = 22;

impl RadioInfo {
    /// The header's length: `LEN`, and one byte more with an antenna signal.
    pub fn header_len(&self) -> u16 {
        LEN + self.signal_dbm.is_some() as u16
    }
}

/// dBm of a power in watts, as radiotap's signed byte holds it (rounded,
/// clamped to -128..127).
pub fn dbm(watts: f64) -> i8 {
    (10.0 * (watts * 1000.0).log10()).round().clamp(-128.0, 127.0) as i8
}

/// Append the radiotap header. Every frame is written with its FCS, so the
/// FCS flag is always set.
pub fn encode(out: &mut Vec<u8>, r: &RadioInfo) {
    out.extend_from_slice(&[0, 0]); // version 0, pad
    out.extend_from_slice(&r.header_len().to_le_bytes());
    out.extend_from_slice(&(PRESENT | if r.signal_dbm.is_some() { PRESENT_SIGNAL } else { 0 }).to_le_bytes());
    out.extend_from_slice(&r.tsft_us.to_le_bytes()); // offset 8: 8-aligned
    out.push(FLAG_FCS | if r.short_preamble { FLAG_SHORT_PREAMBLE } else { 0 });
    // Rate in 500 kbit/s units (5.5 Mbit/s is 11).
    out.push((r.rate_bps / 500_000).min(255) as u8);
    out.extend_from_slice(&FREQ_MHZ.to_le_bytes()); // offset 18: 2-aligned
    out.extend_from_slice(&CHANNEL_FLAGS.to_le_bytes());
    if let Some(s) = r.signal_dbm {
        out.push(s as u8); // offset 22: a byte needs no alignment
    }
}
