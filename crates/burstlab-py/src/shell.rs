//! `burstlab shell`'s forwarder: real packets through burstlab's links (docs/shell.md).
//!
//! Two TUN devices — one inside the shell's network namespace, one outside — carry the IP
//! packets of everything that runs in the shell. Each direction is one burstlab link, built
//! from the simulator's own parts: a DropTail [`Pipe`] in front of a [`Server`] (fixed rate or
//! a Mahimahi schedule of delivery opportunities), a propagation delay, the link's
//! [`LossSource`] (any loss model, packet or time mode, on its own seeded stream) and
//! optionally a link layer (802.11 ARQ or LL-HARQ) whose attempts ask the same channel. A
//! packet read at `now` is admitted (or dropped by the full buffer), its service and fate are
//! decided at once (the pipe is FIFO: starts never decrease), and it is written to the other
//! device when its arrival time comes. The loop waits in `ppoll` until the next arrival or
//! the next packet, with the thread's timer slack at 1 µs.
//!
//! Time is the monotonic clock in ns from the forwarder's start. Every packet's fate can be
//! logged (time in, size, service start and end, arrival, fate, time written, attempts), and
//! a logged run's fates can be replayed: by packet number, the k-th admitted packet of a
//! direction then gets the k-th logged fate instead of a fresh draw; keyed by segment, a
//! packet gets the fate logged for the same transmission of the same segment (or ACK): its
//! key (`burstlab_core::shell_key`, `loss/keyed.rs`) is logged with it.
use crate::errors::{to_py, IntoPyResult};
use crate::linklayer::link_layer_config;
use crate::loss::PyLossModel;
use burstlab_core::loss::{FateKey, KeyedReplay, TxCounter};
use burstlab_core::link::{BufferUnit, InFlight, LinkLayer, LossMode, LossSource, Opportunities, Pipe, Server, Timing};
use burstlab_core::rng::{self, Rng};
use burstlab_core::shell_key::PacketKeyer;
use burstlab_core::time::{self, Nanos};
use burstlab_core::Error;
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;

/// The largest packet a TUN device hands over (its MTU is far below).
const BUF: usize = 65_536;
/// Packets read from one device per turn of the loop, so that one direction cannot starve
/// the other or the deliveries.
const BURST: usize = 64;
/// Fates in the log.
const DELIVERED: u8 = 0;
const LOST: u8 = 1;
const QUEUE_DROP: u8 = 2;
/// Admitted to be delivered, but still in flight when the shell ended.
const IN_FLIGHT_AT_END: u8 = 3;
/// Due, but the other device refused it (e.g. not up yet: the kernel's first packets on a
/// new interface can come before the caller has configured the other side).
const WRITE_ERROR: u8 = 4;

fn now_ns() -> Nanos {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as Nanos * 1_000_000_000 + ts.tv_nsec as Nanos
}

fn os_err(what: &str) -> Error {
    let e = io::Error::last_os_error();
    Error::Io { path: what.to_string(), errno: e.raw_os_error(), message: e.to_string() }
}

/// A TUN device (IP packets, no packet-info header), non-blocking.
fn open_tun(name: &str) -> Result<RawFd, Error> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(Error::param("device", name, "an interface name of 1 to 15 bytes"));
    }
    let path = CString::new("/dev/net/tun").unwrap();
    // SAFETY: plain syscalls on a path and a zeroed ifreq we own.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(os_err("/dev/net/tun"));
        }
        let mut ifr: libc::ifreq = std::mem::zeroed();
        for (i, b) in name.bytes().enumerate() {
            ifr.ifr_name[i] = b as libc::c_char;
        }
        ifr.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        if libc::ioctl(fd, libc::TUNSETIFF as _, &ifr) < 0 {
            let e = os_err(&format!("TUNSETIFF {name}"));
            libc::close(fd);
            return Err(e);
        }
        Ok(fd)
    }
}

/// Run `f` with this thread in the network namespace at `path` (e.g. /run/netns/NAME), then
/// back in its own.
fn in_netns<T>(path: &str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let own = CString::new("/proc/thread-self/ns/net").unwrap();
    let target = CString::new(path).map_err(|_| Error::param("netns", path, "a path without NUL bytes"))?;
    // SAFETY: open/setns/close on fds we own; the thread returns to its namespace before
    // anything else runs on it.
    unsafe {
        let own_fd = libc::open(own.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if own_fd < 0 {
            return Err(os_err("/proc/thread-self/ns/net"));
        }
        let fd = libc::open(target.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            libc::close(own_fd);
            return Err(os_err(path));
        }
        if libc::setns(fd, libc::CLONE_NEWNET) < 0 {
            let e = os_err(&format!("setns {path}"));
            libc::close(fd);
            libc::close(own_fd);
            return Err(e);
        }
        libc::close(fd);
        let r = f();
        let back = libc::setns(own_fd, libc::CLONE_NEWNET);
        libc::close(own_fd);
        if back < 0 {
            return Err(os_err("setns back to the forwarder's namespace"));
        }
        r
    }
}

#[derive(Default)]
struct Log {
    t_in: Vec<u64>,
    bytes: Vec<u32>,
    start: Vec<u64>,
    end: Vec<u64>,
    arrive: Vec<u64>,
    fate: Vec<u8>,
    t_out: Vec<u64>,
    attempts: Vec<u32>,
    flow: Vec<u32>,
    kind: Vec<u8>,
    num: Vec<u64>,
    tx: Vec<u32>,
}

/// The transmission count logged for a packet dropped by the full buffer: none (only the
/// packets that reach the loss decision are counted).
const NOT_COUNTED: u32 = u32::MAX;

/// One direction of the emulated path.
struct Dir {
    pipe: Pipe<u32>,
    server: Server,
    layer: Option<LinkLayer>,
    loss: LossSource,
    layer_rng: Rng,
    replay: Option<Vec<bool>>,
    /// A replay keyed by segment (instead of `replay`).
    keyed: Option<KeyedReplay>,
    /// Packets' keys and transmission counts (kept when logging or replaying keyed).
    keyer: PacketKeyer,
    tx: TxCounter,
    replayed: usize,
    replay_past_end: u64,
    inp: RawFd,
    out: RawFd,
    /// Packet buffers (reused) and, per buffer, its length and log row.
    bufs: Vec<Box<[u8]>>,
    meta: Vec<(u32, u32)>,
    free: Vec<u32>,
    logging: bool,
    log: Log,
    packets: u64,
    delivered: u64,
    lost: u64,
    queue_drops: u64,
    write_errors: u64,
    /// Largest |written − scheduled arrival|, and the sum for the mean (ns).
    late_max: u64,
    late_sum: u64,
}

impl Dir {
    fn slot(&mut self) -> u32 {
        if let Some(i) = self.free.pop() {
            return i;
        }
        self.bufs.push(vec![0u8; BUF].into_boxed_slice());
        self.meta.push((0, 0));
        (self.bufs.len() - 1) as u32
    }

    /// Read up to BURST packets from `inp`; Ok(false) when the device is gone.
    fn read_some(&mut self, t0: Nanos) -> Result<bool, Error> {
        for _ in 0..BURST {
            let i = self.slot();
            // SAFETY: reading into a buffer of BUF bytes we own.
            let n = unsafe { libc::read(self.inp, self.bufs[i as usize].as_mut_ptr() as *mut libc::c_void, BUF) };
            if n < 0 {
                self.free.push(i);
                let e = io::Error::last_os_error();
                return match e.raw_os_error() {
                    Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(true),
                    Some(libc::EBADFD) | Some(libc::EIO) => Ok(false),
                    _ => Err(os_err("read from the TUN device")),
                };
            }
            if n == 0 {
                self.free.push(i);
                return Ok(false);
            }
            let now = now_ns() - t0;
            self.admit(now, i, n as u32);
        }
        Ok(true)
    }

    fn next_fate(&mut self, start: Nanos, end: Nanos, key: Option<(FateKey, u32)>) -> bool {
        if let (Some(r), Some((k, tx))) = (self.keyed.as_mut(), key) {
            // what the log does not hold meets the direction's own loss model (none: delivered)
            return match r.lookup(k, tx) {
                Some(lost) => lost,
                None => self.loss.decide(start, end),
            };
        }
        if let Some(r) = &self.replay {
            let k = self.replayed;
            self.replayed += 1;
            if let Some(&lost) = r.get(k) {
                return lost;
            }
            self.replay_past_end += 1;
            return false;
        }
        self.loss.decide(start, end)
    }

    fn admit(&mut self, now: Nanos, i: u32, bytes: u32) {
        self.packets += 1;
        let keying = self.logging || self.keyed.is_some();
        let key = keying.then(|| self.keyer.key(&self.bufs[i as usize][..bytes as usize]));
        // the transmission is counted once the packet reaches the loss decision
        let mut counted = None;
        let (start, end, lost, attempts) = if let Some(layer) = self.layer.as_mut() {
            let (loss, rng) = (&mut self.loss, &mut self.layer_rng);
            let mut service = None;
            match self.pipe.admit_layer(now, bytes, &mut self.server, &(), |s| {
                let sv = layer.serve(s, bytes, loss, rng);
                service = Some(sv);
                sv.end
            }) {
                None => (0, 0, None, 0),
                Some((s, e)) => {
                    let sv = service.unwrap();
                    counted = key.map(|k| (k, self.tx.next(k)));
                    // a replayed run replays the frame's fate; the attempts are drawn afresh
                    let lost = match self.replay.is_some() || self.keyed.is_some() {
                        true => self.next_fate(s, e, counted),
                        false => !sv.delivered,
                    };
                    (s, e, Some(lost), sv.attempts)
                }
            }
        } else {
            match self.pipe.admit(now, bytes, &mut self.server, &()) {
                None => (0, 0, None, 0),
                Some((s, e)) => {
                    counted = key.map(|k| (k, self.tx.next(k)));
                    let lost = self.next_fate(s, e, counted);
                    (s, e, Some(lost), 1)
                }
            }
        };
        let row = self.log.t_in.len() as u32;
        if self.logging {
            let l = &mut self.log;
            l.t_in.push(now);
            l.bytes.push(bytes);
            l.start.push(start);
            l.end.push(end);
            l.arrive.push(if lost.is_some() { end + self.pipe.delay } else { 0 });
            l.fate.push(match lost {
                None => QUEUE_DROP,
                Some(true) => LOST,
                Some(false) => DELIVERED,
            });
            l.t_out.push(0);
            l.attempts.push(attempts);
            let k = key.expect("keyed when logging");
            l.flow.push(k.flow);
            l.kind.push(k.kind as u8);
            l.num.push(k.num);
            l.tx.push(counted.map_or(NOT_COUNTED, |c| c.1));
        }
        match lost {
            None => {
                self.queue_drops += 1;
                self.free.push(i);
            }
            Some(lost) => {
                self.meta[i as usize] = (bytes, row);
                let e = InFlight { start, arrive: end + self.pipe.delay, seq: self.packets, bytes, lost, pkt: i };
                self.pipe.push(e, true, &mut ());
            }
        }
    }

    /// Write every packet whose arrival has come; the next arrival, if any.
    fn deliver_due(&mut self, t0: Nanos) -> Option<Nanos> {
        loop {
            let (arrive, _) = self.pipe.head(&())?;
            let now = now_ns() - t0;
            if arrive > now {
                return Some(arrive);
            }
            let e = self.pipe.pop(&mut ());
            let (len, row) = self.meta[e.pkt as usize];
            if e.lost {
                self.lost += 1;
            } else {
                // SAFETY: writing `len` bytes of a buffer we own.
                let n = unsafe { libc::write(self.out, self.bufs[e.pkt as usize].as_ptr() as *const libc::c_void, len as usize) };
                let wrote = now_ns() - t0;
                if n < 0 {
                    self.write_errors += 1;
                    if self.logging {
                        self.log.fate[row as usize] = WRITE_ERROR;
                    }
                } else {
                    self.delivered += 1;
                    let late = wrote.saturating_sub(arrive);
                    self.late_max = self.late_max.max(late);
                    self.late_sum += late;
                    if self.logging {
                        self.log.t_out[row as usize] = wrote;
                    }
                }
            }
            self.free.push(e.pkt);
        }
    }
}

impl Dir {
    /// The shell has ended: what is still in flight is never written. Returns how many
    /// of those were to be delivered (the lost ones count as lost).
    fn end(&mut self) -> u64 {
        let mut undelivered = 0;
        while self.pipe.head(&()).is_some() {
            let e = self.pipe.pop(&mut ());
            let (_, row) = self.meta[e.pkt as usize];
            if e.lost {
                self.lost += 1;
            } else {
                undelivered += 1;
                if self.logging {
                    self.log.fate[row as usize] = IN_FLIGHT_AT_END;
                }
            }
            self.free.push(e.pkt);
        }
        undelivered
    }
}

fn get_f64(d: &Bound<'_, PyDict>, key: &str, default: f64) -> PyResult<f64> {
    match d.get_item(key)?.filter(|v| !v.is_none()) {
        None => Ok(default),
        Some(v) => v.extract::<f64>().map_err(|_| to_py(Error::param(key, v.repr().map(|r| r.to_string()).unwrap_or_default(), "a number"))),
    }
}

/// A direction from its dict (`burstlab.shell` builds it): rate (bits/s; 0 = no limit) or
/// capacity (a uint64 array of opportunity instants, ns) with capacity_bytes, delay (s),
/// buffer (in buffer_unit: packets or bytes), loss (LossModel or None), loss_mode, link_layer (dict or None), seed,
/// replay (bool array or None), replay_keyed (None or a dict of arrays flow, kind, num, tx
/// and lost: the fates by key).
fn direction(d: &Bound<'_, PyDict>, name: &str, inp: RawFd, out: RawFd, logging: bool) -> PyResult<Dir> {
    let timing = match d.get_item("capacity")?.filter(|v| !v.is_none()) {
        Some(c) => {
            let at: PyReadonlyArray1<'_, u64> = c.extract()?;
            let bytes = get_f64(d, "capacity_bytes", 1500.0)?;
            Timing::Opportunities(Opportunities::new(at.as_slice()?.to_vec(), bytes as u32).py()?)
        }
        None => {
            let r = get_f64(d, "rate", 0.0)?;
            if !(r.is_finite() && (0.0..=1e15).contains(&r)) {
                return Err(to_py(Error::param(&format!("{name}.rate"), r, "bits/s in [0, 1e15] (0: no limit)")));
            }
            Timing::Rate { rate_bps: if r == 0.0 { u64::MAX } else { r.round().max(1.0) as u64 } }
        }
    };
    let layer_cfg = match d.get_item("link_layer")?.filter(|v| !v.is_none()) {
        Some(l) => Some(link_layer_config(l.downcast::<PyDict>()?)?.build().py()?),
        None => None,
    };
    let timing = if layer_cfg.is_some() { Timing::LinkLayer } else { timing };
    let delay = get_f64(d, "delay", 0.0)?;
    if !(delay.is_finite() && (0.0..=3600.0).contains(&delay)) {
        return Err(to_py(Error::param(&format!("{name}.delay"), delay, "seconds in [0, 3600]")));
    }
    let buffer = get_f64(d, "buffer", 1000.0)?;
    if !(buffer.is_finite() && buffer >= 0.0 && buffer.fract() == 0.0 && buffer <= 1e12) {
        return Err(to_py(Error::param(&format!("{name}.buffer"), buffer, "a whole number of packets or bytes up to 10^12")));
    }
    let unit = match d.get_item("buffer_unit")?.map(|v| v.extract::<String>()).transpose()?.as_deref() {
        None | Some("packets") => BufferUnit::Packets,
        Some("bytes") => BufferUnit::Bytes,
        Some(other) => return Err(to_py(Error::param(&format!("{name}.buffer_unit"), other, "packets or bytes"))),
    };
    let seed = get_f64(d, "seed", 1.0)? as u64;
    let mode = match d.get_item("loss_mode")?.map(|v| v.extract::<String>()).transpose()?.as_deref() {
        None | Some("packet") => LossMode::Packet,
        Some("time") => LossMode::Time,
        Some(other) => return Err(to_py(Error::param(&format!("{name}.loss_mode"), other, "packet or time"))),
    };
    let loss = match d.get_item("loss")?.filter(|v| !v.is_none()) {
        Some(m) => {
            let m: PyRef<'_, PyLossModel> = m.extract()?;
            // the stream `LossModel.lost_in_transit_many(…, seed)` uses: a run's decisions can
            // be checked against the model's own sequence
            LossSource::Own { model: m.fresh(), rng: rng::from_seed(seed), mode }
        }
        None => LossSource::None,
    };
    let replay = match d.get_item("replay")?.filter(|v| !v.is_none()) {
        Some(r) => {
            let r: PyReadonlyArray1<'_, bool> = r.extract()?;
            Some(r.as_slice()?.to_vec())
        }
        None => None,
    };
    let keyed = match d.get_item("replay_keyed")?.filter(|v| !v.is_none()) {
        Some(r) => {
            let r = r.downcast::<PyDict>()?;
            let col = |k: &str| -> PyResult<Bound<'_, PyAny>> {
                r.get_item(k)?.ok_or_else(|| to_py(Error::param(&format!("{name}.replay_keyed"), k, "columns flow, kind, num, tx and lost")))
            };
            let flow: PyReadonlyArray1<'_, u32> = col("flow")?.extract()?;
            let kind: PyReadonlyArray1<'_, u8> = col("kind")?.extract()?;
            let num: PyReadonlyArray1<'_, u64> = col("num")?.extract()?;
            let tx: PyReadonlyArray1<'_, u32> = col("tx")?.extract()?;
            let lost: PyReadonlyArray1<'_, bool> = col("lost")?.extract()?;
            Some(KeyedReplay::new(flow.as_slice()?, kind.as_slice()?, num.as_slice()?, tx.as_slice()?, lost.as_slice()?).py()?)
        }
        None => None,
    };
    if keyed.is_some() && replay.is_some() {
        return Err(to_py(Error::param(&format!("{name}.replay"), "both", "a replay by packet number or keyed by segment, not both")));
    }
    Ok(Dir {
        pipe: Pipe::new(time::from_secs_f64(delay), buffer as u64, unit),
        server: Server::new(timing),
        layer: layer_cfg,
        loss,
        layer_rng: rng::stream(seed, rng::component_id("shell.link_layer")),
        replay,
        keyed,
        keyer: PacketKeyer::default(),
        tx: TxCounter::default(),
        replayed: 0,
        replay_past_end: 0,
        inp,
        out,
        bufs: Vec::new(),
        meta: Vec::new(),
        free: Vec::new(),
        logging,
        log: Log::default(),
        packets: 0,
        delivered: 0,
        lost: 0,
        queue_drops: 0,
        write_errors: 0,
        late_max: 0,
        late_sum: 0,
    })
}

fn result<'py>(py: Python<'py>, mut d: Dir) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    let undelivered = d.end();
    out.set_item("in_flight_at_end", undelivered)?;
    out.set_item("packets", d.packets)?;
    out.set_item("delivered", d.delivered)?;
    out.set_item("lost", d.lost)?;
    out.set_item("queue_drops", d.queue_drops)?;
    out.set_item("write_errors", d.write_errors)?;
    out.set_item("late_max", d.late_max as f64 * 1e-9)?;
    out.set_item("late_mean", if d.delivered > 0 { d.late_sum as f64 * 1e-9 / d.delivered as f64 } else { 0.0 })?;
    out.set_item("replay_past_end", d.replay_past_end)?;
    // keyed replay: decisions the log held, and those it did not (delivered)
    let (matched, unmatched) = d.keyed.as_ref().map_or((0, 0), |r| (r.matched, r.unmatched));
    out.set_item("replay_matched", matched)?;
    out.set_item("replay_unmatched", unmatched)?;
    if d.logging {
        let l = d.log;
        let log = PyDict::new(py);
        log.set_item("t_in", l.t_in.into_pyarray(py))?;
        log.set_item("bytes", l.bytes.into_pyarray(py))?;
        log.set_item("start", l.start.into_pyarray(py))?;
        log.set_item("end", l.end.into_pyarray(py))?;
        log.set_item("arrive", l.arrive.into_pyarray(py))?;
        log.set_item("fate", l.fate.into_pyarray(py))?;
        log.set_item("t_out", l.t_out.into_pyarray(py))?;
        log.set_item("attempts", l.attempts.into_pyarray(py))?;
        log.set_item("flow", l.flow.into_pyarray(py))?;
        log.set_item("kind", l.kind.into_pyarray(py))?;
        log.set_item("num", l.num.into_pyarray(py))?;
        log.set_item("tx", l.tx.into_pyarray(py))?;
        out.set_item("log", log)?;
    }
    Ok(out)
}

/// Create the two TUN devices (`inner` inside the namespace at `netns`, `outer` here), write
/// one byte to `ready_fd`, then forward until `stop_fd` is readable (at real-time priority
/// when `realtime` and allowed); returns each direction's counters (and log).
#[pyfunction]
#[pyo3(signature = (netns, inner, outer, uplink, downlink, stop_fd, ready_fd, log=true, realtime=true))]
#[allow(clippy::too_many_arguments)]
fn shell_forward<'py>(
    py: Python<'py>,
    netns: &str,
    inner: &str,
    outer: &str,
    uplink: &Bound<'py, PyDict>,
    downlink: &Bound<'py, PyDict>,
    stop_fd: RawFd,
    ready_fd: RawFd,
    log: bool,
    realtime: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let inner_name = inner.to_string();
    let in_fd = in_netns(netns, || open_tun(&inner_name)).py()?;
    let out_fd = match open_tun(outer) {
        Ok(fd) => fd,
        Err(e) => {
            // SAFETY: closing the fd we opened.
            unsafe { libc::close(in_fd) };
            return Err(to_py(e));
        }
    };
    let close_both = || unsafe {
        // SAFETY: closing the two fds we opened, once.
        libc::close(in_fd);
        libc::close(out_fd);
    };
    // uplink: from the shell (inner device) out; downlink: back in
    let dirs = direction(uplink, "uplink", in_fd, out_fd, log).and_then(|u| Ok((u, direction(downlink, "downlink", out_fd, in_fd, log)?)));
    let (mut up, mut down) = match dirs {
        Ok(x) => x,
        Err(e) => {
            close_both();
            return Err(e);
        }
    };
    let one = [1u8];
    // SAFETY: a one-byte write to the caller's pipe.
    if unsafe { libc::write(ready_fd, one.as_ptr() as *const libc::c_void, 1) } != 1 {
        close_both();
        return Err(to_py(os_err("the ready pipe")));
    }
    let run = py.allow_threads(|| -> Result<(), Error> {
        // SAFETY: prctl and sched_setscheduler on this thread only (pid 0 = the caller).
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong);
            if realtime {
                // real-time priority where allowed (root): a busy machine's other work then
                // cannot delay a due packet; the loop sleeps in ppoll, so it takes no CPU
                // beyond the packets' own work. Refused (no privilege): an ordinary thread.
                let param = libc::sched_param { sched_priority: 10 };
                libc::sched_setscheduler(0, libc::SCHED_FIFO, &param);
            }
        }
        let t0 = now_ns();
        let mut fds = [
            libc::pollfd { fd: in_fd, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: out_fd, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: stop_fd, events: libc::POLLIN, revents: 0 },
        ];
        loop {
            let next = [up.deliver_due(t0), down.deliver_due(t0)].into_iter().flatten().min();
            let ts;
            let tsp = match next {
                Some(t) => {
                    let wait = t.saturating_sub(now_ns() - t0);
                    ts = libc::timespec { tv_sec: (wait / 1_000_000_000) as libc::time_t, tv_nsec: (wait % 1_000_000_000) as libc::c_long };
                    &ts as *const libc::timespec
                }
                None => std::ptr::null(),
            };
            // SAFETY: ppoll over the three pollfds we own, with a timespec on the stack.
            let n = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, tsp, std::ptr::null()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return Err(os_err("ppoll"));
            }
            if fds[2].revents != 0 {
                return Ok(());
            }
            if fds[0].revents & libc::POLLIN != 0 && !up.read_some(t0)? {
                return Ok(());
            }
            if fds[1].revents & libc::POLLIN != 0 && !down.read_some(t0)? {
                return Ok(());
            }
        }
    });
    close_both();
    run.py()?;
    let out = PyDict::new(py);
    out.set_item("uplink", result(py, up)?)?;
    out.set_item("downlink", result(py, down)?)?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shell_forward, m)?)?;
    Ok(())
}
