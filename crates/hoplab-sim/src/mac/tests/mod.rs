//! DCF state-machine tests, one file per behaviour; `support` holds the
//! one-station driver, the named fixtures and the IEEE 802.11-1999 numbers.

mod support;

mod access;
mod nav;
mod ns2;
mod retry;
mod rts_cts;
mod timeout;
