//! DSR's messages are wire formats (crate::wire::dsr); what stays here is
//! how a data packet's DSR header follows its source route.

pub use crate::wire::dsr::*;
use crate::wire::Packet;

/// Whether a data packet carries an Acknowledgement Request.
pub fn ack_requested(p: &Packet) -> bool {
    p.sr.as_ref().is_some_and(|sr| sr.ack_request)
}

/// Set the Acknowledgement Request flag and the packet's DSR header bytes
/// to match the source route.
pub fn set_header(p: &mut Packet, ack_request: bool) {
    if let Some(sr) = p.sr.as_mut() {
        sr.ack_request = ack_request;
    }
    p.extra_header = p.sr.as_ref().map_or(0, |sr| sr.wire_size());
}
