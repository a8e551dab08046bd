//! TCP state-machine tests, one file per behaviour; `support` holds the
//! named fixtures and a tiny two-endpoint network.

mod support;

mod ack_policy;
mod adtcp;
mod clamp;
mod config;
mod ecn;
mod elfn;
mod fast_recovery;
mod few;
mod ns2_flags;
mod rto;
mod rwnd;
mod sack;
mod sink;
mod slow_start;
mod stream;
mod tahoe;
mod transfer;
mod vegas;
