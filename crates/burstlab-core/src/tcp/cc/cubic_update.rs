//! The increment arithmetic of Linux's `bictcp_update` (`tcp_cubic.c`) that ns-3 3.44's
//! `TcpCubic::Update` ported: shared by [`super::cubic::LinuxCubic`] and
//! [`super::cubic_ns3::Ns3Cubic`], which differ in everything around it (time throttles,
//! units, the cube root).

/// `bictcp_update` (and ns-3's `TcpCubic::Update`): the segments to acknowledge per
/// one-segment increment of cwnd toward `target` (100·cwnd when the target is not above
/// cwnd); at most 20 before the first loss ("the initial growth of cubic function may be
/// too conservative").
pub(super) fn cnt_toward(target: u64, cwnd: u64, before_first_loss: bool) -> u64 {
    let cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
    if before_first_loss {
        cnt.min(20)
    } else {
        cnt
    }
}

/// The same functions' Reno estimate (TCP friendliness): `tcp_cwnd` grows a segment per
/// `(cwnd·beta_scale) >> 3` segments acknowledged (`ack_cnt`), and `cnt` is capped so that
/// cwnd follows it, one segment per cwnd / (tcp_cwnd − cwnd) acknowledged.
pub(super) fn reno_estimate_cnt(cnt: u64, cwnd: u64, beta_scale: u64, ack_cnt: &mut u64, tcp_cwnd: &mut u64) -> u64 {
    let delta = (cwnd * beta_scale) >> 3;
    if delta > 0 {
        while *ack_cnt > delta {
            *ack_cnt -= delta;
            *tcp_cwnd += 1;
        }
    }
    if *tcp_cwnd > cwnd {
        cnt.min(cwnd / (*tcp_cwnd - cwnd))
    } else {
        cnt
    }
}
