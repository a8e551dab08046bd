//! Real header bytes for the typed wire formats: what the pcap writer
//! (trace/pcap) puts in a capture so that Wireshark, tshark and tcptrace
//! decode every field. One file per header; each appends to a `Vec<u8>`.
//!
//! The simulator keeps fields, not bytes (wire/mod.rs); these encoders are
//! only called by a trace sink, so a run without pcap never builds a byte.
//! Sizes: the IP datagram (or ARP packet) encoded here is exactly
//! `Packet::size()` bytes, so IP total lengths, and with them tcptrace's
//! throughput, equal hoplab's. The 802.11 frame is 8 bytes longer than
//! `Frame::bytes()`: real frames carry the LLC/SNAP header (llc.rs), which
//! hoplab, like ns-2, does not charge on the air.

pub mod address;
pub mod aodv;
pub mod arp;
pub mod checksum;
pub mod dsdv;
pub mod dsr;
pub mod ieee80211;
pub mod ipv4;
pub mod llc;
pub mod olsr;
pub mod packet;
pub mod radiotap;
pub mod tcp;
pub mod udp;

/// Append a big-endian (network order) u16 / u32.
pub(crate) fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}
pub(crate) fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

#[cfg(test)]
pub(crate) mod tests;
