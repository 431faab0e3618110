//! Unit tests of the sender.
use super::*;
use crate::tcp::cc::Reno as RenoCc;
use crate::tcp::receiver::MAX_SACK_BLOCKS;
use crate::tcp::recovery::NewReno;
use crate::tcp::rtt::BackoffReset;
use crate::tcp::SsthreshRule;
use crate::time::NS_PER_MS;

fn sender(init_cwnd: u64, max_cwnd: u64, rwnd: u64) -> Sender {
    let cfg = SenderConfig {
        mss: 1000,
        init_cwnd,
        max_cwnd,
        rwnd,
        dupack_threshold: 3,
        limited_transmit: false,
        dupack_rule: DupackRule::Rfc5681,
        pipe_rule: PipeRule::Rfc6675,
        rack_lost_retransmissions: false,
        rack_tlp: false,
        rto_keeps_recovery_ssthresh: false,
        rtt: RttConfig { rto_min: 200 * NS_PER_MS, rto_max: 60_000 * NS_PER_MS, rto_initial: 1000 * NS_PER_MS, granularity: 0, backoff_reset: BackoffReset::Sample, estimator: Default::default(), backoff: true },
        ssthresh_rule: SsthreshRule::FlightSize,
        grow_on_loss_exit: true,
        grow_on_recovery_exit: false,
        timestamps: false,
        cc_rtt: CcRtt::Sample,
        total_bytes: None,
        fast_retransmit_after_timeout: false,
        restart_timer_every_partial_ack: false,
        ecn: false,
    };
    Sender::new(cfg, Cc::Reno(RenoCc::default()), Recovery::NewReno(NewReno::default()))
}

/// A RFC 6675 SACK sender, with or without RACK's rule for lost retransmissions.
fn sack_sender(init_cwnd: u64, rack: bool) -> Sender {
    let mut cfg = sender(init_cwnd, u64::MAX, u64::MAX).cfg;
    cfg.rack_lost_retransmissions = rack;
    Sender::new(cfg, Cc::Reno(RenoCc::default()), Recovery::Sack(crate::tcp::recovery::sack::Sack))
}

fn ack(n: u64) -> AckPkt {
    AckPkt { ack: n, sack: [(0, 0); MAX_SACK_BLOCKS], nsack: 0, tsecr: 0, ece: false, lt_erasure: None, lt_rfec: None }
}

fn segs(out: &mut Vec<Tx>) -> Vec<(u64, bool)> {
    out.drain(..).map(|t| (t.seg, t.retx)).collect()
}

/// Karn's rule (RFC 6298 §3, §5): ACKs that cover a retransmitted segment give no RTT
/// sample and keep the backed-off RTO; the first ACK of never-retransmitted data gives
/// a sample again. Expected values by hand from RFC 6298 §2 (α = 1/8, β = 1/4, K = 4).
#[test]
fn karns_rule_across_a_timeout() {
    let ms = NS_PER_MS;
    let mut s = sender(2, u64::MAX, u64::MAX);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(segs(&mut out), vec![(0, false), (1, false)]);
    assert_eq!(s.tcb.rto, 1000 * ms); // RFC 6298 §2.1: initial RTO
    // ACK 1 after 100 ms: first sample, SRTT 100, RTTVAR 50, RTO 100 + 4·50 = 300 ms.
    s.on_ack(&ack(1), 100 * ms, &mut out);
    assert_eq!((s.tcb.srtt, s.tcb.rttvar, s.tcb.rto), (Some(100 * ms), 50 * ms, 300 * ms));
    // Slow start: cwnd 3 segments, una = 1 → segments 2 and 3 go out.
    assert_eq!(segs(&mut out), vec![(2, false), (3, false)]);
    // Timeout: one segment, go back to una, RTO doubled to 600 ms (§5.5).
    s.on_rto(1000 * ms, &mut out);
    assert_eq!(segs(&mut out), vec![(1, true)]);
    assert_eq!((s.tcb.cwnd, s.tcb.rto, s.counters.timeouts), (1000, 600 * ms, 1));
    // ssthresh = max(FlightSize / 2, 2·SMSS) = max(3000 / 2, 2000) (RFC 5681 eq. 4).
    assert_eq!(s.tcb.ssthresh, 2000);
    // ACK 2 covers the retransmitted segment 1: no sample, RTO stays backed off.
    s.on_ack(&ack(2), 1050 * ms, &mut out);
    assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(100 * ms), 600 * ms));
    // Go-back-N resends 2 and 3 (cwnd 2 segments after one slow-start ACK).
    assert_eq!(segs(&mut out), vec![(2, true), (3, true)]);
    // ACK 4 covers retransmissions only: still no sample; new data 4 and 5 go out.
    s.on_ack(&ack(4), 1100 * ms, &mut out);
    assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(100 * ms), 600 * ms));
    assert_eq!(segs(&mut out), vec![(4, false), (5, false)]);
    // ACK 5 covers segment 4, sent once at 1100 ms: sample R = 50 ms.
    // RTTVAR = 3/4·50 + 1/4·|100 − 50| = 50; SRTT = 7/8·100 + 1/8·50 = 93.75;
    // RTO = 93.75 + 4·50 = 293.75 ms.
    s.on_ack(&ack(5), 1150 * ms, &mut out);
    assert_eq!((s.tcb.srtt, s.tcb.rttvar, s.tcb.rto), (Some(93_750_000), 50 * ms, 293_750_000));
}

/// RFC 7323: with timestamps every ACK of new data gives a sample, now − TSecr, also when
/// it covers a retransmission (the echo tells which copy arrived), where Karn's rule
/// gives none; duplicate ACKs give none.
#[test]
fn timestamps_sample_every_new_ack() {
    let ms = NS_PER_MS;
    let mut s = sender(2, u64::MAX, u64::MAX);
    s.cfg.timestamps = true;
    let mut out = Vec::new();
    s.start(0, &mut out);
    let ts_ack = |n: u64, tsecr: u64| AckPkt { tsecr, ..ack(n) };
    s.on_ack(&ts_ack(1, 0), 100 * ms, &mut out);
    assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(100 * ms), 300 * ms));
    s.on_rto(1000 * ms, &mut out); // retransmits 1 at 1000 ms
    assert_eq!(s.tcb.rto, 600 * ms);
    // The ACK of the retransmission echoes its TSval (1000 ms): R = 50 ms.
    // RTTVAR = 3/4·50 + 1/4·50 = 50; SRTT = 7/8·100 + 1/8·50 = 93.75; RTO = 293.75 ms.
    s.on_ack(&ts_ack(2, 1000 * ms), 1050 * ms, &mut out);
    assert_eq!((s.tcb.srtt, s.tcb.rto), (Some(93_750_000), 293_750_000));
    let before = (s.tcb.srtt, s.tcb.rttvar);
    s.on_ack(&ts_ack(2, 1000 * ms), 1060 * ms, &mut out); // duplicate: no sample
    assert_eq!((s.tcb.srtt, s.tcb.rttvar), before);
}

/// The receiver window and the maximum window bound the flight (segments in flight =
/// min(cwnd, max_cwnd, rwnd)); the timer stops once everything is acknowledged
/// (RFC 6298 §5.2).
#[test]
fn receiver_and_maximum_windows_bound_the_flight() {
    let mut out = Vec::new();
    let mut s = sender(10, u64::MAX, 3);
    s.start(0, &mut out);
    assert_eq!(out.len(), 3);
    out.clear();
    s.on_ack(&ack(1), 10, &mut out);
    assert_eq!(segs(&mut out), vec![(3, false)]); // una = 1: segments 1..=3 in flight
    let mut m = sender(10, 4000, u64::MAX);
    m.start(0, &mut out);
    assert_eq!(out.len(), 4);
    out.clear();
    for a in 1..=4 {
        m.on_ack(&ack(a), 10 * a, &mut out);
    }
    // Slow start would reach 8 segments; max_cwnd keeps 4 in flight: 4..=7 sent.
    assert_eq!(segs(&mut out).iter().map(|x| x.0).collect::<Vec<_>>(), vec![4, 5, 6, 7]);
    // A 2-segment transfer: the timer runs while data is outstanding, stops at the end.
    let mut f = sender(2, u64::MAX, u64::MAX);
    f.cfg.total_bytes = Some(1500);
    let mut f = Sender::new(f.cfg, Cc::Reno(RenoCc::default()), Recovery::NewReno(NewReno::default()));
    f.start(0, &mut out);
    assert_eq!(out.iter().map(|t| t.len).collect::<Vec<_>>(), vec![1000, 500]);
    assert_eq!(f.rto_deadline(), Some(1000 * NS_PER_MS));
    f.on_ack(&ack(1), 10, &mut out);
    assert_eq!(f.rto_deadline(), Some(10 + f.tcb.rto)); // restarted (§5.3)
    f.on_ack(&ack(2), 20, &mut out);
    assert_eq!(f.rto_deadline(), None);
    assert_eq!(out.len(), 2); // nothing beyond the transfer
}

/// The `tossim` profile's sender options. (1) `fast_retransmit_after_timeout`: after a
/// timeout, three duplicate ACKs start fast retransmit (RFC 2581 §3.2, RFC 2582's base
/// algorithm); RFC 6582's careful variant ignores them until `recover` is acknowledged.
#[test]
fn fast_retransmit_after_a_timeout_is_a_choice() {
    let ms = NS_PER_MS;
    for frat in [false, true] {
        let mut s = sender(2, u64::MAX, u64::MAX);
        s.cfg.fast_retransmit_after_timeout = frat;
        let mut out = Vec::new();
        s.start(0, &mut out);
        s.on_rto(1000 * ms, &mut out);
        assert_eq!(segs(&mut out), vec![(0, false), (1, false), (0, true)]);
        for k in 1..=3 {
            s.on_ack(&ack(0), (1000 + 300 * k) * ms, &mut out); // e.g. the receiver's idle ACKs
        }
        if frat {
            // ssthresh = max(FlightSize/2, 2·SMSS) = 2000; cwnd = ssthresh + 3·SMSS: the
            // retransmission of 0, then go-back-N resumes at 1 up to 5 segments in flight.
            assert_eq!(segs(&mut out), vec![(0, true), (1, true), (2, false), (3, false), (4, false)]);
            assert_eq!((s.counters.fast_retransmits, s.tcb.state, s.tcb.ssthresh, s.tcb.cwnd), (1, CaState::Recovery, 2000, 5000));
        } else {
            assert!(out.is_empty());
            assert_eq!((s.counters.fast_retransmits, s.tcb.state), (0, CaState::Loss));
        }
    }
}

/// (2) `restart_timer_every_partial_ack`: RFC 2582 §4's Slow-but-Steady variant restarts
/// the timer on every partial ACK; the Impatient variant (RFC 6582) only on the first.
#[test]
fn slow_but_steady_restarts_the_timer_on_every_partial_ack() {
    let ms = NS_PER_MS;
    for every in [false, true] {
        let mut s = sender(10, u64::MAX, u64::MAX);
        s.cfg.restart_timer_every_partial_ack = every;
        let mut out = Vec::new();
        s.start(0, &mut out);
        for t in [10, 20, 30] {
            s.on_ack(&ack(0), t * ms, &mut out);
        }
        assert_eq!(s.tcb.state, CaState::Recovery);
        s.on_ack(&ack(3), 100 * ms, &mut out); // first partial ACK: both restart
        assert_eq!(s.rto_deadline(), Some(1100 * ms));
        s.on_ack(&ack(5), 200 * ms, &mut out); // second partial ACK
        assert_eq!(s.rto_deadline(), Some(if every { 1200 } else { 1100 } * ms));
    }
}

/// RACK's rule for retransmissions (RFC 8985 §6.2): segment 0 is lost, fast-retransmitted
/// at 13 ms, and lost again. Once a segment sent after that retransmission (new data, 10)
/// is SACKed, RACK sends 0 again at once; RFC 6675 alone (HighRxt is past 0) sends it
/// only after the retransmission timer.
#[test]
fn rack_resends_a_lost_retransmission_without_the_timer() {
    let ms = NS_PER_MS;
    for rack in [false, true] {
        let mut s = sack_sender(10, rack);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        let sack = |e: u64| {
            let mut a = ack(0);
            a.sack[0] = (1, e);
            a.nsack = 1;
            a
        };
        // Segments 1..=9 arrive, 0 does not: duplicate ACKs SACKing 1..e.
        let mut resent_at = Vec::new();
        for (k, e) in (2..=10).enumerate() {
            let now = (10 + k as u64) * ms;
            s.on_ack(&sack(e), now, &mut out);
            for t in out.drain(..) {
                if t.seg == 0 {
                    resent_at.push(now);
                }
            }
        }
        // The third duplicate ACK (12 ms) starts recovery and retransmits 0; the later
        // ones send new data 10, 11, ... (sent after that retransmission).
        assert_eq!((s.tcb.state, resent_at.clone()), (CaState::Recovery, vec![12 * ms]));
        assert!(s.tcb.high_tx > 10);
        // The retransmission of 0 is lost; the ACK SACKing new segment 10 arrives.
        s.on_ack(&sack(11), 40 * ms, &mut out);
        let again = out.iter().any(|t| t.seg == 0 && t.retx);
        assert_eq!(again, rack, "rack = {rack}");
        assert_eq!(s.counters.lost_retransmissions, rack as u64);
        assert_eq!(s.counters.timeouts, 0);
        // Found lost once: a later SACK (of 11) does not send it a third time.
        out.clear();
        s.on_ack(&sack(12), 41 * ms, &mut out);
        assert!(!out.iter().any(|t| t.seg == 0));
        assert_eq!(s.counters.lost_retransmissions, rack as u64);
    }
}

fn rack_tlp_sender(init_cwnd: u64, on: bool) -> Sender {
    let mut s = sack_sender(init_cwnd, on);
    s.cfg.rack_tlp = on;
    s
}

fn sack_ack(cum: u64, blocks: &[(u64, u64)]) -> AckPkt {
    let mut a = ack(cum);
    for (i, &b) in blocks.iter().enumerate() {
        a.sack[i] = b;
    }
    a.nsack = blocks.len() as u8;
    a
}

/// What a duplicate ACK is with SACK (`dupack_rule`). Three segments in congestion
/// avoidance (cwnd = ssthresh = 3000), segment 1 lost. The ACK at 20 ms acknowledges 0 and
/// SACKs 2: RFC 5681 returns to Open and grows cwnd (3333) with 2 segments in FlightSize:
/// one new segment (3). RFC 6675 counts it a duplicate ACK (reset, then one) and sends
/// while cwnd − pipe ≥ 1 SMSS, the SACKed 2 out of the pipe: 3 and 4; ns-3 likewise but
/// without growing cwnd. The ACK at 21 ms SACKs 3: RFC 5681 has 3 segments in flight, no
/// room; the others a pipe of 2 (1 and 4): one more (5, ns-3; RFC 6675's cwnd 3333 too).
/// The same ACK again brings no new SACK information: a duplicate for RFC 5681 only (its
/// second; the others stay at two). The ACK at 22 ms SACKs 4: the third duplicate for
/// RFC 6675 and ns-3 (fast retransmit of 1), the second for RFC 5681 (with two SACKed
/// above it, 1 is not yet lost).
#[test]
fn dupack_rules_with_sack() {
    let ms = NS_PER_MS;
    for rule in [DupackRule::Rfc5681, DupackRule::Rfc6675, DupackRule::Ns3] {
        let mut s = sack_sender(3, false);
        s.cfg.dupack_rule = rule;
        s.tcb.ssthresh = 3000;
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        let rfc5681 = rule == DupackRule::Rfc5681;
        s.on_ack(&sack_ack(1, &[(2, 3)]), 20 * ms, &mut out);
        let state = if rfc5681 { CaState::Open } else { CaState::Disorder };
        let cwnd = if rule == DupackRule::Ns3 { 3000 } else { 3333 };
        assert_eq!((s.tcb.state, s.tcb.dupacks, s.tcb.cwnd), (state, u32::from(!rfc5681), cwnd), "{rule:?}");
        let sent: &[(u64, bool)] = if rfc5681 { &[(3, false)] } else { &[(3, false), (4, false)] };
        assert_eq!(segs(&mut out), sent, "{rule:?}");
        s.on_ack(&sack_ack(1, &[(2, 4)]), 21 * ms, &mut out);
        let sent: &[(u64, bool)] = if rfc5681 { &[] } else { &[(5, false)] };
        assert_eq!((s.tcb.dupacks, segs(&mut out).as_slice()), (if rfc5681 { 1 } else { 2 }, sent), "{rule:?}");
        let mut again = s.clone();
        again.on_ack(&sack_ack(1, &[(2, 4)]), 21 * ms, &mut out);
        assert_eq!((again.tcb.state, again.tcb.dupacks, out.len()), (CaState::Disorder, s.tcb.dupacks + u32::from(rfc5681), 0), "{rule:?}");
        s.on_ack(&sack_ack(1, &[(2, 5)]), 22 * ms, &mut out);
        let recovery = !rfc5681;
        assert_eq!(s.tcb.state == CaState::Recovery, recovery, "{rule:?}");
        assert_eq!(out.first().map(|t| (t.seg, t.retx)) == Some((1, true)), recovery, "{rule:?}");
        assert_eq!(s.counters.fast_retransmits, u64::from(recovery));
    }
}

/// What a SACK sender counts in flight (`pipe_rule`). Eight segments, 0 and 1 lost; the
/// ACKs SACKing 2, 3 and 4 start recovery (0 resent), the next ones let 1 be resent too.
/// The resent 0 is lost again and the resent 1 arrives: SACKed. RFC 6675 takes it out of
/// the pipe; ns-3 keeps it in until the cumulative ACK passes it, so that ACK lets one
/// new segment fewer go.
#[test]
fn pipe_rules() {
    let ms = NS_PER_MS;
    let mut pipes = Vec::new();
    for rule in [PipeRule::Rfc6675, PipeRule::Ns3] {
        let mut s = sack_sender(8, false);
        s.cfg.pipe_rule = rule;
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        let mut resent = Vec::new();
        for (k, e) in (3..=8).enumerate() {
            s.on_ack(&sack_ack(0, &[(2, e)]), (20 + k as u64) * ms, &mut out);
            resent.extend(out.drain(..).filter(|t| t.retx).map(|t| t.seg));
        }
        assert_eq!((s.tcb.state, resent.as_slice()), (CaState::Recovery, &[0, 1][..]), "{rule:?}");
        assert_eq!(s.phantoms(), 0);
        s.on_ack(&sack_ack(0, &[(1, 8)]), 40 * ms, &mut out);
        assert_eq!(s.phantoms(), u64::from(rule == PipeRule::Ns3), "{rule:?}");
        s.update_pipe(false);
        pipes.push((s.tcb.pipe, out.drain(..).count()));
    }
    // The window filled in both, with one new segment fewer for ns-3's count.
    assert_eq!(pipes[1].0, pipes[0].0);
    assert_eq!(pipes[1].1 + 1, pipes[0].1);
}

/// RACK-TLP entering recovery by time (RFC 8985 §6.2-6.3): 4 segments at 0; the ACK of 0
/// at 20 ms gives RTT 20 ms (min RTT 20) and sends 4, 5; 1 is lost, and the ACK at 21 ms
/// SACKs 2 (sent at 0, delivered 21 ms later: RACK.rtt 21 ms). 1 is lost at 0 + 21 +
/// 20/4 = 26 ms (one SACK, fewer than DupThresh): the reordering timer, not the
/// retransmission timer, is armed for 26 ms, and firing starts fast recovery with 1 sent
/// again. RFC 6675 alone waits (one duplicate ACK, the timer at the RTO).
#[test]
fn rack_tlp_enters_recovery_by_time() {
    let ms = NS_PER_MS;
    for on in [false, true] {
        let mut s = rack_tlp_sender(4, on);
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        s.on_ack(&ack(1), 20 * ms, &mut out);
        assert_eq!(s.tcb.min_rtt, Some(20 * ms));
        out.clear();
        s.on_ack(&sack_ack(1, &[(2, 3)]), 21 * ms, &mut out);
        assert!(out.iter().all(|t| !t.retx), "on = {on}");
        assert_eq!(s.tcb.state, CaState::Disorder);
        if !on {
            assert!(s.timer_is_rto() && s.rto_deadline().unwrap() > 200 * ms);
            continue;
        }
        assert_eq!((s.rto_deadline(), s.timer_is_rto()), (Some(26 * ms), false));
        out.clear();
        s.on_rto(26 * ms, &mut out);
        assert_eq!(s.tcb.state, CaState::Recovery);
        assert_eq!(out.first().map(|t| (t.seg, t.retx)), Some((1, true)));
        assert_eq!((s.counters.fast_retransmits, s.counters.timeouts), (1, 0));
        assert!(s.timer_is_rto() && s.rto_deadline().unwrap() > 200 * ms);
    }
}

/// The tail loss probe (RFC 8985 §7): after the ACK at 20 ms (SRTT 20 ms) with three
/// segments in flight in Open state, the probe is due 2·20 + 2 = 42 ms later; it sends
/// a new segment whatever cwnd allows and the retransmission timer then runs from it. With
/// one segment in flight the delayed-ACK allowance is 200 ms.
#[test]
fn rack_tlp_tail_loss_probe() {
    let ms = NS_PER_MS;
    let mut s = rack_tlp_sender(4, true);
    s.cfg.rwnd = 8;
    let mut out = Vec::new();
    s.start(0, &mut out);
    out.clear();
    s.on_ack(&ack(1), 20 * ms, &mut out);
    let sent = segs(&mut out);
    let high = s.tcb.high_tx;
    assert_eq!(s.tcb.state, CaState::Open);
    assert_eq!((s.rto_deadline(), s.timer_is_rto()), (Some(62 * ms), false), "sent {sent:?}");
    s.on_rto(62 * ms, &mut out);
    assert_eq!(segs(&mut out), vec![(high, false)]);
    assert_eq!((s.counters.loss_probes, s.counters.timeouts), (1, 0));
    assert_eq!((s.rto_deadline(), s.timer_is_rto()), (Some(62 * ms + s.tcb.rto), true));
    // No second probe for the same tail: the next ACK (of 1) leaves the probe outstanding.
    s.on_ack(&ack(2), 70 * ms, &mut out);
    assert!(s.timer_is_rto());
    // One segment in flight (the receiver's window holds one): 2·SRTT + 200 ms.
    let mut s = rack_tlp_sender(1, true);
    s.cfg.rwnd = 1;
    s.cfg.rtt.rto_min = 1000 * ms; // (so that the probe comes first)
    s.start(0, &mut out);
    out.clear();
    s.on_ack(&ack(1), 20 * ms, &mut out);
    assert_eq!(s.tcb.high_tx - s.tcb.snd_una, 1, "{:?}", segs(&mut out));
    assert_eq!((s.rto_deadline(), s.timer_is_rto()), (Some(20 * ms + 2 * 20 * ms + 200 * ms), false));
}

/// RACK-TLP in fast recovery: a hole is lost once one segment sent after it is SACKed
/// (RFC 8985 with no reordering window on a FIFO path), not DupThresh: 0 and 8 of ten are
/// lost; three ACKs SACKing 1-3 start recovery (0 sent again); the ACK SACKing 9 makes 8
/// lost and it goes next, where RFC 6675 alone needs two more SACKed segments above it.
#[test]
fn rack_tlp_marks_holes_in_recovery() {
    let ms = NS_PER_MS;
    for on in [false, true] {
        let mut s = rack_tlp_sender(10, on);
        let mut out = Vec::new();
        s.start(0, &mut out);
        out.clear();
        for e in 2..=4 {
            s.on_ack(&sack_ack(0, &[(1, e)]), (20 + e) * ms, &mut out);
        }
        assert_eq!(s.tcb.state, CaState::Recovery);
        let first: Vec<_> = segs(&mut out);
        assert_eq!(first.first(), Some(&(0, true)), "on = {on}");
        for e in 5..=8 {
            s.on_ack(&sack_ack(0, &[(1, e)]), (20 + e) * ms, &mut out);
        }
        s.on_ack(&sack_ack(0, &[(9, 10), (1, 8)]), 30 * ms, &mut out);
        let resent_8 = segs(&mut out).contains(&(8, true));
        assert_eq!(resent_8, on, "on = {on}");
    }
}

/// RACK after a timeout: the retransmissions of the Loss state are watched too. Two
/// segments are lost and the timer fires; 0 and 1 go again (0 first, then 1 as the first
/// ACK opens the window); when the copy of 1 (sent after 0's) is SACKed while 0's copy is
/// missing, RACK sends 0 a third time without a second timeout.
#[test]
fn rack_after_a_timeout() {
    let ms = NS_PER_MS;
    for rack in [false, true] {
        let mut s = sack_sender(2, rack);
        let mut out = Vec::new();
        s.start(0, &mut out); // 0 and 1, both lost
        s.on_rto(1000 * ms, &mut out);
        assert_eq!(s.tcb.state, CaState::Loss);
        out.clear();
        // cwnd one segment: 0 went at 1000 ms. Open the window to two segments by hand
        // (slow start would after one ACK), so that 1 follows.
        s.tcb.cwnd = 2 * s.tcb.mss;
        s.send_loop(1001 * ms, &mut out);
        assert_eq!(segs(&mut out), vec![(1, true)]); // 1 sent after 0's copy
        // 0's copy is lost; 1's arrives: the receiver SACKs 1.
        let mut a = ack(0);
        a.sack[0] = (1, 2);
        a.nsack = 1;
        s.on_ack(&a, 1050 * ms, &mut out);
        let again = segs(&mut out).contains(&(0, true));
        assert_eq!(again, rack, "rack = {rack}");
        assert_eq!((s.counters.lost_retransmissions, s.counters.timeouts), (rack as u64, 1));
    }
}

/// A Linux-like PRR sender (RACK-TLP, Linux's PRR, ssthresh from cwnd), `keep`:
/// `rto_keeps_recovery_ssthresh`.
fn linux_prr_sender(init_cwnd: u64, keep: bool) -> Sender {
    use crate::tcp::config::{PrrBound, PrrVariant};
    let mut cfg = sender(init_cwnd, u64::MAX, u64::MAX).cfg;
    (cfg.rack_lost_retransmissions, cfg.rack_tlp, cfg.rto_keeps_recovery_ssthresh) = (true, true, keep);
    cfg.ssthresh_rule = SsthreshRule::Cwnd;
    let prr = crate::tcp::recovery::prr::Prr::new(PrrBound::Ssrb, PrrVariant::Linux);
    Sender::new(cfg, Cc::Reno(RenoCc::default()), Recovery::Prr(prr))
}

/// [`linux_prr_sender`] after the ACK of 0 (at 20 ms: 1-9 sent) and the ACK at 41 ms that
/// SACKs 9 (1-8 lost); what the sender sent on that ACK.
fn window_lost_but_its_last(keep: bool) -> (Sender, Vec<Tx>) {
    let ms = NS_PER_MS;
    let mut s = linux_prr_sender(8, keep);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_ack(&ack(1), 20 * ms, &mut out);
    assert_eq!(s.tcb.high_tx, 10);
    out.clear();
    s.on_ack(&sack_ack(1, &[(9, 10)]), 41 * ms, &mut out);
    (s, out)
}

/// A window lost but its last segment, with RACK-TLP: ten segments (0-9 after the ACK of
/// 0 opens the window to nine), 1-8 lost, 9 SACKed at 41 ms. RACK finds 1-8 lost by time
/// (sent 21 ms + min RTT / 4 before) and Linux marks them before PRR's first step
/// (`tcp_identify_packet_loss`, then `tcp_cwnd_reduction`): in flight 0, sndcnt = the one
/// segment delivered, cwnd 1: one retransmission (1), not the eight holes at once, which
/// a pipe counted by DupThresh (2-8 not yet lost with one SACK above) would let out.
#[test]
fn rack_tlp_recovery_entry_counts_the_holes_lost() {
    let (s, mut out) = window_lost_but_its_last(false);
    assert_eq!(s.tcb.state, CaState::Recovery);
    assert_eq!(s.tcb.ssthresh, 4500); // cwnd 9 segments, Reno's half
    assert_eq!(segs(&mut out), vec![(1, true)]);
    assert_eq!(s.tcb.cwnd, 1000);
}

/// A timeout in fast recovery (the retransmission of the test above lost, the timer fires):
/// Linux keeps the recovery's ssthresh (`tcp_enter_loss` reduces only outside Recovery or
/// past its recovery point); RFC 5681 eq. (4) reduces it again, from cwnd 1 segment to 2.
/// Either way cwnd is one segment and 1 goes again.
#[test]
fn timeout_in_recovery_keeps_ssthresh_as_linux() {
    for keep in [false, true] {
        let (mut s, mut out) = window_lost_but_its_last(keep);
        out.clear();
        assert!(s.timer_is_rto());
        let at = s.rto_deadline().unwrap();
        s.on_rto(at, &mut out);
        assert_eq!((s.tcb.state, s.counters.timeouts), (CaState::Loss, 1));
        assert_eq!(s.tcb.ssthresh, if keep { 4500 } else { 2000 }, "keep = {keep}");
        assert_eq!((s.tcb.cwnd, segs(&mut out).first().copied()), (1000, Some((1, true))));
    }
}

/// The profile as a strategy chosen at construction (`Sender::plain_ack_path`): a sender has
/// the default rules (the path with them as constants) unless one of them is set otherwise;
/// and for a default-rules sender the plain paths (the in-line one, `Sender::on_ack_std`,
/// among them) and the full one send the same
/// segments and end in the same state over an ACK sequence with duplicates, a fast
/// retransmit, partial ACKs and a timeout.
#[test]
fn plain_ack_path_is_chosen_by_the_rules_and_changes_nothing() {
    let std_path: AckPath = Sender::on_ack_in::<false, false, true>;
    let configured: AckPath = Sender::on_ack_in::<false, false, false>;
    assert!(sender(2, u64::MAX, u64::MAX).default_rules());
    let rules: [fn(&mut SenderConfig); 5] = [
        |c| c.cc_rtt = CcRtt::Srtt,
        |c| c.rtt.estimator = crate::tcp::rtt::RtoEstimator::Rfc793 { alpha: 0.875, beta: 2.0 },
        |c| c.rtt.backoff_reset = BackoffReset::NewAck,
        |c| c.limited_transmit = true,
        |c| c.dupack_rule = DupackRule::Ns3,
    ];
    for set in rules {
        let mut t = sender(2, u64::MAX, u64::MAX);
        set(&mut t.cfg);
        assert!(!t.default_rules());
    }
    // ACK number and arrival (ms) of each ACK: slow start, three duplicates of 6 (fast
    // retransmit), a partial ACK, the recovery's end, then a timeout and its repair.
    let acks: &[(u64, u64)] = &[(1, 100), (2, 110), (3, 120), (4, 130), (6, 140), (6, 150), (6, 160), (6, 170), (9, 260), (14, 300), (15, 310)];
    let run = |path: Option<AckPath>| {
        let mut s = sender(2, u64::MAX, u64::MAX);
        let mut out = Vec::new();
        let mut sent = Vec::new();
        s.start(0, &mut out);
        sent.extend(segs(&mut out));
        for &(a, ms) in acks {
            let a = a.min(s.tcb.high_tx); // a receiver acknowledges only what was sent
            match path {
                Some(p) => p(&mut s, &ack(a), ms * NS_PER_MS, &mut out),
                None => s.on_ack(&ack(a), ms * NS_PER_MS, &mut out),
            }
            sent.extend(segs(&mut out));
        }
        s.on_rto(2000 * NS_PER_MS, &mut out);
        sent.extend(segs(&mut out));
        let t = &s.tcb;
        (sent, t.cwnd, t.ssthresh, t.snd_una, t.snd_nxt, t.srtt, t.rttvar, t.rto, s.counters)
    };
    let full = run(None);
    assert!(full.8.fast_retransmits == 1 && full.8.timeouts == 1, "the sequence exercises recovery and a timeout: {:?}", full.8);
    assert_eq!(run(Some(std_path)), full);
    assert_eq!(run(Some(configured)), full);
    // The engine's in-line path for a default-rules sender (`Sender::on_ack_std`).
    assert_eq!(run(Some(Sender::on_ack_std::<false>)), full);
}
