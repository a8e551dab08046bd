//! RFC 6298 retransmission-timeout estimator, in integer nanoseconds.
//!
//! Divisions truncate to the nanosecond, so results are exact and
//! deterministic (no floating point).

use crate::time::Dur;

/// SRTT / RTTVAR / RTO with exponential backoff.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    /// Current RTO, including any backoff.
    rto: Dur,
    min: Dur,
    max: Dur,
    granularity: Dur,
}

impl RttEstimator {
    pub fn new(initial: Dur, min: Dur, max: Dur, granularity: Dur) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            // RFC 6298 (2.1); (2.5) upper bound. Never below 1 ns: a
            // timeout of 0 would fire at the same instant forever (livelock
            // with `initial_rto`/`max_rto` = 1e-12, issue 10).
            rto: initial.min(max).max(Dur(1)),
            min,
            max: max.max(Dur(1)),
            granularity,
        }
    }

    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }
    #[cfg(test)]
    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }
    pub fn rto(&self) -> Dur {
        self.rto
    }

    /// Take a new RTT measurement `r` (the caller applies Karn's rule).
    /// A valid sample also ends any backoff (RFC 6298 §5, note after (5.7)).
    pub fn sample(&mut self, r: Dur) {
        match self.srtt {
            None => {
                // RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = Dur(r.0 / 2);
            }
            Some(srtt) => {
                // RFC 6298 (2.3), beta = 1/4, alpha = 1/8; RTTVAR uses the old SRTT.
                let diff = srtt.0.abs_diff(r.0);
                self.rttvar = Dur((3 * self.rttvar.0 + diff) / 4);
                self.srtt = Some(Dur((7 * srtt.0 + r.0) / 8));
            }
        }
        self.rto = self.computed();
    }

    /// RTO = SRTT + max(G, K*RTTVAR), K = 4 (RFC 6298 (2.2)/(2.3)),
    /// clamped to [min, max] (RFC 6298 (2.4), (2.5)).
    fn computed(&self) -> Dur {
        let srtt = self.srtt.unwrap_or(Dur::ZERO);
        let rto = srtt + self.granularity.max(self.rttvar.mul(4));
        rto.max(self.min).min(self.max)
    }

    /// The retransmission timer expired: RTO <- 2 * RTO, capped (RFC 6298 (5.5), (2.5)).
    /// The backed-off value stays until the next valid sample.
    pub fn backoff(&mut self) {
        self.rto = Dur(self.rto.0.saturating_mul(2)).min(self.max);
    }
}
