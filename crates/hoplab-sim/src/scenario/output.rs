//! The `[output]` table: which optional tables a run records.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Record cwnd/ssthresh/srtt/rto time series.
    pub timeseries: bool,
    /// Seconds per time-series bucket: each TCP flow's series keeps the last
    /// change of cwnd/ssthresh/srtt/rto in every bucket (the step function
    /// is exact at each bucket's end). Range 0 to 1e7 s; 0 (default) keeps
    /// every change. Our choice, issue 10 item 5; see crate::series.
    pub timeseries_interval_s: f64,
    /// Most samples one flow's time series holds (a count). When it is
    /// reached the bucket width doubles (from `timeseries_interval_s`, or
    /// 1 µs) and the samples held merge, so memory stays bounded and the
    /// series still spans the whole run at an even resolution. Range 16 to
    /// 1,000,000; default 50,000 (every change of a loaded 1-hop flow for
    /// about 800 s; at most ~2.4 MB per flow in the engine).
    pub timeseries_max_samples: u32,
    /// Record the event trace in memory (what every layer sent, received,
    /// forwarded and dropped, filtered by `[trace]`): the `trace` table. Off
    /// by default; it grows with traffic (`[trace] formats` streams it to
    /// files instead).
    pub trace: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            timeseries: true,
            trace: false,
            timeseries_interval_s: 0.0,
            timeseries_max_samples: crate::series::DEFAULT_MAX_SAMPLES,
        }
    }
}

impl Output {
    /// How the TCP time series are recorded; `None` when they are not.
    pub fn series_limits(&self) -> Option<crate::series::SeriesLimits> {
        self.timeseries.then(|| crate::series::SeriesLimits {
            interval: crate::time::Dur::from_secs_f64(self.timeseries_interval_s),
            max_samples: self.timeseries_max_samples,
        })
    }
}
