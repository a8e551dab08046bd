//! A real node's network: a network namespace with a TUN device carrying the
//! node's address (10.0.0.0/16 + node + 1) and, through the device's /16,
//! the route to every other node.
//!
//! Nothing here outlives the process: the namespace is unnamed (only this
//! process' fd holds it, so the kernel removes it when the process dies,
//! SIGKILL included), and the TUN device is not persistent (it goes when
//! its fd closes). A namespace named by the user is entered, never removed.

use hoplab_sim::ipv4::{node_addr, PREFIX_LEN};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// How a real node's namespace is obtained.
#[derive(Clone, Debug)]
pub enum Setup {
    /// A new, unnamed namespace held by this process.
    Fresh,
    /// An existing named namespace (`ip netns add NAME`): /var/run/netns/NAME.
    Named(String),
}

/// A real node's namespace and TUN device.
pub struct NodeNet {
    pub node: u32,
    /// The namespace (enter it with `nsenter --net=/proc/PID/fd/FD`).
    pub netns: OwnedFd,
    /// The TUN device, non-blocking, without packet information (IFF_NO_PI).
    pub tun: OwnedFd,
    pub ifname: String,
}

// linux/if_tun.h
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// struct ifreq (linux/if.h): a name and a 24-byte union.
#[repr(C)]
struct IfReq {
    name: [u8; 16],
    data: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> IfReq {
        let mut r = IfReq { name: [0; 16], data: [0; 24] };
        r.name[..name.len()].copy_from_slice(name.as_bytes());
        r
    }
    fn set_short(&mut self, v: libc::c_short) {
        self.data[..2].copy_from_slice(&v.to_ne_bytes());
    }
    fn short(&self) -> libc::c_short {
        libc::c_short::from_ne_bytes([self.data[0], self.data[1]])
    }
    /// A struct sockaddr_in in the union (SIOCSIFADDR, SIOCSIFNETMASK).
    fn set_inet(&mut self, a: [u8; 4]) {
        self.data = [0; 24];
        self.data[..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        self.data[4..8].copy_from_slice(&a);
    }
}

fn cvt(r: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if r < 0 {
        let e = io::Error::last_os_error();
        Err(io::Error::new(e.kind(), format!("{what}: {e}")))
    } else {
        Ok(r)
    }
}

/// Set an interface up and, if given, its address and netmask, through an
/// AF_INET socket of the calling thread's namespace (netdevice(7) ioctls).
fn configure(ifname: &str, addr: Option<[u8; 4]>) -> io::Result<()> {
    // SAFETY: plain syscalls on a socket we own and a local ifreq.
    unsafe {
        let s = OwnedFd::from_raw_fd(cvt(libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0), "socket")?);
        let fd = s.as_raw_fd();
        if let Some(a) = addr {
            let mut r = IfReq::new(ifname);
            r.set_inet(a);
            cvt(libc::ioctl(fd, libc::SIOCSIFADDR, &mut r), "SIOCSIFADDR")?;
            let mask = (u32::MAX << (32 - PREFIX_LEN)).to_be_bytes();
            r.set_inet(mask);
            cvt(libc::ioctl(fd, libc::SIOCSIFNETMASK, &mut r), "SIOCSIFNETMASK")?;
        }
        let mut r = IfReq::new(ifname);
        cvt(libc::ioctl(fd, libc::SIOCGIFFLAGS, &mut r), "SIOCGIFFLAGS")?;
        r.set_short(r.short() | libc::IFF_UP as libc::c_short | libc::IFF_RUNNING as libc::c_short);
        cvt(libc::ioctl(fd, libc::SIOCSIFFLAGS, &mut r), "SIOCSIFFLAGS")?;
    }
    Ok(())
}

/// Make node `node`'s namespace and TUN device. Done in a thread of its own,
/// which is the only one to change namespace (unshare/setns act on the
/// calling thread) and then ends.
pub fn create(node: u32, setup: &Setup) -> io::Result<NodeNet> {
    let setup = setup.clone();
    std::thread::spawn(move || create_here(node, &setup)).join().map_err(|_| io::Error::other("namespace thread panicked"))?
}

fn create_here(node: u32, setup: &Setup) -> io::Result<NodeNet> {
    // SAFETY: namespace and TUN syscalls with valid arguments; fds are owned.
    unsafe {
        match setup {
            Setup::Fresh => {
                cvt(libc::unshare(libc::CLONE_NEWNET), "unshare(CLONE_NEWNET)")?;
            }
            Setup::Named(name) => {
                let f = File::open(format!("/var/run/netns/{name}")).map_err(|e| io::Error::new(e.kind(), format!("namespace {name}: {e}")))?;
                cvt(libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET), "setns")?;
            }
        }
        let netns = OwnedFd::from(File::open("/proc/thread-self/ns/net")?);
        if matches!(setup, Setup::Fresh) {
            // No IPv6 in a fresh namespace: its router and neighbour
            // solicitations would only be counted and dropped at the TUN.
            for p in ["all", "default"] {
                let _ = std::fs::write(format!("/proc/sys/net/ipv6/conf/{p}/disable_ipv6"), "1");
            }
        }
        let tun = OwnedFd::from_raw_fd(cvt(libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC), "/dev/net/tun")?);
        let ifname = format!("hoplab{node}");
        let mut r = IfReq::new(&ifname);
        r.set_short(IFF_TUN | IFF_NO_PI);
        cvt(libc::ioctl(tun.as_raw_fd(), TUNSETIFF, &mut r), "TUNSETIFF")?;
        if matches!(setup, Setup::Fresh) {
            configure("lo", None)?;
        }
        configure(&ifname, Some(node_addr(node)))?;
        Ok(NodeNet { node, netns, tun, ifname })
    }
}

/// Whether this process may create namespaces and TUN devices: root or
/// CAP_NET_ADMIN (capabilities(7): bit 12 of CapEff) and /dev/net/tun.
pub fn can_emulate() -> Result<(), String> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let cap = status.lines().find_map(|l| l.strip_prefix("CapEff:")).and_then(|v| u64::from_str_radix(v.trim(), 16).ok()).unwrap_or(0);
    if cap & (1 << 12) == 0 {
        return Err("hoplab emu needs root or CAP_NET_ADMIN (to create network namespaces and TUN devices)".into());
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err("hoplab emu needs /dev/net/tun (the tun kernel module)".into());
    }
    Ok(())
}

/// Read one packet; None when none is waiting.
pub fn read_packet(fd: &OwnedFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: reading into a buffer we own.
    let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
    }
    Ok(Some(n as usize))
}

/// Write one packet; false if the device's queue was full (the packet is
/// lost, as on a congested link).
pub fn write_packet(fd: &OwnedFd, p: &[u8]) -> io::Result<bool> {
    // SAFETY: writing a buffer we own.
    let n = unsafe { libc::write(fd.as_raw_fd(), p.as_ptr().cast(), p.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::WouldBlock { Ok(false) } else { Err(e) };
    }
    Ok(true)
}
