//! The ingress log: every packet that entered the simulation, with its node
//! and stamped simulated time, in injection order. Replaying it in pure
//! simulation reproduces the live run (bridge.rs: the order of a run
//! depends only on its injections), so a live run can be traced and
//! animated afterwards.
//!
//! Format (little-endian): b"HOPLABIN", u32 version = 1, then per packet
//! u32 node, u64 time in ns, u32 length, the IP bytes.

use hoplab_sim::{Emulation, Scenario};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"HOPLABIN";
const VERSION: u32 = 1;

/// The log being written during a live run.
pub struct IngressLog {
    out: BufWriter<File>,
    pub packets: u64,
}

impl IngressLog {
    pub fn create(path: &Path) -> io::Result<IngressLog> {
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path)?);
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        Ok(IngressLog { out, packets: 0 })
    }

    pub fn record(&mut self, node: u32, at_ns: u64, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(&node.to_le_bytes())?;
        self.out.write_all(&at_ns.to_le_bytes())?;
        self.out.write_all(&(bytes.len() as u32).to_le_bytes())?;
        self.out.write_all(bytes)?;
        self.packets += 1;
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// One logged packet.
pub type Record = (u32, u64, Vec<u8>);

/// Read a log; an error names what is wrong with the file.
pub fn read_log(path: &Path) -> io::Result<Vec<Record>> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("{}: {what}", path.display()));
    let mut r = BufReader::new(File::open(path)?);
    let mut head = [0u8; 12];
    r.read_exact(&mut head).map_err(|_| bad("not an ingress log (too short)"))?;
    if &head[..8] != MAGIC {
        return Err(bad("not an ingress log (bad magic)"));
    }
    if u32::from_le_bytes(head[8..12].try_into().unwrap()) != VERSION {
        return Err(bad("unsupported ingress log version"));
    }
    let mut out = Vec::new();
    let mut rec = [0u8; 16];
    loop {
        match r.read_exact(&mut rec) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(e),
        }
        let node = u32::from_le_bytes(rec[..4].try_into().unwrap());
        let at = u64::from_le_bytes(rec[4..12].try_into().unwrap());
        let len = u32::from_le_bytes(rec[12..16].try_into().unwrap()) as usize;
        if len > 1 << 16 {
            return Err(bad("packet longer than 64 kB (truncated or corrupt)"));
        }
        let mut b = vec![0u8; len];
        r.read_exact(&mut b).map_err(|_| bad("truncated packet"))?;
        out.push((node, at, b));
    }
    Ok(out)
}

/// Re-run a logged emulation in pure simulation, up to `until_ns` (the
/// live run's last horizon): the same world, the same injections.
/// `trace_dir`: stream the scenario's `[trace] formats` there.
pub fn replay(sc: &Scenario, seed: u64, real: &[u32], log: Vec<Record>, until_ns: u64, trace_dir: Option<&Path>) -> Result<Emulation, String> {
    let mut e = Emulation::new(sc, seed, real);
    if let Some(d) = trace_dir {
        e.stream_trace(d).map_err(|err| err.to_string())?;
    }
    for (k, (node, at, b)) in log.into_iter().enumerate() {
        e.inject(node, b, at).map_err(|err| format!("ingress log packet {k}: {err}"))?;
    }
    e.run_until(until_ns);
    e.finish_trace().map_err(|err| err.to_string())?;
    Ok(e)
}
