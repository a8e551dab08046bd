//! LLC/SNAP encapsulation of an MSDU on 802.11 (IEEE 802.2 with the RFC
//! 1042 SNAP header, IEEE 802.11-2012 §5.1.4): DSAP/SSAP 0xAA, UI, OUI 0.

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_ARP: u16 = 0x0806;
/// Bytes hoplab's frame sizes leave out (wire/frame.rs, like ns-2's mac-802_11).
pub const LEN: u32 = 8;

pub fn encode(out: &mut Vec<u8>, ethertype: u16) {
    out.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
    out.extend_from_slice(&ethertype.to_be_bytes());
}
