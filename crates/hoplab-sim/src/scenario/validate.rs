//! The rules parsing alone cannot check: each number against its range in
//! the field table (schema::fields), then the rules between fields, then
//! the cost limit (cost.rs).

use super::error::{err, ScenarioError};
use super::model::Scenario;
use crate::app::config::{Flow, FlowKind};
use crate::mobility::config::{MobilityModel, Topology};
use crate::phy::config::Propagation;
use crate::tcp::config::{TcpParams, TcpReceiver};

impl Scenario {
    /// Check every value that parsing alone cannot; the first problem found
    /// is returned. Every number is first checked against its documented
    /// range (scenario::schema::fields), then the rules between fields.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.validate_ranges()?;
        if let Topology::Explicit { positions } = &self.topology {
            if positions.is_empty() {
                return err("topology.positions", "needs at least one [x, y] position");
            }
        }
        let n = self.node_count();
        if n > 1_000_000 {
            return err("topology", format!("{n} nodes is more than the supported 1,000,000"));
        }
        self.validate_radio()?;
        self.validate_mac()?;
        self.routing.resolve()?;
        self.validate_mobility(n)?;
        validate_tcp("tcp", &self.tcp)?;
        self.validate_lred()?;
        self.validate_trace(n)?;
        for (i, f) in self.flows.iter().enumerate() {
            self.validate_flow(&format!("flows[{i}]"), f, n)?;
        }
        self.validate_emulation(n)?;
        // Once, after every part is known valid; also for a run without flows
        // (mobility and routing alone can make a run that never ends).
        super::cost::check(self)
    }

    /// The table-driven range walk over the serialised scenario.
    fn validate_ranges(&self) -> Result<(), ScenarioError> {
        // TOML integers are i64: the seed has no range, and a byte count
        // this large is out of range anyway.
        let mut sc = self.clone();
        sc.seed = 0;
        for f in &mut sc.flows {
            f.bytes = f.bytes.map(|b| b.min(i64::MAX as u64));
        }
        let tree = toml::Value::try_from(&sc).map_err(|e| ScenarioError::new("", e.to_string()))?;
        super::schema::ranges::check("", &tree)
    }

    fn validate_flow(&self, p: &str, f: &Flow, n: usize) -> Result<(), ScenarioError> {
        for (name, node) in [("src", f.src), ("dst", f.dst)] {
            if node as usize >= n {
                return err(format!("{p}.{name}"), format!("node {node} does not exist (the topology has {n} nodes, 0..{})", n - 1));
            }
        }
        if f.src == f.dst {
            return err(format!("{p}.dst"), "must differ from src");
        }
        if f.start >= self.duration {
            return err(format!("{p}.start_s"), format!("{} s is not before the end of the run ({} s)", f.start, self.duration));
        }
        if let Some(stop) = f.stop {
            if stop <= f.start {
                return err(format!("{p}.stop_s"), format!("{stop} s must be after start_s ({} s)", f.start));
            }
        }
        let onoff = f.on_s.is_some() || f.off_s.is_some() || f.distribution.is_some();
        let www = f.downloads.is_some() || f.think_shape.is_some() || f.think_scale_s.is_some() || f.size_median_bytes.is_some() || f.size_sigma.is_some();
        if onoff && f.kind != FlowKind::Cbr {
            return err(p, "on_s, off_s and distribution apply to cbr flows only");
        }
        if onoff && (f.on_s.is_none() || f.off_s.is_none()) {
            return err(format!("{p}.{}", if f.on_s.is_none() { "on_s" } else { "off_s" }), "an on-off source needs both on_s and off_s");
        }
        if f.kind != FlowKind::Cbr {
            for (name, given) in [("jitter", f.jitter.is_some()), ("max_packets", f.max_packets.is_some())] {
                if given {
                    return err(format!("{p}.{name}"), "applies to cbr flows only (ns-2 Application/Traffic/CBR)");
                }
            }
        }
        if f.jitter == Some(true) && onoff {
            return err(format!("{p}.jitter"), "a cbr source with on_s/off_s has no jitter (ns-2 Application/Traffic/Exponential has no random_)");
        }
        if www && f.kind != FlowKind::Www {
            return err(p, "downloads, think_shape, think_scale_s, size_median_bytes and size_sigma apply to www flows only");
        }
        match f.kind {
            FlowKind::Www => {
                if f.rate_kbps.is_some() || f.packet_size.is_some() || f.bytes.is_some() {
                    return err(p, "rate_kbps, packet_size_bytes and bytes do not apply to www flows (sizes are drawn per download)");
                }
                validate_tcp(&format!("{p}.tcp"), &f.tcp)?;
                validate_vegas(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_receiver(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_windows(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
            }
            FlowKind::Ftp => {
                if f.rate_kbps.is_some() || f.packet_size.is_some() {
                    return err(p, "rate_kbps and packet_size_bytes apply to cbr flows, not ftp");
                }
                validate_tcp(&format!("{p}.tcp"), &f.tcp)?;
                validate_vegas(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_receiver(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
                validate_windows(&format!("{p}.tcp"), &f.tcp.or(&self.tcp))?;
            }
            FlowKind::Cbr => {
                if f.rate_kbps.is_none() {
                    return err(format!("{p}.rate_kbps"), "a cbr flow needs a rate in kbit/s");
                }
                if f.bytes.is_some() {
                    return err(format!("{p}.bytes"), "applies to ftp flows, not cbr");
                }
            }
        }
        Ok(())
    }

    fn validate_mobility(&self, n: usize) -> Result<(), ScenarioError> {
        let mut last_at: Vec<f64> = vec![f64::NEG_INFINITY; n];
        for (i, l) in self.mobility.legs.iter().enumerate() {
            let p = format!("mobility.legs[{i}]");
            if l.node as usize >= n {
                return err(format!("{p}.node"), format!("node {} does not exist (the topology has {n} nodes)", l.node));
            }
            if l.at < last_at[l.node as usize] {
                return err(format!("{p}.at_s"), format!("legs of node {} must be listed in time order", l.node));
            }
            last_at[l.node as usize] = l.at;
        }
        self.validate_waypoint()
    }

    /// The random models need an area and a speed range (mobility/waypoint.rs,
    /// walk.rs, direction.rs).
    fn validate_waypoint(&self) -> Result<(), ScenarioError> {
        let m = &self.mobility;
        let name = match m.model {
            MobilityModel::Legs => return Ok(()),
            MobilityModel::Waypoint => "waypoint",
            MobilityModel::Walk => "walk",
            MobilityModel::Direction => "direction",
        };
        if !matches!(self.topology, Topology::Random { .. }) {
            return err("mobility.model", format!("\"{name}\" needs topology.kind = \"random\": its area is topology.width_m x height_m"));
        }
        if !m.legs.is_empty() {
            return err("mobility.legs", format!("scripted legs need mobility.model = \"legs\", not \"{name}\""));
        }
        if m.model != MobilityModel::Waypoint && m.steady_state {
            return err("mobility.steady_state", format!("applies to model = \"waypoint\" only (Navidi & Camp's stationary start); \"{name}\" starts from the topology's positions"));
        }
        if m.model == MobilityModel::Walk && m.pause_s > 0.0 {
            return err("mobility.pause_s", "random walk never pauses (Camp et al. 2002, §2.1): pause_s applies to \"waypoint\" and \"direction\"");
        }
        if m.speed_max_mps < m.speed_min_mps || m.speed_max_mps <= 0.0 {
            return err("mobility.speed_max_mps", format!("{} m/s must be positive and at least speed_min_mps ({} m/s)", m.speed_max_mps, m.speed_min_mps));
        }
        if m.steady_state && m.speed_min_mps <= 0.0 {
            // Navidi & Camp 2004; Yoon, Liu & Noble 2003: E[1/V] is infinite.
            return err("mobility.speed_min_mps", "steady_state needs a positive minimum speed: with 0 the stationary speed density (proportional to 1/v) does not exist and the mean speed decays to 0");
        }
        Ok(())
    }

    /// `[trace]`: names from their lists (each once), nodes of the
    /// topology, a window inside the run.
    fn validate_trace(&self, n: usize) -> Result<(), ScenarioError> {
        use crate::trace::config::{DROP_LEVELS, EVENTS, FORMATS, LAYERS, NS2_FORMATS, PACKET_TYPES, PCAP_MODES};
        let t = &self.trace;
        for (name, given, allowed) in [("formats", &t.formats, FORMATS), ("layers", &t.layers, LAYERS), ("drop_levels", &t.drop_levels, DROP_LEVELS), ("packet_types", &t.packet_types, PACKET_TYPES), ("events", &t.events, EVENTS)] {
            for (i, v) in given.iter().enumerate() {
                if !allowed.contains(&v.as_str()) {
                    return err(format!("trace.{name}[{i}]"), format!("unknown {name} entry {v:?}: expected one of {}", quoted(allowed)));
                }
                if given[..i].contains(v) {
                    return err(format!("trace.{name}[{i}]"), format!("{v:?} is listed twice"));
                }
            }
        }
        for (name, v, allowed) in [("ns2_format", &t.ns2_format, NS2_FORMATS), ("pcap", &t.pcap, PCAP_MODES)] {
            if !allowed.contains(&v.as_str()) {
                return err(format!("trace.{name}"), format!("unknown value {v:?}: expected one of {}", quoted(allowed)));
            }
        }
        for (i, &k) in t.nodes.iter().enumerate() {
            if k as usize >= n {
                return err(format!("trace.nodes[{i}]"), format!("node {k} does not exist (the topology has {n} nodes, 0..{})", n - 1));
            }
        }
        let end = t.end_s.unwrap_or(self.duration);
        if t.start_s >= end {
            let which = if t.end_s.is_some() { "end_s" } else { "the end of the run" };
            return err("trace.start_s", format!("{} s must be before {which} ({end} s)", t.start_s));
        }
        if t.start_s >= self.duration {
            // An end_s past the run's end does not make a window: it would stream empty files.
            return err("trace.start_s", format!("{} s must be before the end of the run ({} s): the window {}-{end} s holds no event", t.start_s, self.duration, t.start_s));
        }
        Ok(())
    }

    /// `[emulation]` (the simulation ignores it; `hoplab emu` runs it): real
    /// nodes of the topology, each once; a namespace name per real node or
    /// none, each usable by `ip netns` and not shared; commands on real
    /// nodes, with a command line, starting before the end of the run.
    fn validate_emulation(&self, n: usize) -> Result<(), ScenarioError> {
        let Some(e) = &self.emulation else { return Ok(()) };
        if e.nodes.is_empty() {
            return err("emulation.nodes", "needs at least one real node, e.g. nodes = [0, 3]");
        }
        for (i, &k) in e.nodes.iter().enumerate() {
            if k as usize >= n {
                return err("emulation.nodes", format!("node {k} is not in the scenario (nodes 0..{})", n - 1));
            }
            if e.nodes[..i].contains(&k) {
                return err("emulation.nodes", format!("node {k} is listed twice"));
            }
        }
        if !e.namespaces.is_empty() && e.namespaces.len() != e.nodes.len() {
            return err(
                "emulation.namespaces",
                format!("{} name(s) for {} real node(s): give one per node of emulation.nodes, in its order (\"\" for a fresh namespace)", e.namespaces.len(), e.nodes.len()),
            );
        }
        for (i, name) in e.namespaces.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            if let Some(why) = netns_name_problem(name) {
                return err(format!("emulation.namespaces[{i}]"), format!("{name:?} is not a namespace name: {why}"));
            }
            if let Some(j) = e.namespaces[..i].iter().position(|m| m == name) {
                return err(
                    format!("emulation.namespaces[{i}]"),
                    format!("{name:?} is node {}'s namespace already: each real node needs its own (its TUN device and route to 10.0.0.0/16)", e.nodes[j]),
                );
            }
        }
        for (i, c) in e.commands.iter().enumerate() {
            let p = format!("emulation.commands[{i}]");
            if !e.nodes.contains(&c.node) {
                let real = e.nodes.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", ");
                return err(format!("{p}.node"), format!("node {} is not a real node (emulation.nodes = [{real}])", c.node));
            }
            if c.run.trim().is_empty() {
                return err(format!("{p}.run"), "is empty: give the command line to run in the node's namespace");
            }
            if let Some(why) = shell_words_problem(&c.run) {
                return err(format!("{p}.run"), format!("{:?} cannot be split into words: {why}", c.run));
            }
            if c.start_s >= self.duration {
                return err(format!("{p}.start_s"), format!("{} s is not before the end of the run ({} s)", c.start_s, self.duration));
            }
        }
        Ok(())
    }

    fn validate_lred(&self) -> Result<(), ScenarioError> {
        let l = &self.lred;
        if l.max_th <= l.min_th {
            return err("lred.max_th", format!("{} must be above min_th ({})", l.max_th, l.min_th));
        }
        Ok(())
    }

    fn validate_radio(&self) -> Result<(), ScenarioError> {
        let r = &self.radio;
        if let (Some(t), Some(c)) = (r.tx_range_m, r.cs_range_m) {
            if c < t {
                return err("radio.cs_range_m", format!("{c} m is less than tx_range_m ({t} m): a node must sense what it can decode"));
            }
        }
        if r.propagation == Propagation::Flat && r.cs_range_m.is_some() {
            return err("radio.cs_range_m", "the flat model has one range (seed 003): set tx_range_m only");
        }
        if r.propagation == Propagation::Shadowing {
            // The mean power is flat within the reference distance (ns-2
            // shadowing.cc Shadowing::Pr): a range there names no threshold.
            for (field, range) in [("radio.tx_range_m", r.tx_range_m), ("radio.cs_range_m", r.cs_range_m)] {
                if let Some(d) = range.filter(|&d| d < r.shadowing_reference_m) {
                    return err(
                        field,
                        format!("{d} m is within shadowing_reference_m ({} m), where the shadowing model's mean power does not fall: give a mean range beyond the reference distance", r.shadowing_reference_m),
                    );
                }
            }
        }
        if r.tx_range_m.is_none() && r.cs_range_m.is_none() && r.cs_threshold_w > r.rx_threshold_w {
            return err("radio.cs_threshold_w", "is above rx_threshold_w: a node must sense what it can decode");
        }
        Ok(())
    }

    fn validate_mac(&self) -> Result<(), ScenarioError> {
        let m = &self.mac;
        if !(m.cw_min + 1).is_power_of_two() {
            return err("mac.cw_min", format!("{} is not 2^k - 1 (802.11 §9.2.4)", m.cw_min));
        }
        if !(m.cw_max + 1).is_power_of_two() || m.cw_max < m.cw_min {
            return err("mac.cw_max", format!("{} must be 2^k - 1 and at least cw_min ({})", m.cw_max, m.cw_min));
        }
        if m.idle_defer && !m.idle_backoff {
            return err("mac.idle_defer", "needs mac.idle_backoff = true: it changes the wait of a frame that finds the medium idle, which only idle_backoff adds (compat = \"ns2\" sets it)");
        }
        // 802.11b §18.2.2.2: the short PLCP header is sent at 2 Mbit/s and
        // serves the 2, 5.5 and 11 Mbit/s rates only; control frames at a
        // 1 Mbit/s basic rate need the long preamble.
        if m.preamble == crate::mac::config::Preamble::Short && m.basic_rate_mbps < 2.0 {
            return err(
                "mac.preamble",
                format!("\"short\" cannot carry the {} Mbit/s basic rate (802.11b §18.2.2.2: the short PLCP is for 2, 5.5 and 11 Mbit/s; use basic_rate_mbps >= 2 or the long preamble)", m.basic_rate_mbps),
            );
        }
        Ok(())
    }
}

/// Rules between the fields of one `[tcp]` table (ranges are checked by
/// the table walk).
fn validate_tcp(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    validate_windows(p, t)?;
    validate_receiver(p, t)?;
    if let (Some(lo), Some(hi)) = (t.min_rto, t.max_rto) {
        if hi < lo {
            return err(format!("{p}.max_rto_s"), format!("{hi} s is below min_rto_s ({lo} s)"));
        }
    }
    validate_vegas(p, t)
}

/// Windows in bytes: the receive window holds a segment, and no window in
/// segments exceeds the largest advertisable window (RFC 7323 §2.3) at this
/// MSS. Unset fields take their defaults.
fn validate_windows(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    let mss = t.mss.unwrap_or(crate::tcp::TcpConfig::default().mss);
    if let Some(w) = t.receive_window {
        if w < mss {
            return err(format!("{p}.receive_window_bytes"), format!("{w} bytes is less than one segment (mss_bytes = {mss})"));
        }
    }
    let max_segments = crate::tcp::MAX_WINDOW_BYTES / mss as u64;
    for (name, v) in [("initial_cwnd", t.initial_cwnd), ("initial_ssthresh", t.initial_ssthresh), ("max_cwnd", t.max_cwnd)] {
        if let Some(v) = v {
            if v as u64 > max_segments {
                return err(
                    format!("{p}.{name}"),
                    format!("{v} segments of {mss} bytes is above the largest window, 65535 << 14 bytes = {max_segments} segments (RFC 7323 §2.3)"),
                );
            }
        }
    }
    Ok(())
}

/// Vegas thresholds: α <= β (unset ones take ns-2's 1, 3, 1).
fn validate_vegas(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    let v = crate::tcp::VegasParams::from_params(t);
    if v.alpha > v.beta {
        let field = if t.vegas_alpha.is_some() { "vegas_alpha" } else { "vegas_beta" };
        return err(format!("{p}.{field}"), format!("vegas_alpha ({}) is above vegas_beta ({})", v.alpha, v.beta));
    }
    Ok(())
}

/// `delayed_ack` and `receiver` must agree: false means "every".
fn validate_receiver(p: &str, t: &TcpParams) -> Result<(), ScenarioError> {
    match (t.receiver, t.delayed_ack) {
        (Some(TcpReceiver::Every), Some(true)) => {
            err(format!("{p}.receiver"), "\"every\" ACKs every segment, but delayed_ack = true asks for delayed ACKs; drop one of them")
        }
        (Some(r @ (TcpReceiver::Ns2 | TcpReceiver::Linux)), Some(false)) => {
            let name = if r == TcpReceiver::Ns2 { "ns2" } else { "linux" };
            err(format!("{p}.receiver"), format!("\"{name}\" delays ACKs, but delayed_ack = false asks for an ACK per segment (receiver = \"every\"); drop one of them"))
        }
        _ => Ok(()),
    }
}

/// Why `ip netns` would refuse `name` (iproute2 ip/ipnetns.c: the name is a
/// file in /var/run/netns), or None.
fn netns_name_problem(name: &str) -> Option<&'static str> {
    if name == "." || name == ".." {
        Some("\".\" and \"..\" are directories")
    } else if name.contains('/') {
        Some("it is a file name in /var/run/netns, so it cannot hold \"/\"")
    } else if name.contains('\0') {
        Some("it cannot hold a NUL character")
    } else if name.len() > 255 {
        Some("longer than 255 bytes (NAME_MAX)")
    } else {
        None
    }
}

/// Why `hoplab emu` could not split a command line into words, or None.
/// It splits as Python's `shlex.split` does (POSIX mode, no comments), which
/// follows the shell's quoting (POSIX Shell Command Language §2.2): `\`
/// outside single quotes takes the next character whatever it is, `'...'`
/// and `"..."` must be closed. Only what makes the split fail is refused
/// here; the words themselves are the command's business.
fn shell_words_problem(run: &str) -> Option<&'static str> {
    #[derive(PartialEq)]
    enum In {
        Word,
        Single,
        Double,
    }
    let mut state = In::Word;
    let mut chars = run.chars();
    while let Some(ch) = chars.next() {
        match (&state, ch) {
            (In::Word | In::Double, '\\') => {
                if chars.next().is_none() {
                    return Some("it ends with an escaping \\ (shlex: \"No escaped character\")");
                }
            }
            (In::Word, '\'') => state = In::Single,
            (In::Word, '"') => state = In::Double,
            (In::Single, '\'') | (In::Double, '"') => state = In::Word,
            _ => {}
        }
    }
    match state {
        In::Word => None,
        In::Single => Some("a single quote (') is not closed (shlex: \"No closing quotation\")"),
        In::Double => Some("a double quote (\") is not closed (shlex: \"No closing quotation\")"),
    }
}

/// `"a", "b", "c"`.
fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
fn ranges_of<C: serde::Serialize>(name: &str, c: &C) -> Result<(), ScenarioError> {
    let tree = toml::Value::try_from(c).map_err(|e| ScenarioError::new(format!("routing.{name}"), e.to_string()))?;
    super::schema::ranges::check(&format!("routing.{name}"), &tree)
}

/// What a scenario refuses in one protocol's resolved parameters: a number
/// outside its range, then a broken rule between fields; the protocol's
/// field is named without the `routing.<name>.` prefix (for the protocols'
/// tests).
#[cfg(test)]
pub(crate) fn protocol_error<C: serde::Serialize>(name: &str, c: &C, rules: fn(&C) -> Result<(), crate::net::check::Invalid>) -> Option<String> {
    let prefix = format!("routing.{name}.");
    match ranges_of(name, c) {
        Err(e) => Some(e.field.trim_start_matches(prefix.as_str()).to_string()),
        Ok(()) => rules(c).err().map(|(f, _)| f.to_string()),
    }
}
