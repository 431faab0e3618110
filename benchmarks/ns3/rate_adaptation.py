"""burstlab's 802.11 rate adaptation (``link/rate.rs``: ARF, AARF; ``link/minstrel.rs``:
Minstrel) against ns-3's own ``ArfWifiManager``, ``AarfWifiManager`` and
``MinstrelWifiManager`` on one saturated 802.11b link (``--standard b``) or 802.11g link
(``--standard g``: ns-3's ``WIFI_STANDARD_80211g`` station, which lists the four DSSS rates
then the eight ERP-OFDM ones, against burstlab's ``rate_set="bg"``) at a constant SNR or
with one SNR step (issue: chosen-rate shares and MAC throughput within ±15 %).

ns-3 side: two ad hoc 802.11b nodes, ``FixedRssLossModel`` setting the received power to
−60 dBm and the PHY's noise figure chosen so that the noise floor (thermal noise over 20 MHz
with ns-3's k·290 K = −173.976 dBm/Hz, as ns-3 counts it for 802.11b, plus the noise figure)
lies the SNR below it (the SNR its receiver reports is the one asked), preamble
detection off (so the error model alone decides), ``NistErrorRateModel`` (802.11b's curves are
``DsssErrorRateModel`` under every ns-3 model), a UDP client sending 972-byte datagrams
(1000-byte IP packets) faster than the link carries them, for ``--secs`` seconds, and a queued
frame's lifetime (``WifiMacQueue::MaxDelay``) of ``--lifetime`` s: with ns-3's default 500 ms
every frame of this saturated link reaches the head of the queue nearly that old and one that
expires during its retries is dropped early; burstlab's frames keep all their attempts. Data
attempts per rate are counted at the sender's ``MonitorSnifferTx``, the MAC throughput from
what the UDP server received, both from 1 s after the client starts (ARP and the climb from
1 Mb/s done) to its stop. burstlab side: ``burstlab._core.phy_rate_measure`` with the same
controller, SNR, packet size and retry limit (7 attempts, ns-3's ``FrameRetryLimit``), and
ACKs at ns-3's rates (``--ack-rates mandatory``: an ad hoc ns-3 station counts every
mandatory rate as basic, so an 802.11b frame's ACK goes at its own rate; ``basic`` sends
it at 1 or 2 Mb/s, burstlab's default) and ns-3's rate table (``--rate-table ns3``: ns-3
3.44's 802.11b and 802.11g stations list each DSSS rate twice, and its Minstrel keeps a row
of statistics for each copy; ``distinct`` lists each rate once, burstlab's default).

``--seeds N`` runs each row N times on each side (ns-3: seed 1, RngRun 1..N; burstlab:
seed 1..N) and reports the ratio of the mean throughputs with its 95 % interval (delta
method on the log ratio, Student t on Welch's degrees of freedom) and a verdict against the
issue's ±15 %: within, outside, or inconclusive when the interval straddles a bound; the
shares of attempts as mean and standard deviation over the runs.

    PYTHONPATH=python $NS3_VENV/bin/python benchmarks/ns3/rate_adaptation.py [--snr 3,5,8] [--seeds 10] [--json | --markdown]
    PYTHONPATH=python $NS3_VENV/bin/python benchmarks/ns3/rate_adaptation.py --standard g \
        --controllers aarf,minstrel --snr 8,14,20 --step 20:8 --seeds 10
"""

from __future__ import annotations

import argparse
import json
import math
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
std::vector<double> Run(double snrDb, double secs, std::string manager, uint32_t run, double stepDb, bool g, std::vector<uint64_t> rates, double lifetime) {
    using namespace ns3;
    tx.clear();
    // ns-3's replications: one seed, independent runs (RngRun)
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(run);
    // a queued frame's lifetime (WifiMacQueue::MaxDelay, 500 ms by default): the client
    // offers more than the link carries, so every frame reaches the head of the queue nearly
    // that old, and with the default one expiring during its retries is dropped after fewer
    // attempts than FrameRetryLimit allows; a long lifetime keeps the retries
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(lifetime)));
    NodeContainer nodes;
    nodes.Create(2);
    WifiHelper wifi;
    wifi.SetStandard(g ? WIFI_STANDARD_80211g : WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager(manager);
    YansWifiChannelHelper ch;
    ch.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    // a strong signal (−60 dBm, above every detection threshold) and the noise figure that
    // puts the noise floor snrDb below it. ns-3 counts an 802.11b receiver's thermal noise
    // over 20 MHz (k·T + 73.0 dB + NF), not the 22 MHz of the spreading: with 22 MHz
    // here every SNR would be 0.41 dB higher than asked (checked: the rate shares at 2.59 dB
    // asked that way equal those at 3.0 dB asked this way)
    // ns-3's thermal noise is k·290 K·bandwidth with k = 1.3803e-23 J/K
    // (InterferenceHelper::CalculateSnr): −173.976 dBm/Hz, not −174 (which would put every
    // SNR 0.024 dB below the one asked: 1.6 points of an 11 Mb/s frame's success at 6 dB)
    double rss = -60.0;
    double floorDbm = 10.0 * std::log10(1.3803e-23 * 290.0 * 20e6 * 1000.0);
    double nf = rss - snrDb - floorDbm;
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
    if (stepDb != snrDb) Simulator::Schedule(Seconds(1.0 + secs / 2), &SetNf, devs, rss - stepDb - floorDbm);
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


def ns3_run(snr_db: float, secs: float, controller: str, seed: int, step_db: float | None = None, standard: str = "b",
            lifetime: float = 1000.0) -> dict[str, Any]:
    from ns import ns  # noqa: F401 - loads ns-3 and its headers for cppyy
    import cppyy

    if not hasattr(cppyy.gbl, "blrate"):
        cppyy.cppdef(CPP)
    manager = {"arf": "ns3::ArfWifiManager", "aarf": "ns3::AarfWifiManager", "minstrel": "ns3::MinstrelWifiManager"}[controller]
    rates = cppyy.gbl.std.vector["uint64_t"](RATES[standard])
    v = list(cppyy.gbl.blrate.Run(snr_db, secs, manager, seed, snr_db if step_db is None else step_db, standard == "g", rates, lifetime))
    return {"throughput_bps": v[0], "attempts": [int(x) for x in v[1:]]}


def burstlab_run(snr_db: float, secs: float, controller: str, seed: int, standard: str = "b", ack_rates: str = "mandatory",
                 rate_table: str = "ns3") -> dict[str, Any]:
    # as many frames as ns-3's run carries at the same SNR would take too long to know ahead:
    # a fixed count long enough for the shares (20 000 frames, 4-130 s of link time)
    snr = {"kind": "process", "mean_db": snr_db}
    return dict(_core.phy_rate_measure(controller, snr, 20_000, 1000, 7, seed, rate_set=RATE_SET[standard], ack_rates=ack_rates,
                                       rate_table=rate_table))


def burstlab_step(snr_db: float, step_db: float, secs: float, frames: int, controller: str, seed: int, standard: str = "b",
                  ack_rates: str = "mandatory", rate_table: str = "ns3") -> dict[str, Any]:
    # the step half-way through ``secs`` of link time; ``frames`` as many as ns-3 carried
    trace = {"kind": "trace", "times": [0.0, secs / 2], "db": [snr_db, step_db], "end": secs, "wrap": False}
    return dict(_core.phy_rate_measure(controller, trace, frames, 1000, 7, seed, rate_set=RATE_SET[standard], ack_rates=ack_rates,
                                       rate_table=rate_table))


def shares(att: list[int]) -> list[float]:
    n = sum(att)
    return [a / n if n else 0.0 for a in att]


#: The issue's bound on the MAC throughput ratio (burstlab ÷ ns-3): within ±15 %.
TOLERANCE = 0.15


def ratio_interval(ours: list[float], theirs: list[float]) -> tuple[float, float, float]:
    """The ratio of the two sides' mean throughputs and its 95 % interval, from independent
    runs on each side: the log of the ratio with the delta method's variance
    (s_a²/(n_a·m_a²) + s_b²/(n_b·m_b²)) and a Student t quantile on the Welch-Satterthwaite
    degrees of freedom; the interval is NaN with fewer than two runs on a side."""
    import numpy as np
    from scipy.stats import t as student_t

    a, b = np.asarray(ours, float), np.asarray(theirs, float)
    ratio = float(a.mean() / b.mean()) if b.mean() > 0 else float("nan")
    if min(a.size, b.size) < 2 or not (a.mean() > 0 and b.mean() > 0):
        return ratio, float("nan"), float("nan")
    va, vb = a.var(ddof=1) / a.size / a.mean() ** 2, b.var(ddof=1) / b.size / b.mean() ** 2
    if va + vb == 0:
        return ratio, ratio, ratio
    df = (va + vb) ** 2 / sum(v * v / (n - 1) for v, n in ((va, a.size), (vb, b.size)) if v > 0)
    half = float(student_t.ppf(0.975, df)) * math.sqrt(va + vb)
    return ratio, ratio * math.exp(-half), ratio * math.exp(half)


def verdict(lo: float, hi: float, tolerance: float = TOLERANCE) -> str:
    """``within`` when the whole interval lies in 1 ± ``tolerance``, ``outside`` when none of
    it does, ``inconclusive`` when it straddles a bound; ``n/a`` without an interval."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "n/a"
    if 1 - tolerance <= lo and hi <= 1 + tolerance:
        return "within"
    if hi < 1 - tolerance or lo > 1 + tolerance:
        return "outside"
    return "inconclusive"


def _mean_sd(rows: list[list[float]]) -> tuple[list[float], list[float]]:
    import numpy as np

    a = np.asarray(rows, float)
    return a.mean(axis=0).tolist(), (a.std(axis=0, ddof=1) if len(rows) > 1 else np.zeros(a.shape[1])).tolist()


def compare(controller: str, snr: float, step: float | None, secs: float, seeds: int, standard: str = "b", ack_rates: str = "mandatory",
            lifetime: float = 1000.0, rate_table: str = "ns3") -> dict[str, Any]:
    """One row: ``seeds`` runs on each side (ns-3 RngRun 1..seeds, burstlab seed 1..seeds)."""
    n3s, bls = [], []
    for seed in range(1, seeds + 1):
        n3 = ns3_run(snr, secs, controller, seed, step, standard, lifetime)
        if step is None:
            bl = burstlab_run(snr, secs, controller, seed, standard, ack_rates, rate_table)
        else:
            # ns-3's frames over its whole run (its throughput holds from 2 s; the first
            # second climbs from 1 Mb/s)
            bl = burstlab_step(snr, step, secs, max(1, round(n3["throughput_bps"] * secs / 8000)), controller, seed, standard, ack_rates, rate_table)
        n3s.append(n3)
        bls.append(bl)
    thr_n3 = [r["throughput_bps"] / 1e6 for r in n3s]
    thr_bl = [r["throughput_bps"] / 1e6 for r in bls]
    ratio, lo, hi = ratio_interval(thr_bl, thr_n3)
    sh_n3, sd_n3 = _mean_sd([shares(r["attempts"]) for r in n3s])
    sh_bl, sd_bl = _mean_sd([shares(r["attempts"]) for r in bls])
    return {
        "controller": controller, "snr_db": f"{snr:g}" if step is None else f"{snr:g}→{step:g}", "seeds": seeds,
        "ns3_mbps": sum(thr_n3) / seeds, "burstlab_mbps": sum(thr_bl) / seeds, "ns3_runs_mbps": thr_n3, "burstlab_runs_mbps": thr_bl,
        "throughput_ratio": ratio, "ratio_ci95": [lo, hi], "verdict": verdict(lo, hi),
        "ns3_shares": sh_n3, "ns3_shares_sd": sd_n3, "burstlab_shares": sh_bl, "burstlab_shares_sd": sd_bl,
        "max_share_difference": max(abs(a - b) for a, b in zip(sh_n3, sh_bl)),
    }


def _shares_cell(rates: list[int], mean: list[float], sd: list[float], keep: list[int]) -> str:
    return ", ".join(f"{rates[i] / 1e6:g}: {mean[i]:.3f}±{sd[i]:.3f}" for i in keep)


def markdown_row(row: dict[str, Any], rates: list[int]) -> str:
    """The row as docs/validation.md's tables show it (shares of rates carrying ≥ 1 % of the
    attempts on either side, mean ± sd over the runs)."""
    keep = [i for i in range(len(rates)) if max(row["ns3_shares"][i], row["burstlab_shares"][i]) >= 0.01]
    lo, hi = row["ratio_ci95"]
    return (f"| {row['controller']} | {row['snr_db']} dB | {row['ns3_mbps']:.3f} | {row['burstlab_mbps']:.3f} | "
            f"{row['throughput_ratio']:.3f} [{lo:.3f}, {hi:.3f}] | {row['verdict']} | "
            f"{_shares_cell(rates, row['ns3_shares'], row['ns3_shares_sd'], keep)} | "
            f"{_shares_cell(rates, row['burstlab_shares'], row['burstlab_shares_sd'], keep)} | {100 * row['max_share_difference']:.1f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--snr", default="3,5,8", help="SNRs in dB")
    ap.add_argument("--controllers", default="aarf,arf")
    ap.add_argument("--secs", type=float, default=10.0)
    ap.add_argument("--step", default="", help="SNR steps A:B (dB), each half-way through --secs")
    ap.add_argument("--standard", default="b", choices=["b", "g"],
                    help="802.11b, or 802.11g (ns-3's: the DSSS and ERP-OFDM rates; burstlab's rate_set bg)")
    ap.add_argument("--seeds", type=int, default=1, help="runs per side and row (ns-3 RngRun and burstlab seed 1..N); ≥ 2 gives intervals")
    ap.add_argument("--ack-rates", default="mandatory", choices=["mandatory", "basic"],
                    help="burstlab's ACK rates: mandatory (ns-3's ad hoc reading, the default here) or basic (1-2 Mb/s)")
    ap.add_argument("--lifetime", type=float, default=1000.0,
                    help="ns-3's WifiMacQueue MaxDelay in s (its default 0.5 drops frames during their retries on this saturated link)")
    ap.add_argument("--rate-table", default="ns3", choices=["ns3", "distinct"],
                    help="burstlab's rate table: ns3 (each DSSS rate twice, as ns-3 3.44's stations hold them; the default here) "
                         "or distinct (each rate once, burstlab's default)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="docs/validation.md's table rows")
    a = ap.parse_args(argv)
    if a.seeds < 1:
        ap.error(f"--seeds {a.seeds}: expected at least 1")
    rows = []
    runs = [(float(x), None) for x in a.snr.split(",") if x] + [(float(x.split(":")[0]), float(x.split(":")[1])) for x in a.step.split(",") if x]
    rates = RATES[a.standard]
    for c in a.controllers.split(","):
        for snr, step in runs:
            row = compare(c, snr, step, a.secs, a.seeds, a.standard, a.ack_rates, a.lifetime, a.rate_table)
            rows.append(row)
            if a.markdown:
                print(markdown_row(row, rates), flush=True)
            elif not a.json:
                fmt = lambda s: " ".join(f"{x:5.3f}" for x in s)  # noqa: E731
                lo, hi = row["ratio_ci95"]
                print(f"{c:8} {row['snr_db']:>7} dB  MAC throughput ns-3 {row['ns3_mbps']:6.3f}  burstlab {row['burstlab_mbps']:6.3f} "
                      f"ratio {row['throughput_ratio']:.3f} [{lo:.3f}, {hi:.3f}] {row['verdict']} ({a.seeds} runs a side)   "
                      f"attempt shares at {'/'.join(f'{r / 1e6:g}' for r in rates)} Mb/s: ns-3 [{fmt(row['ns3_shares'])}]  "
                      f"burstlab [{fmt(row['burstlab_shares'])}]", flush=True)
    if a.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
