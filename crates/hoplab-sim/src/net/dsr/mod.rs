//! PLACEHOLDER: interface skeleton, to be replaced by the protocol's
//! implementation (see the issue-3 helper brief).

use crate::net::routing::{Protocol, RouteAction};
use crate::net::DropReason;
use crate::rng::Stream;
use crate::time::SimTime;
use crate::wire::{NodeId, Packet};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DsrConfig {
    pub placeholder: f64,
}

impl Default for DsrConfig {
    fn default() -> Self {
        DsrConfig { placeholder: 1.0 }
    }
}

impl DsrConfig {
    pub const PRESETS: &'static [&'static str] = &[];
    pub fn preset(_name: &str) -> Option<DsrConfig> {
        None
    }
    /// Check values; Err((field, message)).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum DsrMsg {
    Placeholder,
}

impl DsrMsg {
    pub fn size(&self) -> u32 {
        8
    }
    pub fn kind(&self) -> &'static str {
        "dsr"
    }
}

pub struct Dsr {
    me: NodeId,
}

impl Dsr {
    pub fn new(me: NodeId, _cfg: &DsrConfig, _rng: Stream) -> Dsr {
        Dsr { me }
    }
}

impl Protocol for Dsr {
    fn route(&mut self, _now: SimTime, packet: Packet, out: &mut Vec<RouteAction>) {
        let _ = self.me;
        out.push(RouteAction::Drop { packet, reason: DropReason::Nrte });
    }
    fn receive(&mut self, _now: SimTime, _from: NodeId, _packet: Packet, _out: &mut Vec<RouteAction>) {}
    fn link_failed(&mut self, _now: SimTime, _next_hop: NodeId, _packet: Packet, _out: &mut Vec<RouteAction>) {}
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }
    fn handle_timeout(&mut self, _now: SimTime, _out: &mut Vec<RouteAction>) {}
    fn has_route(&self, _now: SimTime, _dst: NodeId) -> bool {
        false
    }
}
