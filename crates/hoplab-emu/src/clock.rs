//! Real time: the monotonic clock, and waiting until a deadline or until a
//! TUN device has a packet (epoll over the devices and a timerfd, whose
//! nanosecond deadline epoll's millisecond timeout could not give), with an
//! optional spin tail that trades a little CPU for less lateness.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// CLOCK_MONOTONIC in nanoseconds: never steps with the wall clock.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Ask for SCHED_FIFO at `prio` for the calling thread (sched(7)); an
/// error if refused (no CAP_SYS_NICE, or a real-time budget of zero).
pub fn set_fifo(prio: i32) -> io::Result<()> {
    let p = libc::sched_param { sched_priority: prio };
    // SAFETY: sched_setscheduler on the calling thread (pid 0).
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Waits on the TUN devices and a deadline.
pub struct Waiter {
    epoll: OwnedFd,
    timer: OwnedFd,
    spin_ns: u64,
    events: Vec<libc::epoll_event>,
}

/// The epoll token of the timer; device k has token k.
const TIMER: u64 = u64::MAX;

impl Waiter {
    /// Watch `fds` (token = index) for input; `spin_ns` before each
    /// deadline is spent polling the clock instead of sleeping.
    pub fn new(fds: &[&OwnedFd], spin_ns: u64) -> io::Result<Waiter> {
        // SAFETY: creating and registering fds we own.
        unsafe {
            let epoll = OwnedFd::from_raw_fd(check(libc::epoll_create1(libc::EPOLL_CLOEXEC))?);
            let timer = OwnedFd::from_raw_fd(check(libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC))?);
            let add = |fd: i32, token: u64| {
                let mut ev = libc::epoll_event { events: libc::EPOLLIN as u32, u64: token };
                check(libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev))
            };
            add(timer.as_raw_fd(), TIMER)?;
            for (k, fd) in fds.iter().enumerate() {
                add(fd.as_raw_fd(), k as u64)?;
            }
            Ok(Waiter { epoll, timer, spin_ns, events: vec![libc::epoll_event { events: 0, u64: 0 }; fds.len() + 1] })
        }
    }

    /// Wait until `deadline_ns` (monotonic) or until a device is readable;
    /// `ready` gets the readable devices' indices. A deadline reached
    /// returns with `ready` empty (or holding what also came in).
    pub fn wait(&mut self, deadline_ns: u64, ready: &mut Vec<usize>) -> io::Result<()> {
        ready.clear();
        let sleep_to = deadline_ns.saturating_sub(self.spin_ns);
        let now = now_ns();
        let timeout = if sleep_to > now {
            self.arm(sleep_to)?;
            -1
        } else {
            0 // inside the spin tail: only look
        };
        // SAFETY: epoll_wait fills the buffer we own, up to its length.
        let n = unsafe { libc::epoll_wait(self.epoll.as_raw_fd(), self.events.as_mut_ptr(), self.events.len() as i32, timeout) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted { Ok(()) } else { Err(e) };
        }
        let mut timer_fired = false;
        for ev in &self.events[..n as usize] {
            match ev.u64 {
                TIMER => timer_fired = true,
                k => ready.push(k as usize),
            }
        }
        if timer_fired {
            let mut buf = [0u8; 8];
            // SAFETY: drain the expiration count (non-blocking).
            unsafe { libc::read(self.timer.as_raw_fd(), buf.as_mut_ptr().cast(), 8) };
        }
        if ready.is_empty() && (timer_fired || timeout == 0) {
            // The spin tail: the deadline is near; poll the clock.
            while now_ns() < deadline_ns {
                std::hint::spin_loop();
            }
        }
        Ok(())
    }

    fn arm(&self, at_ns: u64) -> io::Result<()> {
        let ts = libc::timespec { tv_sec: (at_ns / 1_000_000_000) as libc::time_t, tv_nsec: (at_ns % 1_000_000_000) as libc::c_long };
        let spec = libc::itimerspec { it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 }, it_value: ts };
        // SAFETY: arming our timerfd with an absolute CLOCK_MONOTONIC time.
        check(unsafe { libc::timerfd_settime(self.timer.as_raw_fd(), libc::TFD_TIMER_ABSTIME, &spec, std::ptr::null_mut()) })?;
        Ok(())
    }
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_is_kept_without_devices() {
        let mut w = Waiter::new(&[], 200_000).unwrap();
        let mut ready = Vec::new();
        let t0 = now_ns();
        let deadline = t0 + 2_000_000;
        while now_ns() < deadline {
            w.wait(deadline, &mut ready).unwrap();
        }
        assert!(ready.is_empty());
        assert!(now_ns() >= deadline);
    }
}
