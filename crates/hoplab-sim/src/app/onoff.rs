//! On-off periods for a CBR source, as ns-2's `Application/Traffic/Exponential`
//! (ns-2.35 `tools/expoo.cc`) draws them: at the start of each burst the
//! on period D is drawn and becomes a whole number of packets,
//! N = max(1, round(D / interval)) (`rem_ = int(burstlen_.value() + .5)`,
//! at least one); the packets go `interval` apart, and after the last one
//! the next burst starts `interval` + an off period later (`next_interval`
//! adds `idle_time_` when a burst is used up). So the source is on for
//! N * interval and off for the drawn period, and its mean rate is
//! rate * on / (on + off) when on >> interval. `Fixed` uses `on_s` and
//! `off_s` as they are (ns-2's CBR with a start/stop script).

use crate::rng::Stream;
use super::config::OnOffDistribution;
use crate::time::Dur;

pub struct OnOff {
    on_s: f64,
    off_s: f64,
    dist: OnOffDistribution,
    rng: Stream,
    /// Packets left in the current burst.
    left: u64,
}

impl OnOff {
    pub fn new(on_s: f64, off_s: f64, dist: OnOffDistribution, rng: Stream) -> OnOff {
        OnOff { on_s, off_s, dist, rng, left: 0 }
    }

    fn draw(&mut self, mean: f64) -> f64 {
        match self.dist {
            OnOffDistribution::Fixed => mean,
            // Inverse transform; 1 - u is in (0, 1], so the log is finite.
            OnOffDistribution::Exponential => -mean * (1.0 - self.rng.unit()).ln(),
        }
    }

    /// The first burst starts now: draw its length.
    pub fn start(&mut self, interval: Dur) {
        self.new_burst(interval);
    }

    fn new_burst(&mut self, interval: Dur) {
        let d = self.draw(self.on_s);
        self.left = ((d / interval.as_secs_f64()) + 0.5).floor().max(1.0) as u64;
    }

    /// A packet was sent: the time to the next one (the interval, or the
    /// interval plus an off period when the burst is used up).
    pub fn after_packet(&mut self, interval: Dur) -> Dur {
        self.left = self.left.saturating_sub(1);
        if self.left > 0 {
            return interval;
        }
        let off = self.draw(self.off_s);
        self.new_burst(interval);
        interval + Dur::from_secs_f64(off)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::cbr::CbrSource;
    use crate::rng::Purpose;
    use crate::time::SimTime;

    /// Drive a source's timer alone for `secs`: (packets sent, instants).
    fn drive(src: &mut CbrSource, secs: f64) -> Vec<f64> {
        let mut out = Vec::new();
        let mut sent = Vec::new();
        while let Some(t) = src.next_at {
            src.handle_timer(t);
            src.poll_transmit(&mut out);
            sent.push(t.as_secs_f64());
            if t.as_secs_f64() > secs {
                break;
            }
        }
        sent
    }

    fn source(on: f64, off: f64, dist: OnOffDistribution, seed: u64, secs: f64) -> CbrSource {
        // 64 kbit/s of 512-byte datagrams: one every 64 ms while on.
        CbrSource::new(0, 1, 512, 64.0, SimTime::ZERO, SimTime::from_secs_f64(secs)).with_onoff(OnOff::new(on, off, dist, Stream::new(seed, 0, Purpose::App)))
    }

    #[test]
    fn fixed_periods_repeat_exactly() {
        // On 1 s = round(1 / 0.064) = 16 packets (0.96 s of sending, 1.024 s
        // of on time); the next burst starts 0.064 + 1 s after the last packet.
        let sent = drive(&mut source(1.0, 1.0, OnOffDistribution::Fixed, 1, 20.24), 20.24);
        assert_eq!(sent.len(), 160, "ten cycles of 2.024 s");
        assert!((sent[16] - 2.024).abs() < 1e-6 && (sent[15] - 0.96).abs() < 1e-6, "{:?}", &sent[14..18]);
    }

    #[test]
    fn exponential_periods_give_the_duty_cycle_and_mean_rate() {
        let secs = 20_000.0;
        for (on, off) in [(1.0, 1.0), (0.5, 1.5)] {
            let sent = drive(&mut source(on, off, OnOffDistribution::Exponential, 7, secs), secs);
            let on_time = sent.len() as f64 * 0.064;
            let duty = on_time / secs;
            let want = on / (on + off);
            // ~10,000 cycles: the duty cycle's standard error is under 1 %.
            assert!((duty / want - 1.0).abs() < 0.04, "on {on} off {off}: duty {duty} vs {want}");
            let rate_kbps = sent.len() as f64 * 512.0 * 8.0 / secs / 1e3;
            assert!((rate_kbps / (64.0 * want) - 1.0).abs() < 0.04, "rate {rate_kbps}");
        }
    }
}
