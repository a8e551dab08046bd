//! Which events a trace keeps (`[trace]` nodes, layers, packet_types,
//! events, start_s..end_s). The node and time tests come first: they are
//! the ones every sink shares (the animator's log keeps its own event set
//! within them), and the ones that reject most events of a filtered trace.

use super::config::{TraceConfig, DROP_LEVELS, EVENTS, LAYERS, PACKET_TYPES};
use super::event::{Layer, TraceEvent, What};
use crate::time::SimTime;
use crate::wire::{NodeId, PacketType};

#[derive(Debug, Clone)]
pub struct Filter {
    /// `nodes[n]`: node n is kept; empty: every node.
    nodes: Vec<bool>,
    /// Bit `Layer as u8`, `What as u8`, `PacketType as u8` set: kept.
    layers: u8,
    /// Bit i: drops logged at `DROP_LEVELS[i]` pass the layer test.
    drop_levels: u8,
    events: u8,
    ptypes: u8,
    start: SimTime,
    end: SimTime,
}

fn mask<T: Copy>(names: &[String], all: &[&str], of: impl Fn(usize) -> T, bit: impl Fn(T) -> u8) -> u8 {
    if names.is_empty() {
        return u8::MAX;
    }
    // Names are validated (scenario::validate); an unknown one keeps nothing.
    names.iter().filter_map(|n| all.iter().position(|a| a == n)).fold(0, |m, i| m | 1 << bit(of(i)))
}

impl Filter {
    /// The filter of a validated `[trace]` table for a run of `n` nodes ending at `end`.
    pub fn new(c: &TraceConfig, n: usize, end: SimTime) -> Filter {
        let mut nodes = Vec::new();
        if !c.nodes.is_empty() {
            nodes = vec![false; n];
            for &k in &c.nodes {
                if let Some(slot) = nodes.get_mut(k as usize) {
                    *slot = true;
                }
            }
        }
        Filter {
            nodes,
            layers: mask(&c.layers, LAYERS, |i| Layer::ALL[i], |l| l as u8),
            drop_levels: c.drop_levels.iter().filter_map(|n| DROP_LEVELS.iter().position(|a| a == n)).fold(0, |m, i| m | 1 << i),
            events: mask(&c.events, EVENTS, |i| What::ALL[i], |w| w as u8),
            ptypes: mask(&c.packet_types, PACKET_TYPES, |i| PacketType::ALL[i], |p| p as u8),
            start: SimTime::from_secs_f64(c.start_s),
            end: c.end_s.map_or(end, SimTime::from_secs_f64).min(end),
        }
    }

    /// The node and the time are kept (what every sink, the animator's log
    /// included, is limited to).
    #[inline]
    pub fn in_scope(&self, node: NodeId, time: SimTime) -> bool {
        time >= self.start && time <= self.end && (self.nodes.is_empty() || self.nodes.get(node as usize).copied().unwrap_or(false))
    }

    /// Every test passes: layer, event and packet type (call after `in_scope`).
    #[inline]
    pub fn keeps(&self, ev: &TraceEvent<'_>) -> bool {
        (self.layers & 1 << ev.layer as u8 != 0 || self.drop_level_kept(ev)) && self.events & 1 << ev.what as u8 != 0 && self.ptypes & 1 << ev.ptype as u8 != 0
    }

    /// A drop at a level `drop_levels` names (the level the ns-2 trace prints).
    #[inline]
    fn drop_level_kept(&self, ev: &TraceEvent<'_>) -> bool {
        if self.drop_levels == 0 || ev.what != What::Drop {
            return false;
        }
        let level = match ev.reason {
            Some(crate::net::DropReason::Col) | None => "MAC",
            Some(r) => r.layer(),
        };
        DROP_LEVELS.iter().position(|l| *l == level).is_some_and(|i| self.drop_levels & 1 << i != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::DropReason;

    fn ev(node: NodeId, t: f64, layer: Layer, what: What, ptype: PacketType) -> TraceEvent<'static> {
        TraceEvent { time: SimTime::from_secs_f64(t), node, layer, what, frame: None, packet: None, ptype, reason: None, airtime: None, power_w: None, next_hop: None, pos: (0.0, 0.0) }
    }

    fn config(f: impl FnOnce(&mut TraceConfig)) -> Filter {
        let mut c = TraceConfig::default();
        f(&mut c);
        Filter::new(&c, 5, SimTime::from_secs_f64(10.0))
    }

    #[test]
    fn empty_lists_keep_everything_within_the_run() {
        let f = config(|_| {});
        for node in 0..5 {
            for layer in Layer::ALL {
                for what in What::ALL {
                    let e = ev(node, 3.0, layer, what, PacketType::Routing);
                    assert!(f.in_scope(e.node, e.time) && f.keeps(&e));
                }
            }
        }
        assert!(f.in_scope(0, SimTime::ZERO) && f.in_scope(0, SimTime::from_secs_f64(10.0)));
        assert!(!f.in_scope(0, SimTime::from_secs_f64(10.000000001)), "after the end of the run");
    }

    #[test]
    fn nodes_and_window_bound_the_scope() {
        let f = config(|c| {
            c.nodes = vec![1, 3];
            c.start_s = 2.0;
            c.end_s = Some(4.0);
        });
        let kept: Vec<NodeId> = (0..5).filter(|&n| f.in_scope(n, SimTime::from_secs_f64(3.0))).collect();
        assert_eq!(kept, vec![1, 3]);
        assert!(!f.in_scope(1, SimTime::from_secs_f64(1.999999999)));
        assert!(f.in_scope(1, SimTime::from_secs_f64(2.0)) && f.in_scope(1, SimTime::from_secs_f64(4.0)));
        assert!(!f.in_scope(1, SimTime::from_secs_f64(4.000000001)));
        // A node beyond the topology (refused by validation) keeps nothing and does not panic.
        assert!(!f.in_scope(7, SimTime::from_secs_f64(3.0)));
    }

    #[test]
    fn layers_events_and_types_each_restrict() {
        let f = config(|c| {
            c.layers = vec!["MAC".into(), "PHY".into()];
            c.events = vec!["send".into(), "drop".into()];
            c.packet_types = vec!["tcp".into()];
        });
        assert!(f.keeps(&ev(0, 1.0, Layer::Mac, What::Send, PacketType::Tcp)));
        assert!(f.keeps(&ev(0, 1.0, Layer::Phy, What::Drop, PacketType::Tcp)));
        assert!(!f.keeps(&ev(0, 1.0, Layer::Rtr, What::Send, PacketType::Tcp)), "layer");
        assert!(!f.keeps(&ev(0, 1.0, Layer::Agt, What::Send, PacketType::Tcp)), "layer");
        assert!(!f.keeps(&ev(0, 1.0, Layer::Mac, What::Recv, PacketType::Tcp)), "event");
        assert!(!f.keeps(&ev(0, 1.0, Layer::Phy, What::Weak, PacketType::Tcp)), "event");
        assert!(!f.keeps(&ev(0, 1.0, Layer::Mac, What::Send, PacketType::Ack)), "packet type");
        assert!(!f.keeps(&ev(0, 1.0, Layer::Mac, What::Send, PacketType::Mac)), "packet type");
        let mut d = ev(0, 1.0, Layer::Mac, What::Drop, PacketType::Tcp);
        d.reason = Some(DropReason::Ifq);
        assert!(f.keeps(&d));
    }

    #[test]
    fn drop_levels_keep_those_drops_outside_the_layers() {
        // ns-2 with agentTrace ON only: AGT lines, and RTR and IFQ drops whatever the switches say.
        let f = config(|c| {
            c.layers = vec!["AGT".into()];
            c.drop_levels = vec!["RTR".into(), "IFQ".into()];
        });
        let drop = |layer, r| {
            let mut d = ev(0, 1.0, layer, What::Drop, PacketType::Cbr);
            d.reason = Some(r);
            d
        };
        assert!(f.keeps(&drop(Layer::Rtr, DropReason::Nrte)));
        assert!(f.keeps(&drop(Layer::Mac, DropReason::Ifq)), "a queue drop is logged at IFQ");
        assert!(f.keeps(&drop(Layer::Rtr, DropReason::Arp)), "an ARP drop is logged at IFQ");
        assert!(!f.keeps(&drop(Layer::Mac, DropReason::Ret)), "MAC drops only with the MAC layer");
        assert!(!f.keeps(&drop(Layer::Mac, DropReason::Col)));
        assert!(!f.keeps(&ev(0, 1.0, Layer::Rtr, What::Send, PacketType::Cbr)), "only drops");
        assert!(f.keeps(&ev(0, 1.0, Layer::Agt, What::Send, PacketType::Cbr)));
    }

    #[test]
    fn every_name_maps_to_its_own_bit() {
        for (i, name) in LAYERS.iter().enumerate() {
            let f = config(|c| c.layers = vec![name.to_string()]);
            for l in Layer::ALL {
                assert_eq!(f.keeps(&ev(0, 1.0, l, What::Send, PacketType::Tcp)), l == Layer::ALL[i], "{name}");
                assert_eq!(l.name() == *name, l == Layer::ALL[i]);
            }
        }
        for (i, name) in EVENTS.iter().enumerate() {
            let f = config(|c| c.events = vec![name.to_string()]);
            for w in What::ALL {
                assert_eq!(f.keeps(&ev(0, 1.0, Layer::Mac, w, PacketType::Tcp)), w == What::ALL[i], "{name}");
                assert_eq!(w.name() == *name, w == What::ALL[i]);
            }
        }
        for (i, name) in PACKET_TYPES.iter().enumerate() {
            let f = config(|c| c.packet_types = vec![name.to_string()]);
            assert_eq!(PacketType::ALL[i].name(), *name);
            let kept: Vec<usize> = (0..6).filter(|&j| f.keeps(&ev(0, 1.0, Layer::Mac, What::Send, PacketType::ALL[j]))).collect();
            assert_eq!(kept, vec![i], "{name}");
        }
    }
}
