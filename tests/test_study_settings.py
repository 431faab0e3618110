"""Settings declared once (burstlab.study.settings) and the study protocol
(burstlab.study.base, burstlab.study.registry): every study's command is generated from its
settings dataclasses, the help shows the dataclass default (and the ``--quick`` value), the
Reproduce line's arguments parse back to the same configuration (a round trip through the
command line), and a new study is its module plus one registry line."""

from __future__ import annotations

import dataclasses
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from burstlab.cli import cli
from burstlab.cli.study import command
from burstlab.experiments import error_models_settings as EM
from burstlab.experiments import tibet_settings as TB
from burstlab.experiments.error_models_report import cli_args as em_args
from burstlab.experiments.tibet_report import cli_args as tb_args
from burstlab.study import registry, settings
from burstlab.study.base import CellStudy, Study, UsageError, settings_of
from burstlab.study.settings import CellStudyConfig, setting

STUDIES = ("prr-mu", "error-models", "tibet", "hybrid", "link-transport")


def _parse(cmd: Any, args: list[str]) -> dict[str, Any]:
    return cmd.make_context(cmd.name, list(args)).params  # type: ignore[no-any-return]


def _configure(study: Study, args: list[str]) -> Any:
    p = _parse(command(study), args)
    return study.configure({k: v for k, v in p.items() if k not in ("out", "workers", "cluster", "quick", "pdf", "no_progress")}, quick=p["quick"])


@pytest.mark.parametrize("name", STUDIES)
def test_every_study_implements_the_protocol_and_every_declared_setting_is_an_option(name: str) -> None:
    study = registry.load(name)
    assert isinstance(study, Study) and study.name == name
    cmd = command(study)
    opts = {p.name: p for p in cmd.params}
    quick = getattr(study.Config, "QUICK", {})
    n = 0
    for cls in settings_of(study):
        for f, c in settings.declared(cls):
            if f.name == "budget" and not study.budget:
                assert "budget" not in opts
                continue
            n += 1
            assert f.name in opts, f.name
            assert opts[f.name].default is None  # not given: the dataclass decides
            d = settings.default_of(f)
            if not isinstance(d, bool):
                assert f"[default: {settings._show_default(d, c)}" in (opts[f.name].help or "")
            if cls is study.Config and f.name in quick and quick[f.name] != d and not isinstance(d, bool):
                assert f"--quick: {settings._show_default(quick[f.name], c)}" in (opts[f.name].help or "")
    assert n >= 8  # every study has its settings declared, none hand-written


def test_no_option_is_hand_written_in_the_study_command_module() -> None:
    """The only click options of cli/study.py are the few every study shares."""
    text = (Path(__file__).parents[1] / "python/burstlab/cli/study.py").read_text()
    assert text.count("click.option(") == 7  # --out, --workers, --cluster, --quick, --png, --pdf, --no-progress


@pytest.mark.parametrize("name, args", [
    ("error-models", ["--rate", "2Mbit", "--cycle", "300ms", "--no-delayed-ack", "--rwnd", "44", "--fig2-ack-loss", "none", "--size", "4MB", "--seeds", "7"]),
    ("error-models", ["--quick", "--lan-delay", "2ms"]),
    ("tibet", ["--reading", "rtt", "--recovery", "sack", "--wireless-rate", "50Mbit", "--delayed-ack", "--rto-min", "1s", "--budget", "0"]),
    ("tibet", ["--quick", "--duration", "120s"]),
    ("hybrid", ["--tcp", "sack", "--runs", "4", "--table1-only", "--fer-range", "0.05", "0.4", "--synthetic-alpha", "2", "--sat-buffer", "75kB"]),
    ("hybrid", ["--quick", "--dataset", "rutgers", "--noise", "dbm0,dbm-5"]),
    ("link-transport", ["--noise", "-10,-5", "--persistence", "7", "--error-unit", "frame", "--link-rate", "5Mbit", "--budget", "12"]),
    ("link-transport", ["--quick", "--no-sweep"]),
    ("prr-mu", ["--links", "16", "--slots", "20000", "--seeds", "2", "--prr-range", "0.2", "0.8", "--tcp-profile", "rfc"]),
    ("prr-mu", ["--quick", "--dataset", "tossim", "--targets", "0.3,0.5", "--segment", "0"]),
    ("prr-mu", ["--traces", "some/dir", "--format", "bits", "--drop-beyond"]),
])  # fmt: skip
def test_round_trip_through_the_reproduce_line(name: str, args: list[str]) -> None:
    study = registry.load(name)
    cfg = _configure(study, args)
    again = _configure(study, settings.reproduce_args(cfg))
    assert again == cfg


def test_given_values_reach_the_configuration() -> None:
    em = _configure(registry.load("error-models"), ["--rate", "2Mbit", "--size", "4MB", "--seeds", "7"])
    assert em.setup.rate == 2e6 and em.sync_size == 4_000_000 and em.seeds == 7 and em.sweep_seeds == 7  # --seeds alone bounds the sweep's
    tb = _configure(registry.load("tibet"), ["--quick"])
    assert tb.quick and tb.setup.duration == TB.QUICK_DURATION and tb.budget is None
    assert _configure(registry.load("tibet"), ["--budget", "0"]).budget is None  # 0: never
    hy = _configure(registry.load("hybrid"), ["--quick", "--dataset", "rutgers"])
    assert hy.max_traces == 8 and hy.seeds == 2  # real data: 8 traces unless told, even in a preview
    assert not _configure(registry.load("hybrid"), ["--table1-only"]).all_models
    lt = _configure(registry.load("link-transport"), ["--noise", "dbm-10,-5"])
    assert lt.noise_levels == (-10, -5) and lt.budget == 40
    pm = _configure(registry.load("prr-mu"), ["--dataset", "tossim", "--noise", "a.txt,b.txt", "--segment", "0"])
    assert pm.tossim_noise_files == ("a.txt", "b.txt") and pm.rutgers_noise is None and pm.tossim_segment is None
    q = _configure(registry.load("prr-mu"), ["--quick", "--links", "12"])
    assert (q.quick, q.n_links, q.replicates, q.n_slots) == (True, 12, 2, 30_000)


@pytest.mark.parametrize("name, args, words", [
    ("prr-mu", ["--noise", "dbm0"], "--noise has no effect with --dataset synthetic"),
    ("prr-mu", ["--dataset", "rutgers", "--links", "5"], "--links has no effect with --dataset rutgers"),
    ("prr-mu", ["--dataset", "rutgers", "--traces", "x"], "either --dataset or --traces"),
    ("prr-mu", ["--timing", "time"], "--timing has no effect with --dataset synthetic"),
    ("hybrid", ["--dataset", "rutgers", "--synthetic-alpha", "2"], "--synthetic-alpha has no effect with --dataset rutgers"),
    ("error-models", ["--quick", "--budget", "50"], "--budget has no effect with --quick"),
])  # fmt: skip
def test_options_for_another_input_are_usage_errors(name: str, args: list[str], words: str) -> None:
    with pytest.raises(UsageError, match=words.replace("(", r"\(")):
        _configure(registry.load(name), args)


def test_a_none_cannot_be_written_unless_declared() -> None:
    with pytest.raises(ValueError, match="cannot be written"):
        settings.cli_args(EM.Setup(), EM.Setup(rwnd=44))  # base 44 → None has no option
    assert settings.cli_args(TB.StudyConfig(budget=None)) == ["--budget", "0"]


def test_the_old_reproduce_lines_still_parse() -> None:
    cfg = EM.StudyConfig(setup=EM.Setup(rate=2e6), seeds=7, sweep_seeds=5)
    assert _configure(registry.load("error-models"), em_args(cfg)) == cfg
    q = TB.StudyConfig.quick_config(TB.Setup(duration=120.0))
    assert _configure(registry.load("tibet"), tb_args(q)) == q


# -- a new study: its module, its settings and one registry line ----------------------------
@dataclass(frozen=True)
class TinySetup:
    rate: float = setting(2e6, "Link rate.", unit="rate")
    lossy: bool = setting(True, "Lose packets.")


@dataclass(frozen=True)
class TinyConfig(CellStudyConfig):
    setup: TinySetup = field(default_factory=TinySetup)
    seeds: int = 3
    sweep_seeds: int = 2
    label: str = setting("x", "A label for the report.", choices=("x", "y"))
    QUICK: ClassVar[dict[str, Any]] = {"quick": True, "seeds": 2, "budget": None}


class Tiny(CellStudy):
    name = "tiny"
    title = "A tiny study"
    description = "A tiny study (a test of the framework)."
    Setup = TinySetup
    Config = TinyConfig
    claims = "tests.none"

    def run(self, cfg: Any, out: str, **kw: Any) -> Any:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "cfg.txt").write_text(repr(cfg))
        r = types.SimpleNamespace(ran=cfg.seeds, skipped=0, elapsed_s=0.0, claims=[], report_md=Path(out) / "r.md", report_html=Path(out) / "r.html")
        return r


def test_a_registered_study_gets_its_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = types.ModuleType("tiny_study_mod")
    mod.study = Tiny()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tiny_study_mod", mod)
    registry.register("tiny", "tiny_study_mod:study", "A tiny study.")
    try:
        r = CliRunner().invoke(cli, ["study", "--help"])
        assert r.exit_code == 0 and "tiny" in r.output and "A tiny study." in r.output
        r = CliRunner().invoke(cli, ["study", "tiny", "--help"])
        assert r.exit_code == 0
        for opt, shown in (("--rate", "[default: 2Mbit]"), ("--no-lossy", "[default: --lossy]"), ("--label", "[default: x]"), ("--seeds", "[default: 3; --quick: 2]"),
                           ("--budget", "[default: never]"), ("--sweep-seeds", "[default: 2]")):  # fmt: skip
            assert opt in r.output and shown in " ".join(r.output.split()), opt
        out = tmp_path / "t"
        r = CliRunner().invoke(cli, ["study", "tiny", "--rate", "5Mbit", "--no-lossy", "--label", "y", "--seeds", "4", "--out", str(out)])
        assert r.exit_code == 0, r.output
        cfg = (out / "cfg.txt").read_text()
        assert "rate=5000000.0" in cfg and "lossy=False" in cfg and "label='y'" in cfg and "seeds=4" in cfg and "sweep_seeds=2" in cfg
        assert "4 simulations run" in r.output
        r = CliRunner().invoke(cli, ["study", "tiny", "--label", "z", "--out", str(out)])
        assert r.exit_code == 2 and "'z' is not one of 'x', 'y'" in r.output
    finally:
        registry.unregister("tiny")
    assert "tiny" not in CliRunner().invoke(cli, ["study", "--help"]).output


def test_declared_fields_inherit_their_declaration() -> None:
    """A configuration that redefines a base field only to change its default keeps the
    base's help (TinyConfig.seeds)."""
    names = [f.name for f, _ in settings.declared(TinyConfig)]
    assert names[:4] == ["seeds", "sweep_seeds", "seed", "sweep"] and "label" in names and "setup" not in names
    assert dataclasses.fields(TinyConfig)[1].default == 3


def test_quick_config_seeds_alone_caps_sweep_seeds() -> None:
    """``quick_config(seeds=n)`` caps the preview's sweep replicates at n, as ``--quick
    --seeds n`` does; given both, both are kept (and a sweep above the defaults is refused)."""
    from burstlab.experiments import error_models as E

    q = E.StudyConfig.quick_config()
    assert q.sweep_seeds > 2
    assert E.StudyConfig.quick_config(seeds=2).sweep_seeds == 2
    assert E.StudyConfig.quick_config(seeds=q.sweep_seeds + 1).sweep_seeds == q.sweep_seeds
    assert E.StudyConfig.quick_config(seeds=5, sweep_seeds=3).sweep_seeds == 3
    from burstlab import ParameterError

    with pytest.raises(ParameterError, match="sweep-seeds"):
        E.StudyConfig.quick_config(seeds=2, sweep_seeds=3)
