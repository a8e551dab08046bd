//! The physical layer: propagation models, the per-node radio state, and the
//! channel that finds who hears a transmission.

pub mod channel;
pub mod config;
pub mod propagation;
pub mod radio;
pub mod timing;

pub use channel::{Channel, Link};
pub use propagation::{PathLoss, RadioParams};
pub use radio::{Radio, RxOutcome};
pub use timing::PhyTiming;
