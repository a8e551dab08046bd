//! Whole-system tests that drive the engine's internals (`World`, the
//! mobility models, the field table, fault hooks), moved here from
//! tests/ when the modules became private; their assertions are unchanged.

#![allow(dead_code)]

mod common;
mod dsr_amplification;
mod dsr_scenarios;
mod flows_at_scale;
mod mobility_walk;
mod mobility_waypoint;
mod schema_props;
mod stream_integrity;
mod bridge;
mod trace_stream;
mod ns2_trace;
mod trace_pcap;
mod shadowing;
