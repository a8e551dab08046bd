//! The capture file containers: classic pcap (the tcpdump/libpcap format,
//! draft-ietf-opsawg-pcap) and pcapng (draft-ietf-opsawg-pcapng), both
//! little-endian, with nanosecond timestamps. Written by hand rather than
//! with the `pcap-file` crate: the whole format is a 24-byte file header and
//! 16 bytes per record (pcapng: three block kinds), and the crate would add
//! three dependencies for it.

use std::io::{self, BufWriter, Write};

/// LINKTYPE_IEEE802_11_RADIOTAP (tcpdump.org link-layer header types).
pub const LINKTYPE_RADIOTAP: u16 = 127;
/// LINKTYPE_RAW: the record is an IPv4 datagram.
pub const LINKTYPE_RAW: u16 = 101;
const SNAPLEN: u32 = 65535;

/// Which container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    Pcap,
    Pcapng,
}

impl Container {
    pub fn extension(self) -> &'static str {
        match self {
            Container::Pcap => "pcap",
            Container::Pcapng => "pcapng",
        }
    }
}

/// A capture being written, one record per `packet` call.
pub struct CaptureWriter {
    w: BufWriter<Box<dyn Write + Send>>,
    kind: Container,
}

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

impl CaptureWriter {
    /// A pcap file: the nanosecond-resolution magic 0xa1b23c4d, version 2.4.
    pub fn pcap(w: Box<dyn Write + Send>, linktype: u16) -> io::Result<CaptureWriter> {
        let mut w = BufWriter::with_capacity(1 << 16, w);
        w.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
        w.write_all(&2u16.to_le_bytes())?;
        w.write_all(&4u16.to_le_bytes())?;
        w.write_all(&[0; 8])?; // thiszone, sigfigs
        w.write_all(&SNAPLEN.to_le_bytes())?;
        w.write_all(&(linktype as u32).to_le_bytes())?;
        Ok(CaptureWriter { w, kind: Container::Pcap })
    }

    /// A pcapng file: one section, one interface per name (if_name = the
    /// name, if_tsresol = 10^-9 s), all of `linktype`.
    pub fn pcapng(w: Box<dyn Write + Send>, interfaces: &[String], linktype: u16) -> io::Result<CaptureWriter> {
        let mut w = BufWriter::with_capacity(1 << 16, w);
        // Section Header Block: byte-order magic, version 1.0, length unknown (-1).
        let mut b = Vec::with_capacity(28);
        b.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&(-1i64).to_le_bytes());
        block(&mut w, 0x0a0d_0d0a, &b)?;
        for name in interfaces {
            let mut b = Vec::with_capacity(32);
            b.extend_from_slice(&linktype.to_le_bytes());
            b.extend_from_slice(&[0, 0]);
            b.extend_from_slice(&SNAPLEN.to_le_bytes());
            option(&mut b, 2, name.as_bytes()); // if_name
            option(&mut b, 9, &[9]); // if_tsresol: 10^-9
            b.extend_from_slice(&[0; 4]); // opt_endofopt
            block(&mut w, 1, &b)?;
        }
        Ok(CaptureWriter { w, kind: Container::Pcapng })
    }

    /// Write one record captured on `iface` (pcapng; ignored by pcap) at `ts_ns`.
    pub fn packet(&mut self, iface: u32, ts_ns: u64, data: &[u8]) -> io::Result<()> {
        let len = data.len() as u32;
        match self.kind {
            Container::Pcap => {
                let mut h = [0u8; 16];
                h[0..4].copy_from_slice(&((ts_ns / 1_000_000_000) as u32).to_le_bytes());
                h[4..8].copy_from_slice(&((ts_ns % 1_000_000_000) as u32).to_le_bytes());
                h[8..12].copy_from_slice(&len.to_le_bytes());
                h[12..16].copy_from_slice(&len.to_le_bytes());
                self.w.write_all(&h)?;
                self.w.write_all(data)
            }
            Container::Pcapng => {
                // Enhanced Packet Block (§4.3), no options.
                let total = 32 + data.len() + pad4(data.len());
                let mut h = [0u8; 28];
                h[0..4].copy_from_slice(&6u32.to_le_bytes());
                h[4..8].copy_from_slice(&(total as u32).to_le_bytes());
                h[8..12].copy_from_slice(&iface.to_le_bytes());
                h[12..16].copy_from_slice(&((ts_ns >> 32) as u32).to_le_bytes());
                h[16..20].copy_from_slice(&(ts_ns as u32).to_le_bytes());
                h[20..24].copy_from_slice(&len.to_le_bytes());
                h[24..28].copy_from_slice(&len.to_le_bytes());
                self.w.write_all(&h)?;
                self.w.write_all(data)?;
                self.w.write_all(&[0u8; 3][..pad4(data.len())])?;
                self.w.write_all(&(total as u32).to_le_bytes())
            }
        }
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// A pcapng block: type, total length, body, total length again.
fn block(w: &mut impl Write, kind: u32, body: &[u8]) -> io::Result<()> {
    let total = (12 + body.len()) as u32;
    w.write_all(&kind.to_le_bytes())?;
    w.write_all(&total.to_le_bytes())?;
    w.write_all(body)?;
    w.write_all(&total.to_le_bytes())
}

/// A pcapng option: code, length, value padded to 4 bytes.
fn option(b: &mut Vec<u8>, code: u16, value: &[u8]) {
    b.extend_from_slice(&code.to_le_bytes());
    b.extend_from_slice(&(value.len() as u16).to_le_bytes());
    b.extend_from_slice(value);
    b.resize(b.len() + pad4(value.len()), 0);
}
