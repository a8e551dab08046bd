//! Addresses. IP and MAC addresses are both the node id.

/// A node's address. IP and MAC addresses are both the node id; the
/// broadcast address is `BROADCAST` at both layers.
pub type NodeId = u32;
pub const BROADCAST: NodeId = u32::MAX;
