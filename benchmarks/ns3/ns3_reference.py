#!/usr/bin/env python3
"""ns-3 reference runs for issue 4's and issue 11's validation and speed comparison.

One bulk TCP flow over a point-to-point link with Bernoulli loss on the data path, built with
ns-3's own Python bindings (ns-3.44, cppyy: ``from ns import ns``). Needs the optional
environment made by ``bash benchmarks/ns3/setup.sh``; run with its interpreter:

    benchmarks/ns3/.venv/bin/python benchmarks/ns3/ns3_reference.py \
        --loss 0,0.01,0.05,0.1 --seeds 1-10 --out /tmp/ns3.json

``--profile issue4`` (default) is issue 4's NewReno with the fixed settings listed below;
``--profile ns3 --cc newreno|westwood|vegas|cubic|linux-reno`` (issue 11) leaves every TCP
attribute at ns-3 3.44's default (IW 10, timestamps, limited transmit, SACK + PRR, 128 KiB
buffers, MinRto 1 s, delayed ACK 2 / 200 ms) and picks the congestion control, the counterpart
of ``burstlab sim --profile ns3 --cc ...`` (``docs/ns3-reference.md``).

Prints one JSON object per (p, seed) on stdout (JSON lines) and, with ``--out``, writes them all
with the chosen parameters to one JSON file.

The scenario (defaults are issue 4's values; every one is an option):

- two nodes, one point-to-point link, ``--rate`` 10 Mb/s, ``--delay`` 10 ms each way;
- one DropTail queue of ``--buffer`` 100 packets per device (the device queue). ns-3 installs a
  traffic-control root queue disc (FqCoDel) when addresses are assigned; it is uninstalled so the
  device's DropTail is the only queue. As in ns-3's PointToPointNetDevice, the packet being
  serialised has left the queue: up to ``buffer`` packets wait plus one on the wire;
- BulkSend on node 0 to a PacketSink on node 1; ``TcpL4Protocol::SocketType = TcpNewReno``,
  ``TcpL4Protocol::RecoveryType = TcpClassicRecovery``, ``TcpSocketBase::Sack = false``,
  ``TcpSocket::SegmentSize`` = ``--mss``, ``TcpSocket::InitialCwnd`` = ``--init-cwnd``,
  ``TcpSocket::DelAckCount`` / ``DelAckTimeout`` = ``--ack-every`` / ``--ack-timeout``,
  ``TcpSocketBase::MinRto`` = ``--rto-min``, ``RttEstimator::InitialEstimation`` =
  ``--rto-initial`` (ns-3's first RTO is that estimate plus max(granularity, 4 x 0)),
  ``TcpSocketBase::Timestamp`` = ``--timestamps`` (default off: 20-byte TCP header),
  ``TcpSocketBase::LimitedTransmit`` = ``--limited-transmit`` (default off, as plain RFC 6582
  NewReno), send and receive buffers ``--sock-buf`` bytes (default 64 MiB: the receiver window
  never limits, like burstlab's ``rwnd=None``);
- Bernoulli loss: a ``RateErrorModel`` (``ErrorUnit = ERROR_UNIT_PACKET``, ``ErrorRate = p``) as
  the *receive* error model of node 1's device. Only packets arriving at node 1 pass it, so only
  data segments (never ACKs) are lost. It is switched on when the sender's connection reaches
  ESTABLISHED, so the SYN is never lost (burstlab starts with an open connection); the sender's
  ACK of the SYN-ACK and everything after are exposed. Its random stream is fixed with
  ``AssignStreams`` so a run's losses depend on (seed, p) alone, not on earlier runs in the same
  process; ``RngSeedManager::SetRun(seed)`` selects the substream (``SetSeed(1)``).

Bytes on the wire (ns-3's accounting): each data packet carries ``mss`` payload + 20 B TCP header
(+12 B when timestamps are on) + 20 B IPv4 header + 2 B PPP header, so with the defaults a data
packet is 1042 bytes = 0.8336 ms at 10 Mb/s, and a pure ACK 42 bytes. The best goodput is
``rate * mss / 1042`` = 9.597 Mb/s.

Measured per run: goodput = PacketSink bytes received / ``--duration`` (the flow starts at t = 0;
the handshake takes one RTT of that), data segments sent by TCP (``Tx`` trace, payload > 0),
retransmissions (``Retransmission`` trace), fast retransmits (entries into CA_RECOVERY), RTO
expiries (each backoff doubles ``RTO``), packets lost on the channel (node 1's ``PhyRxDrop``),
packets dropped by the DropTail queue (with no queue disc, ns-3's traffic-control layer drops a
packet when the device queue is full: its ``TcDrop`` trace, plus the queue's own ``Drop`` and
``MacTxDrop``), and the simulation-loop rate: data segments sent per wall-second of
``Simulator::Run()`` alone (import and setup excluded).

``--ssthresh flightsize`` (diagnostic, not the reference) replaces ns-3's NewReno by a subclass
compiled here whose only change is RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 SMSS) with
FlightSize = highest sequence sent - SND.UNA, where ns-3 halves its pipe estimate BytesInFlight
(``--flightsize-discount k`` subtracts k segments from FlightSize first).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

DEFAULTS: dict[str, Any] = {
    "rate": 10e6,  # bits/s
    "delay": 0.010,  # s, one way
    "buffer": 100,  # packets, DropTail
    "mss": 1000,  # bytes of payload per segment
    "duration": 100.0,  # s
    "init_cwnd": 2,  # segments
    "ack_every": 2,  # segments (ns-3 DelAckCount)
    "ack_timeout": 0.2,  # s (ns-3 DelAckTimeout, its default)
    "rto_min": 1.0,  # s
    "rto_initial": 1.0,  # s
    "dupack_threshold": 3,
    "timestamps": False,
    "limited_transmit": False,
    "sock_buf": 64 * 1024 * 1024,  # bytes
    "ssthresh": "pipe",  # ns-3's own rule; "flightsize" = RFC 5681 eq. (4) (diagnostic)
    "flightsize_discount": 0,  # segments; with "flightsize": ssthresh = (FlightSize - k)/2
    "cc": "newreno",  # congestion control, burstlab's name (NS3_CC)
    "recovery": "classic",  # TcpClassicRecovery or TcpPrrRecovery
    "sack": False,
}

#: burstlab congestion-control names -> ns-3 3.44 TcpCongestionOps types.
NS3_CC = {"reno": "TcpNewReno", "newreno": "TcpNewReno", "westwood": "TcpWestwoodPlus", "vegas": "TcpVegas",
          "cubic": "TcpCubic", "linux-reno": "TcpLinuxReno", "bbr": "TcpBbr"}
NS3_RECOVERY = {"classic": "TcpClassicRecovery", "prr": "TcpPrrRecovery"}

#: ``--profile ns3`` (issue 11): ns-3 3.44's own defaults for every TCP setting but the segment
#: size and the congestion control (None = leave ns-3's attribute alone): IW 10, timestamps,
#: limited transmit, SACK with PRR recovery, 128 KiB socket buffers, MinRto 1 s, initial RTT
#: estimate 1 s, delayed ACK 2 segments / 200 ms, ReTxThreshold 3, ClockGranularity 1 ms.
NS3_DEFAULTS_PROFILE: dict[str, Any] = {
    "init_cwnd": None, "ack_every": None, "ack_timeout": None, "rto_min": None, "rto_initial": None,
    "dupack_threshold": None, "timestamps": None, "limited_transmit": None, "sock_buf": None,
    "recovery": None, "sack": None,
}
#: What ns-3 3.44 uses where NS3_DEFAULTS_PROFILE leaves its defaults (for header sizes and reports).
NS3_ATTRIBUTE_DEFAULTS: dict[str, Any] = {
    "init_cwnd": 10, "ack_every": 2, "ack_timeout": 0.2, "rto_min": 1.0, "rto_initial": 1.0,
    "dupack_threshold": 3, "timestamps": True, "limited_transmit": True, "sock_buf": 131072,
    "recovery": "prr", "sack": True,
}


def effective(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with every None (ns-3's default) replaced by ns-3 3.44's value."""
    return {k: (NS3_ATTRIBUTE_DEFAULTS[k] if v is None and k in NS3_ATTRIBUTE_DEFAULTS else v)
            for k, v in params.items()}

# Bytes ns-3 puts around each segment on this topology (see the module docstring).
PPP_HEADER = 2
IPV4_HEADER = 20
TCP_HEADER = 20
TCP_TIMESTAMP_OPTION = 12  # 10-byte option padded to a 4-byte boundary


def header_bytes(timestamps: bool) -> int:
    """Bytes ns-3 adds to each data segment's payload on a point-to-point link."""
    return PPP_HEADER + IPV4_HEADER + TCP_HEADER + (TCP_TIMESTAMP_OPTION if timestamps else 0)


_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/applications-module.h"
#include "ns3/traffic-control-module.h"

namespace burstlab_ns3 {
using namespace ns3;

struct Counters {
    uint64_t data_tx = 0;         // data segments handed down by TCP ("Tx", payload > 0)
    uint64_t retx = 0;            // "Retransmission" trace of the sending socket
    uint64_t fast_retx = 0;       // entries into CA_RECOVERY ("CongState")
    uint64_t rto_backoffs = 0;    // RTO doublings = retransmission-timer expiries ("RTO")
    uint64_t channel_drops = 0;   // error-model drops at node 1 ("PhyRxDrop")
    uint64_t queue_drops = 0;     // DropTail drops on node 0 (device queue, MacTxDrop, TcDrop)
    uint64_t established_ns = 0;  // when the sender reached ESTABLISHED
};
// Diagnostic variant (--ssthresh flightsize): NewReno whose ssthresh is RFC 5681 eq. (4),
// max(FlightSize / 2, 2 SMSS) with FlightSize = highest sequence sent - SND.UNA, instead of
// ns-3's max(BytesInFlight / 2, 2 SMSS) where BytesInFlight is its pipe estimate (which, without
// SACK, subtracts the duplicate-ACKed and the presumed-lost segments).
class TcpNewRenoFlightSize : public TcpNewReno {
  public:
    static TypeId GetTypeId() {
        static TypeId tid = TypeId("ns3::TcpNewRenoFlightSize")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpNewRenoFlightSize>();
        return tid;
    }
    TcpNewRenoFlightSize() = default;
    TcpNewRenoFlightSize(const TcpNewRenoFlightSize& o) : TcpNewReno(o) {}
    std::string GetName() const override { return "TcpNewRenoFlightSize"; }
    static uint32_t s_discount;  // segments subtracted from FlightSize (--flightsize-discount)
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override {
        int32_t flight = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        flight -= int32_t(s_discount * tcb->m_segmentSize);
        uint32_t half = flight > 0 ? uint32_t(flight) / 2 : 0;
        return std::max(2 * tcb->m_segmentSize, half);
    }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpNewRenoFlightSize>(this); }
};
uint32_t TcpNewRenoFlightSize::s_discount = 0;
TypeId FlightSizeTypeId(uint32_t discount) {
    TcpNewRenoFlightSize::s_discount = discount;
    return TcpNewRenoFlightSize::GetTypeId();
}

static Counters g;
static Ptr<ErrorModel> g_em;
static bool g_trace = false;  // --trace: print TCP events to stderr

uint64_t DataTx() { return g.data_tx; }
uint64_t Retx() { return g.retx; }
uint64_t FastRetx() { return g.fast_retx; }
uint64_t RtoBackoffs() { return g.rto_backoffs; }
uint64_t ChannelDrops() { return g.channel_drops; }
uint64_t QueueDrops() { return g.queue_drops; }
uint64_t EstablishedNs() { return g.established_ns; }

static double Now() { return Simulator::Now().GetSeconds(); }

static void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    // Count segments that carry payload (whether or not the traced packet holds the header).
    if (p->GetSize() > h.GetSerializedSize()) {
        g.data_tx++;
        if (g_trace) fprintf(stderr, "%.6f tx %u\n", Now(), h.GetSequenceNumber().GetValue());
    }
}
// --trace: each segment the sender receives (ACKs): ACK number and SACK blocks.
static void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
    if (!g_trace) return;
    fprintf(stderr, "%.6f ack %u", Now(), h.GetAckNumber().GetValue());
    Ptr<const TcpOption> o = h.GetOption(TcpOption::SACK);
    if (o) {
        Ptr<const TcpOptionSack> sk = DynamicCast<const TcpOptionSack>(o);
        for (const auto& b : sk->GetSackList()) fprintf(stderr, " %u-%u", b.first.GetValue(), b.second.GetValue());
    }
    fprintf(stderr, "\n");
}
static void OnRetx(Ptr<const Packet>, const TcpHeader& h, const Address&, const Address&,
                   Ptr<const TcpSocketBase>) {
    g.retx++;
    if (g_trace) fprintf(stderr, "%.6f retx %u\n", Now(), h.GetSequenceNumber().GetValue());
}
static void OnCongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY) g.fast_retx++;
    if (g_trace) fprintf(stderr, "%.6f cong %d -> %d\n", Now(), (int)from, (int)to);
}
static void OnRto(Time from, Time to) {
    // TcpSocketBase::ReTxTimeout sets RTO = min(2 RTO, 60 s); an RTT sample recomputes it as
    // max(MinRto, srtt + max(G, 4 rttvar)), which is not exactly twice the old value.
    if (from.GetTimeStep() > 0 && to.GetTimeStep() == 2 * from.GetTimeStep()) g.rto_backoffs++;
    if (g_trace) fprintf(stderr, "%.6f rto %.6f -> %.6f\n", Now(), from.GetSeconds(), to.GetSeconds());
}
static void OnState(TcpSocket::TcpStates_t, TcpSocket::TcpStates_t to) {
    if (to == TcpSocket::ESTABLISHED && g.established_ns == 0) {
        g.established_ns = Simulator::Now().GetNanoSeconds();
        if (g_em) g_em->Enable();  // losses start once the connection is open
    }
}
static void OnCwnd(uint32_t, uint32_t to) {
    if (g_trace) fprintf(stderr, "%.6f cwnd %u\n", Now(), to);
}
static void OnSsThresh(uint32_t, uint32_t to) {
    if (g_trace) fprintf(stderr, "%.6f ssthresh %u\n", Now(), to);
}
static void OnInFlight(uint32_t, uint32_t to) {
    if (g_trace) fprintf(stderr, "%.6f inflight %u\n", Now(), to);
}
static void OnBw(DataRate, DataRate to) {
    if (g_trace) fprintf(stderr, "%.6f bwe %.0f\n", Now(), (double)to.GetBitRate());
}
static void OnSrtt(Time, Time to) {
    if (g_trace) fprintf(stderr, "%.6f srtt %.6f\n", Now(), to.GetSeconds());
}
static void OnChannelDrop(Ptr<const Packet> p) {
    g.channel_drops++;
    if (g_trace) fprintf(stderr, "%.6f channel-drop %u\n", Now(), p->GetSize());
}
// --trace: each packet node 1's error model let through, with its size (PPP frame), so the
// order of losses among data packets can be replayed elsewhere.
static void OnPhyRxEnd(Ptr<const Packet> p) {
    if (g_trace) fprintf(stderr, "%.6f phy-rx %u\n", Now(), p->GetSize());
}
static void OnQueueDrop(Ptr<const Packet>) {
    g.queue_drops++;
    if (g_trace) fprintf(stderr, "%.6f queue-drop\n", Now());
}

static void HookSocket(Ptr<BulkSendApplication> app) {
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!s, "BulkSend has no TcpSocketBase yet");
    bool ok = s->TraceConnectWithoutContext("Tx", MakeCallback(&OnTx));
    ok &= s->TraceConnectWithoutContext("Retransmission", MakeCallback(&OnRetx));
    if (g_trace) ok &= s->TraceConnectWithoutContext("Rx", MakeCallback(&OnRx));
    ok &= s->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    ok &= s->TraceConnectWithoutContext("RTO", MakeCallback(&OnRto));
    ok &= s->TraceConnectWithoutContext("State", MakeCallback(&OnState));
    ok &= s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    if (g_trace) {
        ok &= s->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&OnSsThresh));
        ok &= s->TraceConnectWithoutContext("BytesInFlight", MakeCallback(&OnInFlight));
        ok &= s->TraceConnectWithoutContext("RTT", MakeCallback(&OnSrtt));
        PointerValue ops;
        s->GetAttribute("CongestionOps", ops);
        if (ops.GetObject()) ops.GetObject()->TraceConnectWithoutContext("EstimatedBW", MakeCallback(&OnBw));
    }
    NS_ABORT_MSG_IF(!ok, "could not connect a TcpSocketBase trace source");
}

// Called before Simulator::Run(): connects the device traces now and the socket's at `hook_at`
// (BulkSend creates its socket at t = 0; at hook_at < one-way delay the SYN is still in flight).
// Without a queue disc, ns-3's traffic-control layer drops a packet when the device queue is
// stopped (full): those "TcDrop" drops are the DropTail drops, the device's own traces are kept
// for completeness.
void Install(Ptr<NetDevice> tx_dev, Ptr<NetDevice> rx_dev, Ptr<ErrorModel> em,
             Ptr<Application> app, double hook_at, bool trace) {
    g = Counters();
    g_trace = trace;
    g_em = em;
    em->Disable();
    bool ok = rx_dev->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnChannelDrop));
    if (trace) ok &= rx_dev->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&OnPhyRxEnd));
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(tx_dev);
    ok &= p2p->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnQueueDrop));
    ok &= tx_dev->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&OnQueueDrop));
    ok &= tx_dev->GetNode()->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop", MakeCallback(&OnQueueDrop));
    NS_ABORT_MSG_IF(!ok, "could not connect a device or traffic-control trace source");
    Simulator::Schedule(Seconds(hook_at), &HookSocket, DynamicCast<BulkSendApplication>(app));
}
}  // namespace burstlab_ns3
"""

_ns = None


def _load_ns() -> Any:
    """Import ns-3 (10-20 s: cppyy parses the headers) and compile the trace hooks once."""
    global _ns
    if _ns is None:
        from ns import ns  # type: ignore[import-not-found]

        ns.cppyy.cppdef(_CPP)
        _ns = ns
    return _ns


def _fmt_rate(bps: float) -> str:
    return f"{int(round(bps))}bps"


def run_one(p: float, seed: int, params: dict[str, Any], trace: bool = False) -> dict[str, Any]:
    """One ns-3 run; returns goodput, counters and the simulation-loop rate."""
    ns = _load_ns()
    hook = ns.cppyy.gbl.burstlab_ns3
    prm = {**DEFAULTS, **params}
    if prm["recovery"] is not None and prm["recovery"] not in NS3_RECOVERY:
        raise ValueError(f"invalid parameter recovery = {prm['recovery']!r}: expected classic or prr")
    if prm["ssthresh"] not in ("pipe", "flightsize"):
        raise ValueError(f"invalid parameter ssthresh = {prm['ssthresh']!r}: expected pipe or flightsize")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"invalid parameter p = {p!r}: expected a probability in [0, 1]")

    ns.Config.Reset()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(seed))
    def sd(name: str, key: str, make: Any) -> None:
        if prm[key] is not None:
            ns.Config.SetDefault(name, make(prm[key]))

    if prm["ssthresh"] == "flightsize":
        if NS3_CC.get(prm["cc"]) != "TcpNewReno":
            raise ValueError("--ssthresh flightsize is a NewReno diagnostic (--cc newreno)")
        cc = ns.cppyy.gbl.burstlab_ns3.FlightSizeTypeId(int(prm["flightsize_discount"]))
    elif prm["cc"] in NS3_CC:
        cc = getattr(ns, NS3_CC[prm["cc"]]).GetTypeId()
    else:
        raise ValueError(f"invalid parameter cc = {prm['cc']!r}: expected one of {', '.join(NS3_CC)}")
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(cc))
    sd("ns3::TcpL4Protocol::RecoveryType", "recovery", lambda v: ns.TypeIdValue(getattr(ns, NS3_RECOVERY[v]).GetTypeId()))
    sd("ns3::TcpSocketBase::Sack", "sack", lambda v: ns.BooleanValue(bool(v)))
    sd("ns3::TcpSocketBase::Timestamp", "timestamps", lambda v: ns.BooleanValue(bool(v)))
    sd("ns3::TcpSocketBase::LimitedTransmit", "limited_transmit", lambda v: ns.BooleanValue(bool(v)))
    sd("ns3::TcpSocketBase::MinRto", "rto_min", lambda v: ns.TimeValue(ns.Seconds(float(v))))
    sd("ns3::TcpSocketBase::ReTxThreshold", "dupack_threshold", lambda v: ns.UintegerValue(int(v)))
    sd("ns3::RttEstimator::InitialEstimation", "rto_initial", lambda v: ns.TimeValue(ns.Seconds(float(v))))
    sd("ns3::TcpSocket::SegmentSize", "mss", lambda v: ns.UintegerValue(int(v)))
    sd("ns3::TcpSocket::InitialCwnd", "init_cwnd", lambda v: ns.UintegerValue(int(v)))
    sd("ns3::TcpSocket::DelAckCount", "ack_every", lambda v: ns.UintegerValue(int(v)))
    sd("ns3::TcpSocket::DelAckTimeout", "ack_timeout", lambda v: ns.TimeValue(ns.Seconds(float(v))))
    sd("ns3::TcpSocket::SndBufSize", "sock_buf", lambda v: ns.UintegerValue(int(v)))
    sd("ns3::TcpSocket::RcvBufSize", "sock_buf", lambda v: ns.UintegerValue(int(v)))

    nodes = ns.NodeContainer()
    nodes.Create(2)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(_fmt_rate(prm["rate"]))))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(float(prm["delay"]))))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue(f"{int(prm['buffer'])}p"))
    devices = p2p.Install(nodes)

    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces = addr.Assign(devices)
    # Assign() installs a default root queue disc; remove it so the device's DropTail queue is
    # the only queue on the path.
    ns.TrafficControlHelper().Uninstall(devices)

    em = ns.CreateObject[ns.RateErrorModel]()
    em.SetAttribute("ErrorRate", ns.DoubleValue(float(p)))
    em.SetAttribute("ErrorUnit", ns.EnumValue[ns.RateErrorModel.ErrorUnit](
        ns.RateErrorModel.ERROR_UNIT_PACKET))
    em.AssignStreams(0)
    devices.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))

    port = 50000
    sink_helper = ns.PacketSinkHelper(
        "ns3::TcpSocketFactory",
        ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_apps = sink_helper.Install(nodes.Get(1))
    sink_apps.Start(ns.Seconds(0.0))
    bulk = ns.BulkSendHelper(
        "ns3::TcpSocketFactory", ns.InetSocketAddress(ifaces.GetAddress(1), port).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bulk.SetAttribute("SendSize", ns.UintegerValue(int(prm["mss"])))
    bulk_apps = bulk.Install(nodes.Get(0))
    bulk_apps.Start(ns.Seconds(0.0))

    hook.Install(devices.Get(0), devices.Get(1), em, bulk_apps.Get(0),
                 float(prm["delay"]) / 2.0, bool(trace))

    ns.Simulator.Stop(ns.Seconds(float(prm["duration"])))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0

    sink = sink_apps.Get(0).GetObject[ns.PacketSink]()
    rx_bytes = int(sink.GetTotalRx())
    out = {
        "p": float(p),
        "seed": int(seed),
        "goodput_bps": rx_bytes * 8.0 / float(prm["duration"]),
        "goodput_pps": rx_bytes / float(prm["mss"]) / float(prm["duration"]),
        "rx_bytes": rx_bytes,
        "packets_sent": int(hook.DataTx()),
        "retransmissions": int(hook.Retx()),
        "fast_retransmits": int(hook.FastRetx()),
        "timeouts": int(hook.RtoBackoffs()),
        "channel_drops": int(hook.ChannelDrops()),
        "queue_drops": int(hook.QueueDrops()),
        "established_at": int(hook.EstablishedNs()) * 1e-9,
        "run_wall_s": wall,
        "packets_per_wall_s": int(hook.DataTx()) / wall if wall > 0 else float("nan"),
    }
    ns.Simulator.Destroy()
    return out


def _parse_list(text: str, conv: Any) -> list[Any]:
    return [conv(x) for x in text.split(",") if x.strip()]


def _parse_seeds(text: str) -> list[int]:
    seeds: list[int] = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            seeds.extend(range(int(a), int(b) + 1))
        elif part.strip():
            seeds.append(int(part))
    return seeds


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected a boolean (on/off), got {text!r}")


def build_parser() -> argparse.ArgumentParser:
    """Every scenario option defaults to None: the value comes from --profile (issue 4's
    fixed settings, or ns-3's own defaults) unless given."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--loss", default="0,0.01,0.05,0.1",
                    help="comma-separated Bernoulli loss probabilities (default 0,0.01,0.05,0.1)")
    ap.add_argument("--seeds", default="1-10", help="seeds, e.g. 1-10 or 1,2,5 (default 1-10)")
    ap.add_argument("--profile", choices=("issue4", "ns3"), default="issue4",
                    help="issue4: the fixed settings below (NewReno, classic recovery, no SACK, IW 2, "
                    "no timestamps, no limited transmit, 64 MiB buffers; default); ns3: ns-3 3.44's own "
                    "defaults for every TCP setting not given (IW 10, timestamps, limited transmit, SACK "
                    "+ PRR, 128 KiB buffers)")
    ap.add_argument("--cc", choices=sorted(NS3_CC), default=None,
                    help="congestion control, burstlab's name: " + ", ".join(f"{k}={v}" for k, v in NS3_CC.items()))
    ap.add_argument("--recovery", choices=sorted(NS3_RECOVERY), default=None, help="classic or prr")
    ap.add_argument("--sack", type=_bool, default=None, help="SACK option on/off")
    ap.add_argument("--rate", type=float, default=None, help="link rate, bits/s (10e6)")
    ap.add_argument("--delay", type=float, default=None, help="one-way delay, s (0.01)")
    ap.add_argument("--buffer", type=int, default=None, help="DropTail, packets (100)")
    ap.add_argument("--mss", type=int, default=None, help="segment payload, bytes (1000)")
    ap.add_argument("--duration", type=float, default=None, help="seconds (100)")
    ap.add_argument("--init-cwnd", type=int, default=None, help="segments")
    ap.add_argument("--ack-every", type=int, default=None, help="delayed ACK count (1 = no delayed ACK)")
    ap.add_argument("--ack-timeout", type=float, default=None, help="delayed ACK timeout, s")
    ap.add_argument("--rto-min", type=float, default=None, help="seconds")
    ap.add_argument("--rto-initial", type=float, default=None, help="initial RTT estimate = first RTO, s")
    ap.add_argument("--dupack-threshold", type=int, default=None)
    ap.add_argument("--timestamps", type=_bool, default=None,
                    help="TCP timestamps option (adds 12 bytes per segment)")
    ap.add_argument("--limited-transmit", type=_bool, default=None, help="RFC 3042 limited transmit")
    ap.add_argument("--sock-buf", type=int, default=None,
                    help="TCP send/receive buffer, bytes (large = no receiver-window limit)")
    ap.add_argument("--ssthresh", choices=("pipe", "flightsize"), default=None,
                    help="pipe: ns-3's NewReno (ssthresh = BytesInFlight / 2, default); "
                    "flightsize: a diagnostic NewReno subclass with RFC 5681 eq. (4), "
                    "ssthresh = (highest sent - SND.UNA) / 2")
    ap.add_argument("--flightsize-discount", type=int, default=None,
                    help="with --ssthresh flightsize: ssthresh = max(2 SMSS, (FlightSize - k "
                    "SMSS) / 2); k = 1 reproduces ns-3's own rule in this scenario")
    ap.add_argument("--trace", action="store_true",
                    help="print TCP events to stderr, one per line, time first: cwnd, ssthresh, "
                    "inflight, congestion state, RTO, srtt, every data segment sent (tx SEQ) and "
                    "retransmitted, every ACK the sender receives (ack N and its SACK blocks), "
                    "and every packet node 1 receives or its error model drops (phy-rx / "
                    "channel-drop with the frame size), from which the order of losses among data "
                    "packets can be replayed elsewhere")
    ap.add_argument("--out", type=Path, default=None, help="write all results to this JSON file")
    return ap


def params_from_args(args: argparse.Namespace) -> dict[str, Any]:
    base = {**DEFAULTS, **(NS3_DEFAULTS_PROFILE if args.profile == "ns3" else {})}
    return {k: (getattr(args, k) if getattr(args, k, None) is not None else v) for k, v in base.items()}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    params = params_from_args(args)
    losses = _parse_list(args.loss, float)
    seeds = _parse_seeds(args.seeds)
    for p in losses:
        if not 0.0 <= p <= 1.0:
            print(f"error: --loss: {p} is not a probability in [0, 1]", file=sys.stderr)
            return 2
    if params["delay"] <= 0:
        print("error: --delay must be > 0", file=sys.stderr)
        return 2
    t_import = time.perf_counter()
    _load_ns()
    import_s = time.perf_counter() - t_import
    print(f"# ns-3 import and hook compilation: {import_s:.1f} s", file=sys.stderr)
    runs = []
    for p in losses:
        for seed in seeds:
            r = run_one(p, seed, params, trace=args.trace)
            runs.append(r)
            print(json.dumps(r), flush=True)
    doc = {
        "simulator": "ns-3",
        "ns3_version": _ns3_version(),
        "python": platform.python_version(),
        "host": platform.node(),
        "import_s": import_s,
        "params": params,
        "profile": args.profile,
        "effective_params": effective(params),
        "header_bytes": header_bytes(bool(effective(params)["timestamps"])),
        "runs": runs,
    }
    if args.out is not None:
        tmp = args.out.with_name(args.out.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        os.replace(tmp, args.out)
    return 0


def _ns3_version() -> str:
    try:
        from importlib.metadata import version

        return version("ns3")
    except Exception:  # noqa: BLE001 - informative only
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
