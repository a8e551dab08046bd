//! The TCP header (RFC 9293 §3.1) with SACK (RFC 2018 §3), timestamp (RFC
//! 7323 §3.2) and ECN flags (RFC 3168 §6.1), from hoplab's segment fields.
//!
//! hoplab numbers segments (wire/tcp.rs); on the wire TCP numbers bytes.
//! Both ends' initial sequence number is 0 and data starts at 1, as after
//! a handshake with ISN 0: data segment i (counted from 0, after the SYN if
//! the flow has one) starts at byte 1 + i * MSS. The receiver sends no data,
//! so its sequence number stays 1. A flow with ns-2's one-way SYN (`syn`)
//! shows it as a SYN at sequence 0; no SYN-ACK exists in hoplab, so the
//! receiver's ACK of it is a plain ACK of byte 1. A WWW flow numbers
//! download k's segments from k * 2^32 (app/www.rs); mod 2^32 each download
//! starts at byte 1 again, on the flow's one port pair.

use super::address::port;
use super::checksum::{add, finish, pseudo_header};
use super::ipv4::PROTO_TCP;
use crate::wire::{NetState, TcpSegment};

/// What a capture needs to know of a TCP flow to number its bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowWire {
    pub mss: u32,
    /// The flow starts with ns-2's one-way SYN (segment 0 carries no data).
    pub syn: bool,
    /// Bytes of a finite transfer: ACKs of the whole transfer acknowledge
    /// its last byte, not a full last segment.
    pub bytes: Option<u64>,
}

impl Default for FlowWire {
    fn default() -> FlowWire {
        FlowWire { mss: 1460, syn: false, bytes: None }
    }
}

impl FlowWire {
    /// Byte sequence number where segment `k` starts (or that an ACK of `k`
    /// asks for next), mod 2^32 as on the wire.
    pub fn byte(&self, k: u64) -> u32 {
        let data = match self.syn {
            true if k == 0 => return 0, // the SYN itself
            true => k - 1,
            false => k,
        };
        let off = data.saturating_mul(self.mss as u64);
        (1 + self.bytes.map_or(off, |b| off.min(b))) as u32
    }
}

const FIN_SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const ECE: u8 = 0x40;
const CWR: u8 = 0x80;
const NOP: u8 = 1;

/// ADTCP's network state in the three reserved header bits (tcp/adtcp.rs).
fn adtcp_bits(s: Option<NetState>) -> u8 {
    let v = match s {
        None | Some(NetState::Normal) => 0,
        Some(NetState::Congestion) => 1,
        Some(NetState::ChannelError) => 2,
        Some(NetState::RouteChange) => 3,
        Some(NetState::Disconnection) => 4,
    };
    v << 1 // byte 12: data offset (4 bits), reserved (3 bits), AE/NS (1 bit)
}

/// Append the segment: header, options, and `seg.payload` zero bytes.
/// `ts_ms` is the TSval of a timestamp option (the packet's creation time).
pub fn encode(out: &mut Vec<u8>, seg: &TcpSegment, fw: &FlowWire, src: [u8; 4], dst: [u8; 4], ts_ms: u32) {
    let start = out.len();
    let p = port(seg.flow);
    out.extend_from_slice(&p.to_be_bytes());
    out.extend_from_slice(&p.to_be_bytes());
    let (seq, ack, mut flags) = if seg.syn {
        (0, 0, FIN_SYN)
    } else if seg.is_pure_ack() {
        (1, fw.byte(seg.ackno), ACK)
    } else {
        (fw.byte(seg.seqno), 1, ACK)
    };
    if seg.ecn.ece {
        flags |= ECE;
    }
    if seg.ecn.cwr {
        flags |= CWR;
    }
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    let hlen = 20 + seg.options as usize;
    out.push(((hlen / 4) as u8) << 4 | adtcp_bits(seg.adtcp));
    out.push(flags);
    // SEG.WND: hoplab's window in bytes; no window scale option is sent, so
    // it is capped at 65535 (RFC 7323 §2.2). Data segments carry no window
    // of their own: the most a 16-bit field says.
    out.extend_from_slice(&(seg.window.unwrap_or(u32::MAX).min(0xffff) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (below), urgent pointer
    let opt_start = out.len();
    let blocks = seg.sack.as_slice();
    if !blocks.is_empty() {
        // RFC 2018 §3: two NOPs align the kind-5 option to 4 bytes.
        out.extend_from_slice(&[NOP, NOP, 5, 2 + 8 * blocks.len() as u8]);
        for &(s, e) in blocks {
            out.extend_from_slice(&fw.byte(s).to_be_bytes());
            out.extend_from_slice(&fw.byte(e).to_be_bytes());
        }
    }
    // The rest of the option bytes hold a timestamp (ADTCP's, 12 bytes as
    // RFC 7323 Appendix A lays it out: NOP NOP kind 8 len 10); TSecr 0: no
    // timestamp from the peer is modelled.
    if seg.options as usize >= out.len() - opt_start + 12 {
        out.extend_from_slice(&[NOP, NOP, 8, 10]);
        out.extend_from_slice(&ts_ms.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
    }
    while out.len() - opt_start < seg.options as usize {
        out.push(NOP);
    }
    out.resize(out.len() + seg.payload as usize, 0);
    let len = (out.len() - start) as u16;
    let sum = finish(add(pseudo_header(src, dst, PROTO_TCP, len), &out[start..]));
    out[start + 16..start + 18].copy_from_slice(&sum.to_be_bytes());
}
