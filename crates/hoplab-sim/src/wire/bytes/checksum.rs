//! The two checksums of a capture: the Internet checksum of IPv4, TCP and
//! UDP, and the CRC-32 of the 802.11 FCS.

/// Add `data` as big-endian 16-bit words to a one's-complement running sum
/// (RFC 1071 §4.1); an odd last byte is padded with a zero byte.
pub fn add(mut acc: u64, data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u64;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u64) << 8;
    }
    acc
}

/// Fold the carries in and complement: the checksum field (RFC 1071 §4.1).
pub fn finish(mut acc: u64) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// The Internet checksum of `data`.
pub fn internet(data: &[u8]) -> u16 {
    finish(add(0, data))
}

/// Sum of the TCP/UDP pseudo-header (RFC 9293 §3.1, RFC 768).
pub fn pseudo_header(src: [u8; 4], dst: [u8; 4], proto: u8, len: u16) -> u64 {
    let mut acc = add(0, &src);
    acc = add(acc, &dst);
    acc + proto as u64 + len as u64
}

/// CRC-32 of the 802.11 FCS (IEEE 802.11-2012 §8.2.4.8: the IEEE 802.3
/// polynomial, reflected, initial value and final XOR all ones); the FCS
/// goes on the air least significant byte first.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
