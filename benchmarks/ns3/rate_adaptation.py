"""burstlab's 802.11 rate adaptation (``link/rate.rs``: ARF, AARF; ``link/minstrel.rs``:
Minstrel) against ns-3's own ``ArfWifiManager``, ``AarfWifiManager`` and
``MinstrelWifiManager`` on one saturated 802.11b link (``--standard b``) or 802.11g link
(``--standard g``: ns-3's ``WIFI_STANDARD_80211g`` station, which lists the four DSSS rates
then the eight ERP-OFDM ones, against burstlab's ``rate_set="bg"``) at a constant SNR or
with one SNR step (issue: chosen-rate shares and MAC throughput within ±15 %).

ns-3 side: two ad hoc 802.11b nodes, ``FixedRssLossModel`` setting the received power to
−60 dBm and the PHY's noise figure chosen so that the noise floor (thermal −174 dBm/Hz over
20 MHz, as ns-3 counts it for 802.11b, plus the noise figure) lies the SNR below it, preamble detection off (so the error
model alone decides),
``NistErrorRateModel`` (802.11b's curves are ``DsssErrorRateModel`` under every ns-3 model),
a UDP client sending 972-byte datagrams (1000-byte IP packets) faster than the link carries
them, for ``--secs`` seconds. Data attempts per rate are counted at the sender's
``MonitorSnifferTx``, the MAC throughput from what the UDP server received, both from 1 s
after the client starts (ARP and the climb from 1 Mb/s done) to its stop. burstlab side:
``burstlab._core.phy_rate_measure`` with the same controller, SNR and packet size.

    PYTHONPATH=python benchmarks/ns3/.venv/bin/python benchmarks/ns3/rate_adaptation.py [--snr 3,5,8] [--json]
    PYTHONPATH=python benchmarks/ns3/.venv/bin/python benchmarks/ns3/rate_adaptation.py --standard g \
        --controllers aarf,minstrel --snr 8,14,20 --step 20:8
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from burstlab import _core

CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/wifi-module.h"
#include "ns3/applications-module.h"
#include <map>
#include <vector>
namespace blrate {
std::map<uint64_t, uint64_t> tx;
std::map<uint64_t, uint64_t> tx0;
uint64_t rx0 = 0, rx1 = 0;
void Snap(ns3::Ptr<ns3::UdpServer> s, int which) {
    if (which == 0) { rx0 = s->GetReceived(); tx0 = tx; } else { rx1 = s->GetReceived(); }
}
void OnTx(std::string, ns3::Ptr<const ns3::Packet> p, uint16_t, ns3::WifiTxVector tv, ns3::MpduInfo, uint16_t) {
    if (p->GetSize() > 500) tx[tv.GetMode().GetDataRate(20)]++;   // data frames, not ACKs or ARP
}
void SetNf(ns3::NetDeviceContainer devs, double nf) {
    for (uint32_t i = 0; i < devs.GetN(); i++)
        ns3::DynamicCast<ns3::WifiNetDevice>(devs.Get(i))->GetPhy()->SetAttribute("RxNoiseFigure", ns3::DoubleValue(nf));
}
std::vector<double> Run(double snrDb, double secs, std::string manager, uint32_t seed, double stepDb, bool g, std::vector<uint64_t> rates) {
    using namespace ns3;
    tx.clear();
    RngSeedManager::SetSeed(seed);
    NodeContainer nodes;
    nodes.Create(2);
    WifiHelper wifi;
    wifi.SetStandard(g ? WIFI_STANDARD_80211g : WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager(manager);
    YansWifiChannelHelper ch;
    ch.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    // a strong signal (−60 dBm, above every detection threshold) and the noise figure that
    // puts the noise floor snrDb below it. ns-3 counts an 802.11b receiver's thermal noise
    // over 20 MHz (−174 dBm/Hz + 73.0 dB + NF), not the 22 MHz of the spreading: with 22 MHz
    // here every SNR would be 0.41 dB higher than asked (checked: the rate shares at 2.59 dB
    // asked that way equal those at 3.0 dB asked this way)
    double rss = -60.0;
    double nf = rss - snrDb + 174.0 - 10.0 * std::log10(20e6);
    ch.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", DoubleValue(rss));
    YansWifiPhyHelper phy;
    phy.SetChannel(ch.Create());
    phy.Set("RxNoiseFigure", DoubleValue(nf));
    phy.DisablePreambleDetectionModel();  // frames are decided by the error model alone
    phy.SetErrorRateModel("ns3::NistErrorRateModel");
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devs = wifi.Install(phy, mac, nodes);
    MobilityHelper mob;
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    pos->Add(Vector(0, 0, 0));
    pos->Add(Vector(5, 0, 0));
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(nodes);
    InternetStackHelper st;
    st.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifs = addr.Assign(devs);
    UdpServerHelper server(9);
    ApplicationContainer sapp = server.Install(nodes.Get(1));
    sapp.Start(Seconds(0.0));
    UdpClientHelper client(ifs.GetAddress(1), 9);
    client.SetAttribute("MaxPackets", UintegerValue(4294967295u));
    client.SetAttribute("Interval", TimeValue(MicroSeconds(200)));
    client.SetAttribute("PacketSize", UintegerValue(972));
    ApplicationContainer capp = client.Install(nodes.Get(0));
    capp.Start(Seconds(1.0));
    capp.Stop(Seconds(1.0 + secs));
    Config::Connect("/NodeList/0/DeviceList/*/$ns3::WifiNetDevice/Phy/MonitorSnifferTx", MakeCallback(&OnTx));
    // measured from 1 s after the client starts (ARP and the climb from 1 Mb/s done) to
    // its stop (not the queue's drain after it)
    Ptr<UdpServer> srv = DynamicCast<UdpServer>(sapp.Get(0));
    Simulator::Schedule(Seconds(2.0), &Snap, srv, 0);
    // an SNR step half-way through the client's run (stepDb: the SNR after it)
    if (stepDb != snrDb) Simulator::Schedule(Seconds(1.0 + secs / 2), &SetNf, devs, rss - stepDb + 174.0 - 10.0 * std::log10(20e6));
    Simulator::Schedule(Seconds(1.0 + secs), &Snap, srv, 1);
    Simulator::Stop(Seconds(1.0 + secs));
    Simulator::Run();
    Simulator::Destroy();
    std::vector<double> out;
    out.push_back((rx1 - rx0) * 1000.0 * 8.0 / (secs - 1.0));
    for (uint64_t r : rates) out.push_back((double)(tx[r] - tx0[r]));
    return out;
}
}
"""


#: ns-3's ``WIFI_STANDARD_80211b`` and ``_80211g`` rates, in the order its station lists them
#: (802.11g: the DSSS rates, then ERP-OFDM), and burstlab's rate set for each.
RATES = {"b": [1_000_000, 2_000_000, 5_500_000, 11_000_000]}
RATES["g"] = RATES["b"] + [r * 1_000_000 for r in (6, 9, 12, 18, 24, 36, 48, 54)]
RATE_SET = {"b": "b", "g": "bg"}


def ns3_run(snr_db: float, secs: float, controller: str, seed: int, step_db: float | None = None, standard: str = "b") -> dict[str, Any]:
    from ns import ns  # noqa: F401 - loads ns-3 and its headers for cppyy
    import cppyy

    if not hasattr(cppyy.gbl, "blrate"):
        cppyy.cppdef(CPP)
    manager = {"arf": "ns3::ArfWifiManager", "aarf": "ns3::AarfWifiManager", "minstrel": "ns3::MinstrelWifiManager"}[controller]
    rates = cppyy.gbl.std.vector["uint64_t"](RATES[standard])
    v = list(cppyy.gbl.blrate.Run(snr_db, secs, manager, seed, snr_db if step_db is None else step_db, standard == "g", rates))
    return {"throughput_bps": v[0], "attempts": [int(x) for x in v[1:]]}


def burstlab_run(snr_db: float, secs: float, controller: str, seed: int, standard: str = "b") -> dict[str, Any]:
    # as many frames as ns-3's run carries at the same SNR would take too long to know ahead:
    # a fixed count long enough for the shares (20 000 frames, 4-130 s of link time)
    snr = {"kind": "process", "mean_db": snr_db}
    return dict(_core.phy_rate_measure(controller, snr, 20_000, 1000, 7, seed, rate_set=RATE_SET[standard]))


def burstlab_step(snr_db: float, step_db: float, secs: float, frames: int, controller: str, seed: int, standard: str = "b") -> dict[str, Any]:
    # the step half-way through ``secs`` of link time; ``frames`` as many as ns-3 carried
    trace = {"kind": "trace", "times": [0.0, secs / 2], "db": [snr_db, step_db], "end": secs, "wrap": False}
    return dict(_core.phy_rate_measure(controller, trace, frames, 1000, 7, seed, rate_set=RATE_SET[standard]))


def shares(att: list[int]) -> list[float]:
    n = sum(att)
    return [a / n if n else 0.0 for a in att]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--snr", default="3,5,8", help="SNRs in dB")
    ap.add_argument("--controllers", default="aarf,arf")
    ap.add_argument("--secs", type=float, default=10.0)
    ap.add_argument("--step", default="", help="SNR steps A:B (dB), each half-way through --secs")
    ap.add_argument("--standard", default="b", choices=["b", "g"],
                    help="802.11b, or 802.11g (ns-3's: the DSSS and ERP-OFDM rates; burstlab's rate_set bg)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows = []
    runs = [(float(x), None) for x in a.snr.split(",") if x] + [(float(x.split(":")[0]), float(x.split(":")[1])) for x in a.step.split(",") if x]
    for c in a.controllers.split(","):
        for snr, step in runs:
            n3 = ns3_run(snr, a.secs, c, 1, step, a.standard)
            if step is None:
                bl = burstlab_run(snr, a.secs, c, 1, a.standard)
            else:
                # ns-3's frames over its whole run (its throughput holds from 2 s; the first
                # second climbs from 1 Mb/s)
                bl = burstlab_step(snr, step, a.secs, max(1, round(n3["throughput_bps"] * a.secs / 8000)), c, 1, a.standard)
            label = f"{snr:g}" if step is None else f"{snr:g}→{step:g}"
            row = {"controller": c, "snr_db": label, "ns3_mbps": n3["throughput_bps"] / 1e6, "burstlab_mbps": bl["throughput_bps"] / 1e6,
                   "ns3_shares": shares(n3["attempts"]), "burstlab_shares": shares(bl["attempts"])}
            row["throughput_ratio"] = row["burstlab_mbps"] / row["ns3_mbps"] if row["ns3_mbps"] else float("nan")
            rows.append(row)
            if not a.json:
                fmt = lambda s: " ".join(f"{x:5.3f}" for x in s)  # noqa: E731
                print(f"{c:5} {label:>7} dB  MAC throughput ns-3 {row['ns3_mbps']:6.3f}  burstlab {row['burstlab_mbps']:6.3f} "
                      f"({row['throughput_ratio']:.3f})   attempt shares at {'/'.join(f'{r / 1e6:g}' for r in RATES[a.standard])} Mb/s: ns-3 [{fmt(row['ns3_shares'])}]  "
                      f"burstlab [{fmt(row['burstlab_shares'])}]", flush=True)
    if a.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
