"""TcpConfig: congestion control and recovery chosen separately, the ``--tcp`` shorthand, the
``rfc`` / ``ns3`` / ``linux`` profiles, and ``burstlab sim``'s option per field and
``--show-config`` (issue 11; ``docs/tcp.md``)."""

from __future__ import annotations

import json
from dataclasses import asdict, fields

import pytest
from click.testing import CliRunner

from burstlab import _core
from burstlab.cli import cli
from burstlab.sim import PROFILES, VARIANTS, Link, Scenario, TcpConfig, Workload, run, tcp_settings


def test_python_defaults_are_the_simulator_defaults() -> None:
    # The rfc profile is the dataclass defaults, and those are Rust's TcpConfig::default().
    rust = _core.tcp_settings({})
    for name, value in asdict(TcpConfig()).items():
        assert rust[name] == pytest.approx(value) if isinstance(value, float) else rust[name] == value, name
    assert set(rust) == {f.name for f in fields(TcpConfig)} | {"ssthresh_rule_resolved", "ecn_resolved"}
    assert TcpConfig.profile("rfc") == TcpConfig()


def test_variant_shorthand() -> None:
    for name, (cc, rec) in VARIANTS.items():
        t = TcpConfig(variant=name)
        assert (t.cc, t.recovery) == (cc, rec)
    # An explicit (non-default) cc or recovery wins over the pair.
    assert (TcpConfig(variant="sack", cc="westwood").cc, TcpConfig(variant="sack", cc="westwood").recovery) == ("westwood", "sack")
    with pytest.raises(_core.ParameterError, match="variant = bbr9"):
        TcpConfig(variant="bbr9")


def test_congestion_controls_are_the_core_registry() -> None:
    """The Python list of congestion controls is the core's registry (`tcp/cc/mod.rs`), in order."""
    from burstlab.sim import CONGESTION_CONTROLS
    from burstlab.sim.params import TCP_PARAMS

    assert CONGESTION_CONTROLS == tuple(TCP_PARAMS["cc"]["choices"])
    assert VARIANTS["bbr"] == ("bbr", "sack")


def test_profiles_set_every_field_and_overrides_win() -> None:
    ns3 = TcpConfig.profile("ns3")
    assert (ns3.cc, ns3.recovery, ns3.init_cwnd, ns3.timestamps, ns3.limited_transmit) == ("cubic", "prr", 10, True, True)
    assert (ns3.rwnd, ns3.rto_min, ns3.ack_timeout, ns3.hystart, ns3.prr_variant) == (131, 1.0, 0.2, "ns3", "ns3")
    assert (ns3.bbr_variant, TcpConfig.profile("linux").bbr_variant, TcpConfig().bbr_variant) == ("ns3", "linux", "linux")
    assert ns3.abc and not TcpConfig.profile("ns3", cc="reno").abc  # TcpCubic counts segments, TcpNewReno does not
    assert TcpConfig.profile("ns3", mss=1460).rwnd == 131072 // 1460  # 128 KiB socket buffers
    assert TcpConfig.profile("ns3", rwnd=None).rwnd is None  # an override wins over a computed value
    lx = TcpConfig.profile("linux")
    assert (lx.cc, lx.rto_min, lx.ack_timeout, lx.clock_granularity, lx.ssthresh_rule) == ("cubic", 0.2, 0.04, 0.2, "cwnd")
    assert (lx.cubic_variant, ns3.cubic_variant, TcpConfig().cubic_variant) == ("linux", "ns3", "rfc")  # each stack's arithmetic
    # ns-3's TcpSocketBase / TcpTxBuffer: RFC 6675's duplicate ACKs as ns-3 counts them and its
    # pipe; the others keep RFC 5681's duplicate ACKs and RFC 6675's pipe.
    assert (ns3.dupack_rule, ns3.pipe_rule) == ("ns3", "ns3")
    assert (lx.dupack_rule, lx.pipe_rule, TcpConfig().dupack_rule, TcpConfig().pipe_rule) == ("rfc5681", "rfc6675", "rfc5681", "rfc6675")
    assert (lx.rack_tlp, ns3.rack_tlp, TcpConfig().rack_tlp) == (True, False, False)  # RACK-TLP, Linux's default
    # tcp_enter_loss: a timeout in Recovery keeps the recovery's ssthresh (RFC 5681 reduces again)
    assert (lx.rto_keeps_recovery_ssthresh, ns3.rto_keeps_recovery_ssthresh, TcpConfig().rto_keeps_recovery_ssthresh) == (True, False, False)
    assert TcpConfig.profile("linux", cc="reno").cc == "linux-reno"  # a Linux host's reno
    assert TcpConfig.profile("linux", variant="newreno").recovery == "newreno"
    with pytest.raises(_core.ParameterError, match="profile = bsd"):
        TcpConfig.profile("bsd")
    with pytest.raises(_core.ParameterError, match="colour"):
        TcpConfig.profile("ns3", colour="blue")
    # Every profile value names a real field (or the alias table).
    for prof in PROFILES.values():
        assert set(prof) <= {f.name for f in fields(TcpConfig)} | {"cc_alias", "computed"}
        assert set(prof.get("computed", {})) <= {f.name for f in fields(TcpConfig)}


@pytest.mark.parametrize(("cc", "resolved"), [("reno", "pipe"), ("westwood", "pipe"), ("cubic", "cwnd"),
                                              ("linux-reno", "cwnd"), ("vegas", "ns3")])  # fmt: skip
def test_ns3_ssthresh_rule_resolution(cc: str, resolved: str) -> None:
    assert tcp_settings(TcpConfig.profile("ns3", cc=cc))["ssthresh_rule_resolved"] == resolved
    # Without SACK and limited transmit, ns-3's NewReno halves FlightSize - 1 segment.
    plain = TcpConfig.profile("ns3", cc="reno", recovery="newreno", limited_transmit=False)
    assert tcp_settings(plain)["ssthresh_rule_resolved"] == "flightsize_minus_lost"


def test_every_field_is_a_sim_option() -> None:
    opts = {o for p in cli.commands["sim"].params for o in getattr(p, "opts", [])}
    for f in fields(TcpConfig):
        assert "--" + f.name.replace("_", "-") in opts, f.name
    assert {"--profile", "--tcp", "--show-config"} <= opts


def test_show_config_prints_the_resolved_settings() -> None:
    r = CliRunner().invoke(cli, ["sim", "--profile", "ns3", "--cc", "vegas", "--rto-min", "300ms", "--no-timestamps",
                                 "--rwnd", "none", "--show-config", "--json"])  # fmt: skip
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    t = doc["tcp"]
    assert (doc["profile"], t["cc"], t["recovery"], t["rto_min"], t["timestamps"], t["rwnd"]) == ("ns3", "vegas", "prr", 0.3, False, None)
    assert (t["vegas_alpha"], t["vegas_beta"], t["ssthresh_rule_resolved"]) == (2, 4, "ns3")
    assert doc["link"]["rate"] == 10e6
    text = CliRunner().invoke(cli, ["sim", "--tcp", "tibet", "--show-config"]).output
    assert "tcp.cc=tibet" in text and "tcp.recovery=newreno" in text and "tcp.tibet_alpha=0.99" in text


def test_bad_tcp_options_are_usage_errors() -> None:
    r = CliRunner().invoke(cli, ["sim", "--cc", "bbr9"])
    assert r.exit_code == 2 and "bbr9" in r.output
    r = CliRunner().invoke(cli, ["sim", "--tibet-alpha", "2", "--show-config"])
    assert r.exit_code != 0 and "--tibet-alpha = 2" in str(r.exception or r.output)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_variant_runs_through_python(name: str) -> None:
    for profile in ("rfc", "ns3", "linux"):
        tcp = TcpConfig.profile(profile, variant=name)
        res = run(Scenario(tcp=tcp, forward=Link(rate=10e6, delay=0.01, loss=_core.LossModel.bernoulli(0.01)),
                           workload=Workload(duration=5.0), seed=2))  # fmt: skip
        # LT-TCP repairs losses with FEC and never starts a fast retransmit (docs/tcp.md).
        repairs = res.fec_decodes if name == "lt-tcp" else res.fast_retransmits
        assert 0 < res.goodput_bps < 10e6 and repairs > 0, (name, profile)


def test_rack_lost_retransmissions_repairs_without_the_timer() -> None:
    """The `linux` profile turns RACK's rule for retransmissions on (as `tcp_recovery = 1`):
    at 10 % loss a retransmission lost again is sent again before the timer, so the same
    seeds see fewer timeouts and more goodput than with RFC 6675 alone, and the repairs
    are counted."""
    assert TcpConfig.profile("linux").rack_lost_retransmissions
    assert not TcpConfig.profile("ns3").rack_lost_retransmissions and not TcpConfig().rack_lost_retransmissions
    tot = {False: [0, 0, 0.0], True: [0, 0, 0.0]}
    for rack in (False, True):
        for seed in range(1, 6):
            tcp = TcpConfig.profile("linux", cc="reno", mss=1000, rack_lost_retransmissions=rack)
            link = Link(rate=10e6, delay=0.010, buffer=100, loss=_core.LossModel.bernoulli(0.1))
            r = run(Scenario(tcp=tcp, forward=link, workload=Workload(duration=30.0), seed=seed))
            tot[rack][0] += r.timeouts
            tot[rack][1] += r.lost_retransmissions
            tot[rack][2] += r.goodput_bps
    assert tot[False][1] == 0 and tot[True][1] > 20
    assert tot[True][0] < 0.8 * tot[False][0], tot
    assert tot[True][2] > tot[False][2], tot
