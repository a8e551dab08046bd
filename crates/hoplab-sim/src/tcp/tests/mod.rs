//! TCP state-machine tests, one file per behaviour; `support` holds the
//! named fixtures and a tiny two-endpoint network.

mod support;

mod adtcp;
mod clamp;
mod config;
mod elfn;
mod fast_recovery;
mod rto;
mod rwnd;
mod sink;
mod slow_start;
mod tahoe;
mod transfer;
