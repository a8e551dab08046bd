//! Tracing a run: what each node's layers did (an agent's packet handed
//! down, routing forwarding, a frame on the air, a reception lost, a drop),
//! as the evidence an ns-2 trace file gives (seed 002 Appendix B).
//!
//! The protocol layers never see any of it: the node reports what its
//! layers did through its context (`node::Ctx::tap`) to the world's one
//! `Tap`, which filters (`Filter`, the `[trace]` table) and hands each kept
//! event to the in-memory `trace` table (`[output] trace`) and to the file
//! sinks (`open::sinks`: trace.csv, anim.csv), which stream as the run goes.
//! Tracing only observes: a traced run has the same events and event hash
//! as an untraced one, and with tracing off every hook is one branch.

pub mod config;
pub mod csv;
pub mod event;
pub mod filter;
pub mod ns2;
pub mod open;
pub mod pcap;
pub mod row;
pub mod tap;

pub use row::TraceRow;
