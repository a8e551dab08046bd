//! Node ids as wire addresses, and the ports hoplab's flows use.

use crate::wire::{NodeId, BROADCAST};

/// IPv4 address of node `n`: 10.0.0.0/16 + n + 1 (node 0 is 10.0.0.1), so
/// no node gets the network or an all-zero host address.
pub fn ip(n: NodeId) -> [u8; 4] {
    if n == BROADCAST {
        return [255; 4]; // RFC 919 limited broadcast
    }
    let h = n.wrapping_add(1);
    [10, (h >> 16) as u8, (h >> 8) as u8, h as u8]
}

/// MAC address of node `n`: 02:00:00:00:HH:LL, HH:LL = n big-endian. The
/// 0x02 bit marks a locally administered unicast address (IEEE 802-2014 §8.2).
pub fn mac(n: NodeId) -> [u8; 6] {
    if n == BROADCAST {
        return [0xff; 6];
    }
    [0x02, 0, 0, 0, (n >> 8) as u8, n as u8]
}

/// The BSSID of hoplab's one IBSS: locally administered and individual, as
/// IEEE 802.11-2012 §10.1.4 asks of an IBSS's random BSSID, and outside
/// the nodes' 02:00:00:00:xx:xx range.
pub const BSSID: [u8; 6] = [0x02, 0, 0, 0xff, 0, 0];

/// TCP and UDP port of flow `f` (its index in `flows[]`), the same at both
/// ends (the IP addresses tell the ends apart). 50000-54095 is in the
/// dynamic range (RFC 6335 §6) and Wireshark 4.0 binds no dissector there,
/// so payloads show as data, never as some protocol they are not.
pub fn port(flow: u32) -> u16 {
    FIRST_PORT + (flow % PORTS as u32) as u16
}

const FIRST_PORT: u16 = 50000;
const PORTS: u16 = 4096;

/// The flow index that `port` gives `p`, if `p` is one of its ports (the
/// capture reader's way back to the run's flow numbers).
pub fn port_flow(p: u16) -> Option<u32> {
    p.checked_sub(FIRST_PORT).filter(|&f| f < PORTS).map(u32::from)
}
