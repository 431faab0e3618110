"""Topologies as presets, built from the same pieces as any :class:`~burstlab.sim.Network`.

- :func:`single`: the single-link scenario (one hop, one flow), identical in results to
  :class:`~burstlab.sim.Scenario`.
- :func:`chain`: N hops in series, flows end to end (Subramanian et al.'s 1- and 4-hop chains).
- :func:`dumbbell`: N flows, each with its own access hop and delay, sharing one bottleneck
  (Martignon & Capone Figs. 2-3: 10 flows on a 2 or 10 Mb/s bottleneck).
- :func:`wired_wireless`: source — wired hop — base station — wireless hop — destination
  (Martignon & Capone Fig. 10).
- :func:`satellite_wifi`: a geostationary satellite link in series with a Wi-Fi hop
  (Barsocchi et al. §II: 2 Mb/s, 300 ms, 150 kB buffer, FER 10^-5; Wi-Fi 802.11b with its
  ARQ, retry limit 7, 5.3 Mb/s of MAC capacity, latency taken as null, its raw channel in time).

Each returns a :class:`~burstlab.sim.Network`; change it with :func:`dataclasses.replace`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from burstlab import _core
from burstlab.linklayer import Arq, Backoff
from burstlab.sim.config import TcpConfig
from burstlab.sim.links import Link
from burstlab.sim.network import Cbr, Flow, Hop, Network

__all__ = ["WIFI_ARQ", "bdp_packets", "chain", "dumbbell", "satellite_wifi", "single", "wired_wireless"]


#: The largest network a preset or a scenario file builds: flows, and hops (each hop is two
#: links). Python builds a network at ~0.1 ms per flow and the engine holds every flow's
#: state; 10^5 flows take ~10 s to build before the run's own budget is checked
#: (docs/errors.md "Bounds"). A hop count beyond a path's 65535 links cannot be simulated.
MAX_FLOWS = 100_000
MAX_HOPS = 100_000
MAX_PATH_HOPS = 65_535


def check_size(flows: int, hops: int, where: str = "network") -> None:
    """Refuse, before anything is built, a network of more flows or hops than
    :data:`MAX_FLOWS` / :data:`MAX_HOPS`."""
    if flows > MAX_FLOWS:
        raise _core.ParameterError(f"invalid parameter {where} flows = {flows}: expected at most {MAX_FLOWS} flows "
                                   "(a network is built in Python at ~0.1 ms per flow before it runs)")  # fmt: skip
    if hops > MAX_HOPS:
        raise _core.ParameterError(f"invalid parameter {where} hops = {hops}: expected at most {MAX_HOPS} hops")


def bdp_packets(rate: float, rtt: float, packet_bytes: int = 1040) -> int:
    """A bandwidth-delay product in packets (at least 2): ``rate·rtt/8/packet_bytes``, rounded up."""
    if not (rate > 0 and rtt >= 0 and packet_bytes > 0):
        raise _core.ParameterError(f"invalid parameter bdp_packets({rate}, {rtt}, {packet_bytes}): expected rate > 0, rtt ≥ 0, packet_bytes > 0")
    bdp = rate * rtt / 8 / packet_bytes
    if not bdp < 2**63:
        raise _core.ParameterError(f"invalid parameter bdp_packets({rate}, {rtt}, {packet_bytes}): a bandwidth-delay product of "
                                   f"{bdp:.3g} packets: expected a finite rate × round-trip time (times under 10^9 s)")  # fmt: skip
    return max(2, math.ceil(bdp))


def _common(kw: dict[str, Any]) -> dict[str, Any]:
    allowed = {"duration", "warmup", "seed", "series", "log"}
    bad = set(kw) - allowed
    if bad:
        raise _core.ParameterError(f"invalid parameter {sorted(bad)[0]}: a preset also takes only {', '.join(sorted(allowed))}")
    return kw


def single(
    forward: Link | None = None,
    reverse: Link | None = None,
    tcp: TcpConfig | None = None,
    ack_loss: str = "none",
    size: int | None = None,
    **kw: Any,
) -> Network:
    """One TCP flow over one hop: the forward link named ``forward`` and the reverse named
    ``reverse``, so its loss streams — and its results — are those of
    ``Scenario(tcp, forward, reverse, ack_loss, Workload(duration, size, warmup), seed)``."""
    hop = Hop("forward", forward or Link(), reverse, ack_loss=ack_loss, reverse_name="reverse")  # type: ignore[arg-type]
    flow = Flow("flow", ["forward"], tcp=tcp or TcpConfig(), size=size)
    return Network([hop], [flow], **_common(kw))


def chain(
    hops: int | Sequence[Link] = 4,
    link: Link | None = None,
    tcp: TcpConfig | Sequence[TcpConfig] | None = None,
    flows: int = 1,
    ack_loss: str = "none",
    **kw: Any,
) -> Network:
    """``hops`` hops in series (a number of copies of ``link``, or a list of links, one per
    hop), named ``h0``, ``h1``, ...; ``flows`` TCP flows ``f0``, ``f1``, ... from the first
    node to the last (``tcp``: one setting for all, or one per flow)."""
    if isinstance(hops, int) and not isinstance(hops, bool) and hops > MAX_PATH_HOPS:
        raise _core.ParameterError(f"invalid parameter hops = {hops}: expected at most {MAX_PATH_HOPS} hops (the longest path a flow can take)")
    check_size(flows if isinstance(flows, int) else 0, hops if isinstance(hops, int) else 0)
    links = [link or Link()] * hops if isinstance(hops, int) else list(hops)
    if not links:
        raise _core.ParameterError("invalid parameter hops = 0: expected at least one hop")
    names = [f"h{k}" for k in range(len(links))]
    net_hops = [Hop(n, l, ack_loss=ack_loss) for n, l in zip(names, links)]  # type: ignore[arg-type]
    tcps = _per_flow(tcp, flows)
    return Network(net_hops, [Flow(f"f{k}", names, tcp=t) for k, t in enumerate(tcps)], **_common(kw))


def _per_flow(tcp: TcpConfig | Sequence[TcpConfig] | None, n: int) -> list[TcpConfig]:
    if n < 1:
        raise _core.ParameterError(f"invalid parameter flows = {n}: expected at least 1")
    if tcp is None or isinstance(tcp, TcpConfig):
        return [tcp or TcpConfig()] * n
    tcps = list(tcp)
    if len(tcps) != n:
        raise _core.ParameterError(f"invalid parameter tcp: {len(tcps)} settings for {n} flows")
    return tcps


def dumbbell(
    n: int = 10,
    bottleneck: Link | None = None,
    access_delay: float | Sequence[float] = 0.005,
    access_rate: float = 100e6,
    tcp: TcpConfig | Sequence[TcpConfig] | None = None,
    cross_traffic: Cbr | None = None,
    **kw: Any,
) -> Network:
    """``n`` TCP flows ``f0``..``f{n-1}``, each over its own access hop ``access{k}``
    (``access_rate``, ``access_delay`` — one for all or one per flow — and a buffer large
    enough never to drop) into the shared ``bottleneck`` hop (default 10 Mb/s, 20 ms, a
    buffer of one bandwidth-delay product at the mean RTT). ``cross_traffic``: a
    constant-rate flow ``cbr`` over the bottleneck."""
    if n < 1:
        raise _core.ParameterError(f"invalid parameter n = {n}: expected at least 1 flow")
    check_size(n, n + 1)
    delays = [float(access_delay)] * n if isinstance(access_delay, (int, float)) else [float(d) for d in access_delay]
    if len(delays) != n:
        raise _core.ParameterError(f"invalid parameter access_delay: {len(delays)} delays for {n} flows")
    bad = next((d for d in delays if not 0 <= d < 1e9), None)
    if bad is not None:
        raise _core.ParameterError(f"invalid parameter access_delay = {bad}: expected a time from 0 to 10^9 s")
    b = bottleneck or Link(rate=10e6, delay=0.020, buffer=0)
    if b.buffer == 0 and b.capacity is None:
        rtt = 2 * (b.delay + sum(delays) / n)

        b = replace(b, buffer=bdp_packets(b.rate, rtt))
    hops = [Hop("bottleneck", b)]
    flows = []
    for k, (d, t) in enumerate(zip(delays, _per_flow(tcp, n))):
        hops.append(Hop(f"access{k}", Link(rate=access_rate, delay=d, buffer=100_000)))
        flows.append(Flow(f"f{k}", [f"access{k}", "bottleneck"], tcp=t))
    if cross_traffic is not None:
        flows.append(Flow("cbr", ["bottleneck"], cbr=cross_traffic))
    return Network(hops, flows, **_common(kw))


def wired_wireless(
    rtt: float = 0.1,
    wireless: Link | None = None,
    wired_rate: float = 100e6,
    tcp: TcpConfig | None = None,
    **kw: Any,
) -> Network:
    """Martignon & Capone Fig. 10: a source S, a wired hop ``wired`` to the base station BS,
    a wireless hop ``wireless`` (packet error rate in its ``loss``) to the destination D,
    one TCP flow ``flow``. The wired hop's delay makes the round-trip propagation delay
    ``rtt``; its capacity (``wired_rate``) exceeds the wireless one, which is the
    bottleneck (default 10 Mb/s, 1 ms, a buffer of one bandwidth-delay product). The paper
    gives neither capacity; these defaults keep the run loss-limited, as its model assumes."""
    w = wireless or Link(rate=10e6, delay=0.001, buffer=0)
    wired_delay = rtt / 2 - w.delay
    if wired_delay < 0:
        raise _core.ParameterError(f"invalid parameter rtt = {rtt}: shorter than twice the wireless delay ({2 * w.delay} s)")
    if w.buffer == 0 and w.capacity is None:
        w = replace(w, buffer=bdp_packets(w.rate, rtt))
    hops = [Hop("wired", Link(rate=wired_rate, delay=wired_delay, buffer=100_000)), Hop("wireless", w)]
    return Network(hops, [Flow("flow", ["wired", "wireless"], tcp=tcp or TcpConfig())], **_common(kw))


#: Barsocchi et al. §I, §V: the Wi-Fi hop's IEEE 802.11 ARQ, "retries sending a frame up to a
#: configurable number of times – typically 7": dot11ShortRetryLimit = 7 attempts, 802.11b DCF
#: timing at 11 Mb/s with the standard's binary exponential backoff between attempts (the
#: 5.3 Mb/s MAC capacity of §II.B counts the mean backoff; docs/link-layer.md, docs/study-hybrid.md).
WIFI_ARQ = Arq(retry_limit=7, counts="attempts", backoff=Backoff())


def satellite_wifi(
    fer: float = 1e-5,
    wifi: Link | None = None,
    tcp: TcpConfig | None = None,
    channel: _core.LossModel | None = None,
    **kw: Any,
) -> Network:
    """Barsocchi et al. §II: a geostationary ``satellite`` hop (2 Mb/s, 300 ms one way, a
    150 kB buffer — one bandwidth-delay product —, Bernoulli frame errors with rate
    ``fer``) in series with a ``wifi`` hop, one TCP flow ``flow`` from the satellite side to
    the Wi-Fi station. The default Wi-Fi hop is 802.11b at 11 Mb/s with its ARQ
    (:data:`WIFI_ARQ`: 7 attempts, DCF timing and backoff, 5.3 Mb/s of MAC capacity for
    1000-byte packets), no latency and a 100-packet buffer; ``channel`` is its raw channel in
    time mode, asked for each attempt's interval (e.g. a Ttem trace,
    ``LossModel.replay(bits, slot=0.005)``; None: error-free). ``wifi`` replaces the whole
    hop (``channel`` is then ignored)."""
    sat = Link(rate=2e6, delay=0.300, buffer=150_000, buffer_unit="bytes",
               loss=None if fer == 0 else _core.LossModel.bernoulli(fer))  # fmt: skip
    w = wifi or Link(rate=5.3e6, delay=0.0, buffer=100, loss=channel, loss_mode="time", link_layer=WIFI_ARQ)
    hops = [Hop("satellite", sat), Hop("wifi", w)]
    return Network(hops, [Flow("flow", ["satellite", "wifi"], tcp=tcp or TcpConfig())], **_common(kw))
