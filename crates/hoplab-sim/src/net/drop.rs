//! Why a packet was dropped, with ns-2's trace codes (seed 002 Appendix B,
//! Table 3) and the layer that logs it.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// Interface queue full.
    Ifq,
    /// MAC retry limit exceeded.
    Ret,
    /// Lost to a collision at the receiving MAC.
    Col,
    /// MAC duplicate (a retry of a frame already received).
    Dup,
    /// MAC busy: a CTS not sent because the medium was busy (ns-2 DROP_MAC_BUSY).
    Bsy,
    /// No route to the destination.
    Nrte,
    /// TTL reached zero.
    Ttl,
    /// MAC callback on a bad link, dropped by routing.
    Cbk,
    /// Routing loop detected (DSR: a source route that visits a node twice).
    Loop,
    /// Waited too long in a routing buffer for a route (send buffer timeout).
    Tout,
    /// A routing buffer (AODV queue, DSR send buffer) was full.
    Qfull,
    /// DSR salvage count exhausted (RFC 4728 MAX_SALVAGE_COUNT).
    Sal,
    /// ARP: the held packet was displaced, or the address never resolved.
    Arp,
    /// Still queued when the simulation ended.
    End,
}

impl DropReason {
    pub fn code(self) -> &'static str {
        match self {
            DropReason::Ifq => "IFQ",
            DropReason::Ret => "RET",
            DropReason::Col => "COL",
            DropReason::Dup => "DUP",
            DropReason::Bsy => "BSY",
            DropReason::Nrte => "NRTE",
            DropReason::Ttl => "TTL",
            DropReason::Cbk => "CBK",
            DropReason::Loop => "LOOP",
            DropReason::Tout => "TOUT",
            DropReason::Qfull => "QFULL",
            DropReason::Sal => "SAL",
            DropReason::Arp => "ARP",
            DropReason::End => "END",
        }
    }

    /// The ns-2 trace level that logs this drop.
    pub fn layer(self) -> &'static str {
        match self {
            DropReason::Ifq | DropReason::Arp | DropReason::End => "IFQ",
            DropReason::Ret | DropReason::Col | DropReason::Dup | DropReason::Bsy => "MAC",
            _ => "RTR",
        }
    }
}
