"""The Rutgers ORBIT noise traces: every file parses; a few links pinned to values
computed independently of burstlab."""

from __future__ import annotations

from pathlib import Path

import pytest

from burstlab import ParameterError
from burstlab.datasets import rutgers
from burstlab.stats import trace_stats

# Independent values: computed with awk from the raw files, not with burstlab:
#   awk 'BEGIN{for(i=0;i<301;i++)b[i]=0} {if($1<301)b[$1]=1}
#        END{for(i=0;i<301;i++){n+=b[i]; if(i>0)c[b[i-1]""b[i]]++}
#            g=c["01"]/(c["01"]+c["00"]); bb=c["10"]/(c["10"]+c["11"]);
#            printf "%d %d %d %d %d %.10f\n", n, c["00"],c["01"],c["10"],c["11"], 1-g-bb}' FILE
# i.e. 301 frames (seq 0..300), 1 = received, μ = 1 − g − b (Srinivasan et al. §5.2).
PINNED = {
    # name: (received, |00|, |01|, |10|, |11|, μ)
    "rutgers/dbm-10/1-2->6-1": (149, 74, 77, 78, 71, -0.0334237077),
    "rutgers/dbm-10/1-4->1-8": (103, 116, 81, 81, 22, -0.1975752797),
    "rutgers/dbm-10/1-6->6-3": (143, 90, 68, 68, 74, 0.0907470137),
    "rutgers/dbm-5/1-4->7-4": (162, 69, 69, 70, 92, 0.0679012346),
    "rutgers/dbm-5/1-8->1-2": (128, 96, 76, 77, 51, -0.0434229651),
}


@pytest.mark.slow
def test_every_rutgers_file_parses_and_pinned_links(shared: Path) -> None:
    root = shared / "data" / "rutgers-noise"
    files = sorted(p for p in (root / "data").rglob("*") if p.is_file())
    traces = list(rutgers(root))
    assert len(traces) == len(files) == 2436
    assert {t.meta["path"] for t in traces} == {str(p) for p in files}
    assert all(len(t) == 301 for t in traces)
    empty = [t for t in traces if t.meta["received"] == 0]
    assert len(empty) == sum(1 for p in files if p.stat().st_size == 0)  # empty file = nothing received
    assert all(t.bits.count_ones() == 0 for t in empty)
    assert {t.meta["noise_dbm"] for t in traces} == {0, -5, -10}
    by_name = {t.name: t for t in traces}
    assert len(by_name) == len(traces)  # (noise, tx, rx) identifies a link
    for name, (rx, n00, n01, n10, n11, mu) in PINNED.items():
        s = trace_stats(by_name[name], warn=False)
        assert s.delivered == rx and s.prr == pytest.approx(rx / 301, abs=1e-12)
        assert (s.n00, s.n01, s.n10, s.n11) == (n00, n01, n10, n11)
        assert s.mu == pytest.approx(mu, abs=1e-9)


def test_rutgers_noise_filter_and_meta(shared: Path) -> None:
    ts = list(rutgers(noise=-5))
    assert ts and all(t.meta["noise_dbm"] == -5 for t in ts)
    t = next(t for t in ts if t.name == "rutgers/dbm-5/1-4->7-4")
    assert (t.meta["tx"], t.meta["rx"], t.meta["expected"], t.meta["dropped"]) == ("1-4", "7-4", 301, 0)
    with pytest.raises(ParameterError, match="noise"):
        next(rutgers(noise=-7))


def test_rutgers_strays_are_dropped_and_counted(tmp_path: Path) -> None:
    run = tmp_path / "data" / "dbm0" / "Results_node1-2_DailyTest_x"
    run.mkdir(parents=True)
    (run / "sdec3-4").write_text("0 10\n1 11\n305 9\n300 8\n")
    (run / "sdec3-5").write_text("")
    (run / "notes.txt").write_text("ignored\n")
    a, b = list(rutgers(tmp_path))
    assert a.name == "rutgers/dbm0/1-2->3-4" and len(a) == 301
    assert a.meta["dropped"] == 1 and a.meta["max_seq"] == 305 and a.bits.count_ones() == 3
    assert b.bits.count_ones() == 0 and len(b) == 301


def test_subsample_keeps_one_entry_in_k() -> None:
    from burstlab import Trace
    from burstlab.datasets import subsample

    t = Trace.from_string("1101001110", interval=0.002, name="x", meta={"a": 1})
    s = subsample(t, 5)
    assert s.to_numpy().tolist() == [1, 0] and s.interval == pytest.approx(0.01) and s.name == "x"
    assert s.meta == {"a": 1, "subsampled": 5} and subsample(s, 2).meta["subsampled"] == 10
    assert subsample(t, 3, offset=1).to_numpy().tolist() == [1, 0, 1]
    assert subsample(t, 1) is t
    ts = Trace([1, 0, 1, 1], timestamps=[0.0, 0.5, 1.0, 2.0])
    assert subsample(ts, 2).timestamps.tolist() == [0.0, 1.0]
    with pytest.raises(ParameterError, match="every"):
        subsample(t, 0)


def test_convert_every(tmp_path: Path) -> None:
    from burstlab.cli import main
    from burstlab.io import read_trace

    src = tmp_path / "a.bits"
    src.write_text("\n".join("1" if i % 3 else "0" for i in range(30)) + "\n")
    assert main(["convert", str(src), str(tmp_path / "b.csv"), "--every", "3", "--interval", "0.002"]) == 0
    b = read_trace(tmp_path / "b.csv")
    assert b.to_numpy().tolist() == [0] * 10 and b.interval == pytest.approx(0.006)
