//! The WWW client model of seed 002 §8.6 (the "Realistic experiment"),
//! after Abrahamsson & Ahlgren (GLOBECOM 2000, the thesis's [24]): a user at
//! the client (`dst`) downloads a page from the server (`src`), reads it for a
//! think time, clicks again, up to `downloads` times (15 in the thesis).
//!
//! Modelling choices (each also in README "Workloads"):
//! - **One TCP transfer per download.** The thesis counts "TCP transfers"
//!   one per download (75 for 5 clients x 15) and fits each download's
//!   segment size to it, which only separate ns-2 agents allow; so every
//!   download starts a fresh sender (slow start, initial RTO) and sink. ns-2
//!   TCP has no handshake and neither has hoplab's. Download k's segments are
//!   numbered from k << 32, so a late segment or ACK of an earlier download
//!   is recognised and ignored.
//! - **The server drives the session.** A download ends when its last byte
//!   is acknowledged at the server (seed 002 §7.1: throughput is the time to
//!   acknowledge the payload at the sender); the next one starts a think
//!   time later. No request packet is modelled (the thesis's ns-2
//!   communication patterns had none either).
//! - **Distributions.** Abrahamsson & Ahlgren's distributions are empirical
//!   CDFs measured from a packet trace; their values are not published in
//!   any source we could reach (the search found the paper's abstract only).
//!   The thesis gives the median download size, 7145 bytes (§8.7), and a
//!   heavy-tailed think time (one user waited ~800 s, §8.6.1). We use a
//!   lognormal download size with that median and sigma 1.318 (the body-size
//!   sigma of Barford & Crovella's SURGE, SIGMETRICS 1998), and a Pareto think
//!   time with shape 1.5 and scale 1 s (SURGE's inactive OFF time). All four
//!   are scenario fields.
//! - Draws come from the flow's own stream (crate::rng, Purpose::App), in
//!   event order (a size when a download starts, a think time when it ends),
//!   so a run is deterministic per seed.

use crate::rng::Stream;
use crate::tcp::{SenderStats, TcpConfig, TcpSender, TcpSink};
use crate::time::{Dur, SimTime};
use crate::wire::{Body, NodeId, TcpSegment};

/// Download k's segments are numbered from k << DOWNLOAD_SHIFT.
pub const DOWNLOAD_SHIFT: u32 = 32;

/// The model's parameters (defaults: see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WwwParams {
    pub downloads: u32,
    pub think_shape: f64,
    pub think_scale_s: f64,
    pub size_median_bytes: f64,
    pub size_sigma: f64,
}

impl Default for WwwParams {
    fn default() -> Self {
        // Seed 002 §8.6 (15 downloads), §8.7 (median 7145 B); SURGE (sigma, think time).
        WwwParams { downloads: 15, think_shape: 1.5, think_scale_s: 1.0, size_median_bytes: 7145.0, size_sigma: 1.318 }
    }
}

impl WwwParams {
    pub fn from_flow(f: &super::config::Flow) -> WwwParams {
        let d = WwwParams::default();
        WwwParams {
            downloads: f.downloads.unwrap_or(d.downloads),
            think_shape: f.think_shape.unwrap_or(d.think_shape),
            think_scale_s: f.think_scale_s.unwrap_or(d.think_scale_s),
            size_median_bytes: f.size_median_bytes.unwrap_or(d.size_median_bytes),
            size_sigma: f.size_sigma.unwrap_or(d.size_sigma),
        }
    }

    /// A download size in bytes: lognormal, median `size_median_bytes`
    /// (Box-Muller normal from two uniforms), at least 1 byte.
    pub fn draw_size(&self, rng: &mut Stream) -> u64 {
        let (u1, u2) = (1.0 - rng.unit(), rng.unit()); // u1 in (0, 1]
        let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        (self.size_median_bytes * (self.size_sigma * z).exp()).round().clamp(1.0, 1e12) as u64
    }

    /// A think time in seconds: Pareto, P(X > x) = (scale / x)^shape for x >= scale.
    pub fn draw_think_s(&self, rng: &mut Stream) -> f64 {
        self.think_scale_s * (1.0 - rng.unit()).powf(-1.0 / self.think_shape)
    }
}

/// One download as the server saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Download {
    pub start: SimTime,
    /// When its last byte was acknowledged; None if it never was.
    pub end: Option<SimTime>,
    pub bytes: u64,
}

/// The server end: one TCP sender per download.
pub struct WwwServer {
    pub flow: u32,
    pub dst: NodeId,
    cfg: TcpConfig,
    params: WwwParams,
    rng: Stream,
    sender: Option<TcpSender>,
    next_start: Option<SimTime>,
    stop: Option<SimTime>,
    stopped: bool,
    pub downloads: Vec<Download>,
    /// Counters of the finished downloads' senders.
    finished: Vec<SenderStats>,
}

impl WwwServer {
    pub fn new(flow: u32, dst: NodeId, cfg: &TcpConfig, params: WwwParams, rng: Stream, start: SimTime, stop: Option<SimTime>) -> WwwServer {
        WwwServer { flow, dst, cfg: cfg.clone(), params, rng, sender: None, next_start: Some(start), stop, stopped: false, downloads: Vec::new(), finished: Vec::new() }
    }

    pub fn handle_timer(&mut self, now: SimTime, slot: usize) {
        if slot == 0 {
            if let Some(s) = self.sender.as_mut() {
                s.handle_timeout(now);
            }
            return;
        }
        if self.stop.is_some_and(|t| now >= t) {
            // The flow's stop time: no new download, no new data (as FTP).
            self.stopped = true;
            self.next_start = None;
            if let Some(s) = self.sender.as_mut() {
                s.stop();
            }
            return;
        }
        if self.next_start.is_some_and(|t| now >= t) {
            self.next_start = None;
            let k = self.downloads.len() as u64;
            let bytes = self.params.draw_size(&mut self.rng);
            let s = TcpSender::new(self.flow, &self.cfg, Some(bytes), false).with_trace_limits(None).starting_at(k << DOWNLOAD_SHIFT);
            self.sender = Some(s);
            self.downloads.push(Download { start: now, end: None, bytes });
        }
    }

    pub fn handle_ack(&mut self, now: SimTime, seg: &TcpSegment) {
        let k = self.downloads.len() as u64;
        let Some(s) = self.sender.as_mut() else { return };
        if k == 0 || seg.ackno >> DOWNLOAD_SHIFT != k - 1 {
            return; // an ACK of an earlier download
        }
        s.handle_ack(now, seg);
        if s.is_done() {
            self.finished.push(s.stats().clone());
            self.sender = None;
            self.downloads.last_mut().expect("a download under way").end = Some(now);
            if (self.downloads.len() as u32) < self.params.downloads && !self.stopped {
                let think = self.params.draw_think_s(&mut self.rng);
                self.next_start = Some(now + Dur::from_secs_f64(think));
            }
        }
    }

    pub fn route_lost(&mut self, now: SimTime) -> bool {
        self.sender.as_mut().is_some_and(|s| s.handle_elfn(now))
    }

    pub fn poll_transmit(&mut self, now: SimTime, out: &mut Vec<Body>) {
        if let Some(s) = self.sender.as_mut() {
            while let Some(seg) = s.poll_transmit(now) {
                out.push(Body::Tcp(seg));
            }
        }
    }

    pub fn timeouts(&self) -> [Option<SimTime>; 2] {
        let app = if self.stopped {
            None
        } else {
            match (self.next_start, self.stop) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        [self.sender.as_ref().and_then(TcpSender::poll_timeout), app]
    }

    /// The counters of every download's sender, summed.
    pub fn totals(&self) -> SenderStats {
        let mut t = SenderStats::default();
        for s in self.finished.iter().chain(self.sender.as_ref().map(TcpSender::stats)) {
            t.segments_sent += s.segments_sent;
            t.retransmissions += s.retransmissions;
            t.timeouts += s.timeouts;
            t.fast_retransmits += s.fast_retransmits;
            t.rtt_samples += s.rtt_samples;
            t.rtt_sum_s += s.rtt_sum_s;
            t.rtt_sum_sq_s += s.rtt_sum_sq_s;
            t.ecn_reductions += s.ecn_reductions;
            t.elfn_events += s.elfn_events;
            t.probes += s.probes;
        }
        t
    }
}

/// The client end: a fresh TCP sink per download.
pub struct WwwClient {
    pub flow: u32,
    pub src: NodeId,
    cfg: TcpConfig,
    /// The download under way and its sink.
    cur: Option<(u64, TcpSink)>,
    /// Delivered bytes, distinct segments and stream errors of earlier sinks.
    pub bytes_before: u64,
    pub segments_before: u64,
    pub stream_errors_before: u64,
}

impl WwwClient {
    pub fn new(flow: u32, src: NodeId, cfg: &TcpConfig) -> WwwClient {
        WwwClient { flow, src, cfg: cfg.clone(), cur: None, bytes_before: 0, segments_before: 0, stream_errors_before: 0 }
    }

    pub fn handle_segment(&mut self, now: SimTime, seg: &TcpSegment, sent: SimTime) {
        let k = seg.seqno >> DOWNLOAD_SHIFT;
        match &self.cur {
            Some((cur, _)) if k < *cur => return, // a late segment of an earlier download
            Some((cur, _)) if k == *cur => {}
            _ => {
                if let Some((_, old)) = self.cur.take() {
                    let st = old.stats();
                    self.bytes_before += st.bytes_delivered;
                    self.segments_before += st.segments_unique;
                    self.stream_errors_before += st.stream_errors;
                }
                let sink = TcpSink::new(self.flow, &self.cfg).starting_at(k << DOWNLOAD_SHIFT, self.cfg.mss.max(1));
                self.cur = Some((k, sink));
            }
        }
        let (_, sink) = self.cur.as_mut().expect("set above");
        sink.handle_segment_sent(now, seg, sent);
    }

    pub fn handle_timeout(&mut self, now: SimTime) {
        if let Some((_, s)) = self.cur.as_mut() {
            s.handle_timeout(now);
        }
    }

    pub fn poll_transmit(&mut self, now: SimTime, out: &mut Vec<Body>) {
        if let Some((_, s)) = self.cur.as_mut() {
            while let Some(a) = s.poll_transmit(now) {
                out.push(Body::Tcp(a));
            }
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.cur.as_ref().and_then(|(_, s)| s.poll_timeout())
    }

    /// (bytes delivered, distinct segments, stream errors) over all downloads.
    pub fn totals(&self) -> (u64, u64, u64) {
        let (b, g, e) = self.cur.as_ref().map_or((0, 0, 0), |(_, s)| {
            let st = s.stats();
            (st.bytes_delivered, st.segments_unique, st.stream_errors)
        });
        (self.bytes_before + b, self.segments_before + g, self.stream_errors_before + e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    fn quantile(v: &mut [f64], q: f64) -> f64 {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * q).round() as usize]
    }

    #[test]
    fn download_sizes_are_lognormal_with_the_thesis_median() {
        let p = WwwParams::default();
        let mut rng = Stream::new(1, 0, Purpose::App);
        let n = 200_000;
        let mut logs: Vec<f64> = (0..n).map(|_| (p.draw_size(&mut rng) as f64).ln()).collect();
        let mean = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        // ln X ~ N(ln 7145, 1.318^2): standard errors 0.003 and 0.002.
        assert!((mean - 7145f64.ln()).abs() < 0.015, "mean of ln size {mean}");
        assert!((sd - 1.318).abs() < 0.01, "sd of ln size {sd}");
        let median = quantile(&mut logs, 0.5).exp();
        assert!((median / 7145.0 - 1.0).abs() < 0.02, "median {median}");
        // The 90th percentile: median * exp(1.2816 sigma) = 38,530 bytes.
        let q90 = quantile(&mut logs, 0.9).exp();
        assert!((q90 / (7145.0 * (1.2816f64 * 1.318).exp()) - 1.0).abs() < 0.03, "q90 {q90}");
    }

    #[test]
    fn think_times_are_pareto() {
        let p = WwwParams { think_shape: 1.5, think_scale_s: 2.0, ..WwwParams::default() };
        let mut rng = Stream::new(2, 0, Purpose::App);
        let mut v: Vec<f64> = (0..200_000).map(|_| p.draw_think_s(&mut rng)).collect();
        assert!(v.iter().all(|&x| x >= 2.0));
        // Quantiles of a Pareto: scale * (1 - q)^(-1/shape).
        for q in [0.25, 0.5, 0.9, 0.99] {
            let want = 2.0 * (1.0f64 - q).powf(-1.0 / 1.5);
            let got = quantile(&mut v, q);
            assert!((got / want - 1.0).abs() < 0.03, "q{q}: {got} vs {want}");
        }
    }
}
