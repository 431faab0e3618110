//! What a real packet is, for `burstlab shell`'s replay keyed by segment (docs/shell.md,
//! "Replay by packet number or by segment"; the keys and their counting: `loss/keyed.rs`).
//!
//! [`PacketKeyer`] reads an IP packet's headers (IPv4, RFC 791 §3.1; TCP, RFC 9293 §3.1) and
//! gives its [`FateKey`]:
//! - its flow: TCP connections (by address and port pair) numbered in the order this
//!   direction first saw them, from 0 (the simulator's flow numbers), counting only those
//!   first seen with a SYN or a payload (a stray RST or FIN of an earlier connection is
//!   [`KeyKind::Other`] and shifts no number);
//! - a TCP segment with payload: [`KeyKind::Data`], numbered by its sequence number in
//!   bytes from the sender's initial sequence number + 1 (its SYN's; a connection whose SYN
//!   was not seen counts from its first segment seen), modulo 2^32;
//! - a TCP segment without payload, SYN, FIN or RST: [`KeyKind::Ack`], numbered by its
//!   acknowledgement number in bytes from the first one the direction saw on the flow (the
//!   handshake's, which acknowledges the peer's SYN: 0), modulo 2^32;
//! - a SYN, FIN or RST without payload: [`KeyKind::Control`], numbered by those flags (FIN
//!   1, SYN 2, RST 4);
//! - anything else (not TCP over IPv4, an IP fragment, a malformed header): flow `u32::MAX`,
//!   [`KeyKind::Other`], number 0 (so its transmission count is its place among such packets).
//!
//! A segment's number over the simulator's maximum segment size is its segment number
//! there, and an ACK's its cumulative ACK in segments.
use crate::loss::{FateKey, KeyKind};
use std::collections::HashMap;

/// TCP header flags (RFC 9293 §3.1).
const FIN: u8 = 0x01;
const SYN: u8 = 0x02;
const RST: u8 = 0x04;
const ACK: u8 = 0x10;
/// Flow of packets that belong to none.
pub const NO_FLOW: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Flow {
    id: u32,
    /// Initial sequence number + 1 of this direction's sender, and the first
    /// acknowledgement number seen.
    seq0: Option<u32>,
    ack0: Option<u32>,
}

/// Keys the packets of one direction of a link (one per direction: flows are numbered in
/// the order that direction first saw them).
#[derive(Clone, Debug, Default)]
pub struct PacketKeyer {
    flows: HashMap<([u8; 4], [u8; 4], u16, u16), Flow>,
}

const OTHER: FateKey = FateKey { flow: NO_FLOW, kind: KeyKind::Other, num: 0 };

fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}

fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

impl PacketKeyer {
    /// The key of IP packet `pkt` (its transmission is counted apart: `TxCounter`).
    pub fn key(&mut self, pkt: &[u8]) -> FateKey {
        if pkt.len() < 20 || pkt[0] >> 4 != 4 {
            return OTHER;
        }
        let ihl = (pkt[0] & 0x0f) as usize * 4;
        let total = (be16(pkt, 2) as usize).min(pkt.len());
        let fragment = be16(pkt, 6) & 0x3fff != 0; // MF or a fragment offset
        if pkt[9] != 6 || fragment || ihl < 20 || total < ihl + 20 {
            return OTHER;
        }
        let t = &pkt[ihl..total];
        let doff = (t[12] >> 4) as usize * 4;
        if doff < 20 || doff > t.len() {
            return OTHER;
        }
        let payload = t.len() - doff;
        let flags = t[13];
        let (seq, ack) = (be32(t, 4), be32(t, 8));
        let n = self.flows.len() as u32;
        let id = ([pkt[12], pkt[13], pkt[14], pkt[15]], [pkt[16], pkt[17], pkt[18], pkt[19]], be16(t, 0), be16(t, 2));
        if payload == 0 && flags & SYN == 0 && !self.flows.contains_key(&id) {
            // A bare ACK, FIN or RST of a connection this direction never saw open: a
            // left-over of an earlier one (the peer outside retransmitting its FIN to a
            // namespace that reuses the address, answered by an RST). It takes no flow number,
            // or every connection after it would be numbered one off between two runs.
            return OTHER;
        }
        let f = self.flows.entry(id).or_insert(Flow { id: n, seq0: None, ack0: None });
        if flags & SYN != 0 {
            f.seq0 = Some(seq.wrapping_add(1));
        }
        if flags & ACK != 0 && f.ack0.is_none() {
            f.ack0 = Some(ack);
        }
        let (kind, num) = if payload > 0 {
            let base = *f.seq0.get_or_insert(seq);
            (KeyKind::Data, seq.wrapping_sub(base))
        } else if flags & (SYN | FIN | RST) != 0 {
            (KeyKind::Control, (flags & (SYN | FIN | RST)) as u32)
        } else if let (true, Some(base)) = (flags & ACK != 0, f.ack0) {
            (KeyKind::Ack, ack.wrapping_sub(base))
        } else {
            (KeyKind::Control, 0)
        };
        FateKey { flow: f.id, kind, num: num as u64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loss::TxCounter;

    /// An IPv4 + TCP packet (20-byte IP header, `opts` bytes of TCP options).
    fn tcp(src: u8, sport: u16, dport: u16, seq: u32, ack: u32, flags: u8, payload: usize) -> Vec<u8> {
        let opts = 12; // timestamps, as Linux sends them
        let total = 20 + 20 + opts + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[6] = 0x40; // DF, no fragment
        p[8] = 64;
        p[9] = 6;
        p[12..16].copy_from_slice(&[100, 64, 0, src]);
        p[16..20].copy_from_slice(&[100, 64, 0, 3 - src]);
        let t = &mut p[20..];
        t[0..2].copy_from_slice(&sport.to_be_bytes());
        t[2..4].copy_from_slice(&dport.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[8..12].copy_from_slice(&ack.to_be_bytes());
        t[12] = ((20 + opts) / 4 << 4) as u8;
        t[13] = flags;
        p
    }

    fn k(flow: u32, kind: KeyKind, num: u64) -> FateKey {
        FateKey { flow, kind, num }
    }

    #[test]
    fn a_connections_segments_are_keyed_from_its_initial_sequence_number() {
        // the sender's direction: SYN, the handshake's ACK, three segments, a retransmission
        let isn = 4_294_967_000u32; // close to the wrap: numbers stay relative
        let peer = 77u32;
        let mut up = PacketKeyer::default();
        let mut tx = TxCounter::default();
        let mss = 1448;
        let pkts = [
            tcp(2, 40000, 5001, isn, 0, SYN, 0),
            tcp(2, 40000, 5001, isn + 1, peer + 1, ACK, 0),
            tcp(2, 40000, 5001, isn.wrapping_add(1), peer + 1, ACK, mss),
            tcp(2, 40000, 5001, isn.wrapping_add(1 + 1448), peer + 1, ACK, mss),
            tcp(2, 40000, 5001, isn.wrapping_add(1 + 2 * 1448), peer + 1, ACK | 0x08, mss),
            tcp(2, 40000, 5001, isn.wrapping_add(1 + 1448), peer + 1, ACK, mss),
            tcp(2, 40000, 5001, isn.wrapping_add(1 + 3 * 1448), peer + 1, ACK | FIN, 0),
        ];
        let got: Vec<(FateKey, u32)> = pkts
            .iter()
            .map(|p| {
                let key = up.key(p);
                (key, tx.next(key))
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (k(0, KeyKind::Control, 2), 0),
                (k(0, KeyKind::Ack, 0), 0),
                (k(0, KeyKind::Data, 0), 0),
                (k(0, KeyKind::Data, 1448), 0),
                (k(0, KeyKind::Data, 2896), 0),
                (k(0, KeyKind::Data, 1448), 1), // the retransmission of the second segment
                (k(0, KeyKind::Control, 1), 0),
            ]
        );
    }

    #[test]
    fn acks_count_from_the_handshake_and_duplicates_count_as_transmissions() {
        // the receiver's direction: SYN-ACK, then ACKs of segments 1 and 2, twice the same
        let isn = 1000u32;
        let mut down = PacketKeyer::default();
        let mut tx = TxCounter::default();
        let mut key = |p: Vec<u8>| {
            let key = down.key(&p);
            (key, tx.next(key))
        };
        assert_eq!(key(tcp(1, 5001, 40000, 9, isn + 1, SYN | ACK, 0)), (k(0, KeyKind::Control, 2), 0));
        assert_eq!(key(tcp(1, 5001, 40000, 10, isn + 1 + 1448, ACK, 0)), (k(0, KeyKind::Ack, 1448), 0));
        assert_eq!(key(tcp(1, 5001, 40000, 10, isn + 1 + 2896, ACK, 0)), (k(0, KeyKind::Ack, 2896), 0));
        assert_eq!(key(tcp(1, 5001, 40000, 10, isn + 1 + 2896, ACK, 0)), (k(0, KeyKind::Ack, 2896), 1), "a duplicate ACK");
        // a second connection is flow 1, with its own numbers
        assert_eq!(key(tcp(1, 5002, 40001, 5, 77, SYN | ACK, 0)), (k(1, KeyKind::Control, 2), 0));
        assert_eq!(key(tcp(1, 5002, 40001, 6, 77 + 1448, ACK, 0)), (k(1, KeyKind::Ack, 1448), 0));
    }

    #[test]
    fn what_is_not_tcp_over_ipv4_is_other() {
        let mut kr = PacketKeyer::default();
        let mut udp = tcp(2, 1, 2, 0, 0, 0, 10);
        udp[9] = 17;
        assert_eq!(kr.key(&udp), OTHER);
        let mut frag = tcp(2, 1, 2, 0, 0, ACK, 10);
        frag[6] = 0x20; // more fragments
        assert_eq!(kr.key(&frag), OTHER);
        assert_eq!(kr.key(&[0x60; 40]), OTHER, "IPv6");
        assert_eq!(kr.key(&[0x45; 10]), OTHER, "too short");
        let mut bad = tcp(2, 1, 2, 0, 0, ACK, 0);
        bad[32] = 0xf0; // a TCP header longer than the packet
        assert_eq!(kr.key(&bad), OTHER);
        // a connection whose SYN was not seen counts from its first segment
        assert_eq!(kr.key(&tcp(2, 7, 8, 5000, 1, ACK, 100)), k(0, KeyKind::Data, 0));
        assert_eq!(kr.key(&tcp(2, 7, 8, 5100, 1, ACK, 100)), k(0, KeyKind::Data, 100));
    }

    #[test]
    fn a_stray_control_packet_takes_no_flow_number() {
        let mut keyer = PacketKeyer::default();
        // an RST (then a FIN) of a connection never seen open: Other, no flow
        assert_eq!(keyer.key(&tcp(1, 5001, 40000, 9, 1, RST, 0)), OTHER);
        assert_eq!(keyer.key(&tcp(1, 5001, 40000, 9, 1, FIN | ACK, 0)), OTHER);
        // the next connection is still flow 0, from its SYN; a connection first seen with
        // payload (a shell started mid-transfer) is numbered too
        assert_eq!(keyer.key(&tcp(1, 5002, 40001, 100, 0, SYN, 0)), k(0, KeyKind::Control, 2));
        assert_eq!(keyer.key(&tcp(1, 5003, 40002, 500, 7, ACK, 1448)), k(1, KeyKind::Data, 0));
        // once open, its bare ACKs and FIN keep its number
        assert_eq!(keyer.key(&tcp(1, 5002, 40001, 101, 9, ACK, 0)).flow, 0);
        assert_eq!(keyer.key(&tcp(1, 5002, 40001, 101, 9, FIN | ACK, 0)), k(0, KeyKind::Control, 1));
    }
}
