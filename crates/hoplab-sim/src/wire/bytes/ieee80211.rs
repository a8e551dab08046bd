//! IEEE 802.11 MAC frames: RTS, CTS, ACK and data, FCS included
//! (IEEE 802.11-2012 §8.2, §8.3.1).

use super::address::{mac, BSSID};
use super::checksum::crc32;
use crate::wire::{Frame, FrameKind};

/// Frame Control's first byte: protocol version 0, type, subtype (§8.2.4.1.3).
fn type_byte(kind: FrameKind) -> u8 {
    match kind {
        FrameKind::Rts => 0xb4,  // control (01), subtype 1011
        FrameKind::Cts => 0xc4,  // control, subtype 1100
        FrameKind::Ack => 0xd4,  // control, subtype 1101
        FrameKind::Data => 0x08, // data (10), subtype 0000
    }
}

/// Frame Control flags: To DS and From DS are 0 in an IBSS (§8.3.2.1
/// Table 8-19); Retry is 0x08 (§8.2.4.1.7), set on retransmitted data.
fn flags_byte(f: &Frame) -> u8 {
    if f.kind == FrameKind::Data && f.retry { 0x08 } else { 0 }
}

/// Append the frame: header, `body` (the MSDU: LLC/SNAP and the packet;
/// empty for control frames) and the FCS over both.
pub fn encode(out: &mut Vec<u8>, f: &Frame, body: &[u8]) {
    let start = out.len();
    out.push(type_byte(f.kind));
    out.push(flags_byte(f));
    // Duration/ID: µs of NAV, at most 32767 (§8.2.4.2: bit 15 set means an AID).
    out.extend_from_slice(&(f.duration_us.min(0x7fff) as u16).to_le_bytes());
    out.extend_from_slice(&mac(f.dst)); // Address 1: RA
    match f.kind {
        FrameKind::Rts => out.extend_from_slice(&mac(f.src)), // Address 2: TA (§8.3.1.2)
        FrameKind::Cts | FrameKind::Ack => {}                 // RA only (§8.3.1.3, §8.3.1.4)
        FrameKind::Data => {
            out.extend_from_slice(&mac(f.src)); // Address 2: SA = TA in an IBSS
            out.extend_from_slice(&BSSID); // Address 3: BSSID (Table 8-19)
            // Sequence Control: fragment 0, 12-bit sequence number (§8.2.4.4).
            out.extend_from_slice(&((f.seq & 0x0fff) << 4).to_le_bytes());
            out.extend_from_slice(body);
        }
    }
    let fcs = crc32(&out[start..]);
    out.extend_from_slice(&fcs.to_le_bytes());
}
