//! The physical layer: propagation models, the per-node radio state, and the
//! channel that finds who hears a transmission.

pub mod channel;
pub mod config;
pub mod propagation;
pub mod radio;
mod signals;
pub mod timing;

#[cfg_attr(not(test), allow(unused_imports))]
pub use channel::{Channel, Link};
#[cfg_attr(not(test), allow(unused_imports))]
pub use propagation::RadioParams;
pub use radio::{Radio, RxOutcome, RxRules};
pub use timing::PhyTiming;
