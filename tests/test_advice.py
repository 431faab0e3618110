"""Options that would run but not as they read (issue 32; burstlab.sim.advice): a time model
asked per packet, a rate on a link a link layer times, ACKs over a Mahimahi downlink trace;
and the per-packet log (``--log FILE``, ``log = true``) written as Parquet."""

from __future__ import annotations

import warnings
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from burstlab.cli import main
from burstlab.sim import Link, Scenario, Workload, run
from burstlab.sim.advice import link_layer_ignores_rate, reverse_reuses_downlink, time_model_in_packet_mode


def test_advice_rules() -> None:
    assert "--loss-mode time" in (time_model_in_packet_mode("--loss", "onoff:good=1.8,bad=0.2", "packet") or "")
    assert time_model_in_packet_mode("--loss", "onoff:good=1.8,bad=0.2", "time") is None
    assert time_model_in_packet_mode("--loss", "onoff:good=1.8,bad=0.2,interval=0.01", "packet") is None  # the spacing chosen
    assert time_model_in_packet_mode("--loss", "bernoulli:p=0.1", "packet") is None
    assert time_model_in_packet_mode("--loss", None, "packet") is None  # a model object: its interval is its own (a fitted slot)
    assert "dcf_rate" in link_layer_ignores_rate("--rate", "arq:retry_limit=3")


def test_a_fitted_time_model_per_packet_does_not_warn() -> None:
    """A model fitted to a slotted trace places packets at its slot: packet mode is meant."""
    from burstlab._core import LossModel
    from burstlab.models import make_model
    from burstlab.traces import Trace

    m = make_model("markov-ct").fit(Trace(LossModel.gilbert_elliott(0.05, 0.3).sample(5000, 1), interval=0.01))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run(Scenario(forward=Link(rate=1e6, loss=m.to_core()), workload=Workload(duration=2.0)))


def test_cli_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--duration", "2s", "--loss", "vddp:a=0.5,b=0.5,da=1,db=1,ca=0.1,cb=0.5"]) == 0
    assert "warning: vddp:a=0.5,b=0.5,da=1,db=1,ca=0.1,cb=0.5 follows time" in capsys.readouterr().err
    assert main(["sim", "--duration", "2s", "--loss", "onoff:good=1.8,bad=0.2", "--loss-mode", "time"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["sim", "--duration", "2s", "--rate", "1Mbit", "--link-layer", "arq:retry_limit=3"]) == 0
    assert "warning: --rate: rate is not used on a link with a link layer" in capsys.readouterr().err
    assert main(["sim", "--duration", "2s", "--link-layer", "arq:retry_limit=3"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_sim_log_single_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "log.parquet"
    assert main(["sim", "--tcp", "newreno", "--rate", "1Mbit", "--duration", "5s", "--loss", "bernoulli:p=0.05", "--json", "--log", str(out)]) == 0
    import json

    res = json.loads(capsys.readouterr().out)
    t = pq.read_table(out).to_pydict()
    assert set(t) == {"time", "event", "kind", "flow", "link", "seg", "to", "retx", "sent_time"}
    sent = sum(1 for e, k, lk in zip(t["event"], t["kind"], t["link"]) if e == "sent" and k == "data" and lk == "forward")
    lost = sum(1 for e, k in zip(t["event"], t["kind"]) if e == "lost" and k == "data")
    assert sent == res["packets_sent"] and lost > 0  # the log is the run the numbers describe
    assert t["time"] == sorted(t["time"]) and set(t["link"]) <= {"forward", "reverse", None}
    assert main(["sim", "--tcp", "reno,sack", "--log", str(tmp_path / "two.parquet")]) == 2
    assert "one --tcp variant" in capsys.readouterr().err and not (tmp_path / "two.parquet").exists()


def _scenario(tmp_path: Path, body: str) -> Path:
    f = tmp_path / "net.toml"
    f.write_text(body)
    return f


def test_scenario_log_true_writes_its_log(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    f = _scenario(tmp_path, 'duration = "3s"\nlog = true\n[[hop]]\nname = "b"\nrate = "2Mbit"\nloss = "bernoulli:p=0.02"\n[[flow]]\nname = "f"\npath = ["b"]\n')
    assert main(["sim", str(f)]) == 0
    assert "net.log.parquet" in capsys.readouterr().err
    t = pq.read_table(tmp_path / "net.log.parquet").to_pydict()
    assert set(t["flow"]) == {"f"} and "lost" in t["event"]
    assert main(["sim", str(f), "--log", str(tmp_path / "other.parquet")]) == 0
    assert (tmp_path / "other.parquet").stat().st_size > 0


def test_mahimahi_reverse_capacity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.down").write_text("\n".join(str(ms) for ms in range(0, 100)) + "\n")  # one opportunity per ms
    (tmp_path / "x.up").write_text("\n".join(str(ms) for ms in range(0, 100, 4)) + "\n")  # one in 4 ms
    hop = '[[hop]]\nname = "c"\ncapacity = "x.down"\n'
    flow = '[[flow]]\nname = "f"\npath = ["c"]\n'
    f = _scenario(tmp_path, 'duration = "2s"\n' + hop + flow)
    assert main(["sim", str(f), "--json"]) == 0
    cap = capsys.readouterr()
    assert 'x.up"' in cap.err and "net.toml:4" in cap.err
    f = _scenario(tmp_path, 'duration = "2s"\n' + hop + '[hop.reverse]\ncapacity = "x.up"\n' + flow)
    assert main(["sim", str(f), "--json"]) == 0
    import json

    cap = capsys.readouterr()
    links = {x["name"]: x for x in json.loads(cap.out)["links"]}
    assert "warning" not in cap.err
    # the trace loops with the period of its last timestamp: 100 opportunities of 1500 bytes in 99 ms, 25 in 96 ms
    assert links["c"]["capacity_bps"] == pytest.approx(100 * 12_000 / 0.099) and links["c.rev"]["capacity_bps"] == pytest.approx(25 * 12_000 / 0.096)


def test_scenario_time_model_per_packet_warns_naming_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _scenario(tmp_path, 'duration = "2s"\n[[hop]]\nname = "w"\nloss = "onoff:good=1.8,bad=0.2"\n[[flow]]\nname = "f"\npath = ["w"]\n')
    assert main(["sim", str(f)]) == 0
    err = capsys.readouterr().err
    assert "net.toml:4" in err and "loss_mode = \"time\"" in err


def test_reverse_reuses_downlink_only_when_the_uplink_is_there(tmp_path: Path) -> None:
    down = str(tmp_path / "x.down")
    assert reverse_reuses_downlink("hop", down, has_reverse=False) is None  # no x.up: nothing better to suggest
    (tmp_path / "x.up").write_text("0\n")
    assert str(tmp_path / "x.up") in (reverse_reuses_downlink("hop", down, has_reverse=False) or "")
    assert reverse_reuses_downlink("hop", down, has_reverse=True) is None
    assert reverse_reuses_downlink("hop", str(tmp_path / "x.up"), has_reverse=False) is None
