//! The ingress log: every packet that entered the simulation, with its node
//! and stamped simulated time, in injection order. Replaying it in pure
//! simulation reproduces the live run (bridge.rs: the order of a run
//! depends only on its injections), so a live run can be traced and
//! animated afterwards.
//!
//! Format 2 (little-endian; docs/GUIDE.md, "The ingress log"):
//!
//! ```text
//! header   b"HOPLABIN", u32 version = 2
//! record   u32 node, u64 time in ns, u32 length, the IP bytes, u32 CRC-32 of all before it in the record
//! trailer  u32 0xFFFF_FFFF (no node has it), u64 number of records, u32 CRC-32 of those 12 bytes
//! ```
//!
//! The CRC is zlib's (`zlib.crc32` in Python), so a flipped byte anywhere in
//! a record is found and named with its byte offset; the trailer is written
//! when the run ends (its end, Ctrl-C, SIGTERM, SIGHUP, a lag abort), so a
//! log cut short, or one with anything after its end, is refused too.
//! Format 1 (the same records without CRC, no trailer) is still read, without
//! those checks.

use hoplab_sim::{Emulation, Scenario};
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 8] = b"HOPLABIN";
const VERSION: u32 = 2;
const HEADER: usize = 12;
/// The trailer's first field, where a record has its node: beyond every
/// node number (hoplab_sim::ipv4::MAX_NODES).
const END_MARK: u32 = u32::MAX;
/// The longest IP packet (RFC 791: the total length is 16 bits).
const MAX_PACKET: usize = 1 << 16;

/// CRC-32 as zlib and gzip compute it (RFC 1952 §8: polynomial 0xEDB88320
/// reflected, initial and final XOR 0xFFFFFFFF), one table lookup per byte.
struct Crc32(u32);

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[n] = c;
        n += 1;
    }
    t
};

impl Crc32 {
    fn new() -> Crc32 {
        Crc32(0xFFFF_FFFF)
    }
    fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = CRC_TABLE[((self.0 ^ b as u32) & 0xFF) as usize] ^ (self.0 >> 8);
        }
    }
    fn value(&self) -> u32 {
        self.0 ^ 0xFFFF_FFFF
    }
}

/// The CRC-32 of `bytes` (zlib's).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(bytes);
    c.value()
}

/// The log being written during a live run.
pub struct IngressLog {
    out: BufWriter<File>,
    pub packets: u64,
}

impl IngressLog {
    pub fn create(path: &Path) -> io::Result<IngressLog> {
        let file = File::create(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        Ok(IngressLog { out, packets: 0 })
    }

    pub fn record(&mut self, node: u32, at_ns: u64, bytes: &[u8]) -> io::Result<()> {
        let mut head = [0u8; 16];
        head[..4].copy_from_slice(&node.to_le_bytes());
        head[4..12].copy_from_slice(&at_ns.to_le_bytes());
        head[12..].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        let mut crc = Crc32::new();
        crc.update(&head);
        crc.update(bytes);
        self.out.write_all(&head)?;
        self.out.write_all(bytes)?;
        self.out.write_all(&crc.value().to_le_bytes())?;
        self.packets += 1;
        Ok(())
    }

    /// Write the trailer and flush: the log is complete.
    pub fn finish(mut self) -> io::Result<()> {
        let mut end = [0u8; 12];
        end[..4].copy_from_slice(&END_MARK.to_le_bytes());
        end[4..].copy_from_slice(&self.packets.to_le_bytes());
        self.out.write_all(&end)?;
        self.out.write_all(&crc32(&end).to_le_bytes())?;
        self.out.flush()?;
        self.out.get_ref().sync_all()
    }
}

/// One logged packet.
pub type Record = (u32, u64, Vec<u8>);

/// Read a log; an error names the file, the byte offset and what is wrong.
pub fn read_log(path: &Path) -> io::Result<Vec<Record>> {
    let mut data = Vec::new();
    File::open(path).and_then(|mut f| f.read_to_end(&mut data)).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    parse_log(&data).map_err(|(at, what)| io::Error::new(io::ErrorKind::InvalidData, format!("{}: byte {at}: {what}", path.display())))
}

/// The records of a whole log in memory, or (byte offset, what is wrong).
pub fn parse_log(data: &[u8]) -> Result<Vec<Record>, (usize, String)> {
    if data.len() < HEADER {
        return Err((0, "not an ingress log (shorter than its 12-byte header)".into()));
    }
    if &data[..8] != MAGIC {
        return Err((0, "not an ingress log (it does not start with HOPLABIN)".into()));
    }
    match u32::from_le_bytes(data[8..12].try_into().expect("4 bytes")) {
        1 => parse_records(data, false),
        VERSION => parse_records(data, true),
        v => Err((8, format!("ingress log format {v} is not one this hoplab reads (1 and {VERSION})"))),
    }
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().expect("8 bytes"))
}

/// The records after the header; `checked`: format 2 (CRCs and a trailer).
fn parse_records(d: &[u8], checked: bool) -> Result<Vec<Record>, (usize, String)> {
    let mut out = Vec::new();
    let mut at = HEADER;
    let crc_len = if checked { 4 } else { 0 };
    loop {
        if at == d.len() {
            if checked {
                return Err((at, "ends without its trailer: cut short (the run that wrote it was killed, or the file was truncated)".into()));
            }
            return Ok(out);
        }
        let k = out.len();
        if checked && d.len() - at >= 4 && u32_at(d, at) == END_MARK {
            if d.len() - at < 16 {
                return Err((at, "the trailer is cut short".into()));
            }
            if crc32(&d[at..at + 12]) != u32_at(d, at + 12) {
                return Err((at, "the trailer's checksum does not match: the log is damaged".into()));
            }
            let n = u64_at(d, at + 4);
            if n != k as u64 {
                return Err((at, format!("the trailer counts {n} records, the log holds {k}: the log is damaged")));
            }
            if at + 16 != d.len() {
                return Err((at + 16, format!("{} bytes after the trailer: something was appended to the log", d.len() - at - 16)));
            }
            return Ok(out);
        }
        if d.len() - at < 16 {
            return Err((at, format!("record {k} is cut short (the file was truncated)")));
        }
        let node = u32_at(d, at);
        let time = u64_at(d, at + 4);
        let len = u32_at(d, at + 12) as usize;
        if len > MAX_PACKET {
            return Err((at, format!("record {k} claims {len} bytes, more than an IP packet holds: the log is damaged")));
        }
        let end = at + 16 + len;
        if d.len() < end + crc_len {
            return Err((at, format!("record {k} is cut short (the file was truncated)")));
        }
        if checked && crc32(&d[at..end]) != u32_at(d, end) {
            return Err((at, format!("record {k}'s checksum does not match: the log is damaged")));
        }
        out.push((node, time, d[at + 16..end].to_vec()));
        at = end + crc_len;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn log_bytes(records: &[(u32, u64, &[u8])]) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("hoplab-log-test-{}-{}", std::process::id(), records.len()));
        let mut l = IngressLog::create(&dir).unwrap();
        for &(n, t, b) in records {
            l.record(n, t, b).unwrap();
        }
        l.finish().unwrap();
        let d = std::fs::read(&dir).unwrap();
        std::fs::remove_file(&dir).unwrap();
        d
    }

    #[test]
    fn crc_is_zlibs() {
        // zlib.crc32(b"123456789") (the check value of CRC-32/ISO-HDLC).
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn every_flipped_byte_and_any_appended_byte_is_found() {
        let d = log_bytes(&[(0, 5, &[0x45, 1, 2, 3]), (3, 9, &[0x45; 30])]);
        assert_eq!(parse_log(&d).unwrap().len(), 2);
        for i in 0..d.len() {
            let mut bad = d.clone();
            bad[i] ^= 0x10;
            assert!(parse_log(&bad).is_err(), "byte {i} flipped went unnoticed");
        }
        for cut in 0..d.len() {
            assert!(parse_log(&d[..cut]).is_err(), "cut at {cut} went unnoticed");
        }
        let mut more = d.clone();
        more.extend_from_slice(&[0; 20]);
        let (at, what) = parse_log(&more).unwrap_err();
        assert_eq!(at, d.len());
        assert!(what.contains("after the trailer"), "{what}");
    }
}
