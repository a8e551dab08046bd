//! hoplab-emu: runs the engine's emulation bridge (`hoplab_sim::Emulation`)
//! against the real clock. Real nodes get a network namespace with a TUN
//! device (`net.rs`); packets read from a TUN enter the simulation stamped
//! at arrival plus a look-ahead, and deliveries are written out at their
//! simulated times (`driver.rs`, `clock.rs`); every write's lateness is
//! measured (`lateness.rs`); the ingress is logged for replay (`log.rs`).
//! The engine itself knows nothing of this crate.

pub mod clock;
pub mod driver;
pub mod lateness;
pub mod log;
pub mod net;

pub use driver::{run_live, Config, OnLag, Report, Stop};
pub use lateness::Lateness;
pub use log::{read_log, replay, IngressLog};
pub use net::{can_emulate, create, NodeNet, Setup};
