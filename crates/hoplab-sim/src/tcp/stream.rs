//! Stream integrity (issue 10 item 6): every TCP flow carries a byte stream
//! whose content is a fixed function of (flow, byte offset), and each data
//! segment carries a 32-bit checksum of the byte range it holds instead of
//! the bytes themselves.
//!
//! The sender computes the checksum from what it believes the range is
//! (segment `n` holds bytes `n * mss ..`, [`range_checksum`]); the sink
//! recomputes the checksum of the range it is about to hand to the
//! application, from its own count of bytes already delivered, and counts a
//! mismatch as a stream error. So a segment whose content was altered in
//! flight, a segment placed at the wrong offset (a shifted sequence number),
//! the same bytes delivered twice, a skipped range (a gap) or a segment
//! delivered out of order all show in `flows.stream_errors`, wherever the
//! fault happened: salvaging, ARP buffers, retransmission, reassembly.
//!
//! The checksum is a keyed hash of (flow, offset, length), the SplitMix64
//! finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014) over the three fields: since the content is a
//! function of (flow, offset), this is a checksum of the content. Two
//! different ranges collide with probability 2^-32. It is data, not an
//! event: it changes no timing and no event hash, and its 4 bytes
//! (`TcpSegment::checksum`) leave `Packet` at 128 bytes (`wire::tests`).

/// SplitMix64's output function (a bijection on u64 with full avalanche).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Checksum of bytes `offset .. offset + len` of flow `flow`'s stream.
pub fn range_checksum(flow: u32, offset: u64, len: u32) -> u32 {
    let h = mix(mix(mix(0x9e37_79b9_7f4a_7c15 ^ flow as u64) ^ offset) ^ len as u64);
    (h ^ (h >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_ranges_flows_and_lengths_differ() {
        let c = range_checksum(0, 1460, 1460);
        assert_eq!(c, range_checksum(0, 1460, 1460), "deterministic");
        for other in [range_checksum(0, 0, 1460), range_checksum(0, 2920, 1460), range_checksum(0, 1461, 1460), range_checksum(1, 1460, 1460), range_checksum(0, 1460, 1459)] {
            assert_ne!(c, other);
        }
        // No collisions among the first 10,000 segments of a flow.
        let mut all: Vec<u32> = (0..10_000u64).map(|n| range_checksum(7, n * 1460, 1460)).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 10_000);
    }
}
