"""Settings declared once (burstlab.study.settings): the study commands' options are
generated from the dataclasses, the help shows the dataclass default, and the Reproduce
line's arguments parse back to the same settings (a round trip through the command line)."""

from __future__ import annotations

from typing import Any

import pytest

from burstlab.cli.study import error_models_cmd, tibet_cmd
from burstlab.experiments import error_models_settings as EM
from burstlab.experiments import tibet_settings as TB
from burstlab.experiments.error_models_report import cli_args as em_args
from burstlab.experiments.tibet_report import cli_args as tb_args
from burstlab.study import settings


def _parse(cmd: Any, args: list[str]) -> dict[str, Any]:
    return cmd.make_context(cmd.name, list(args)).params  # type: ignore[no-any-return]


def test_every_declared_setting_is_an_option_with_its_default_in_the_help() -> None:
    for cmd, classes in ((error_models_cmd, (EM.Setup, EM.StudyConfig)), (tibet_cmd, (TB.Setup,))):
        opts = {p.name: p for p in cmd.params}
        for cls in classes:
            for f, c in settings.declared(cls):
                assert f.name in opts, f.name
                assert f"[default: {settings.show(f.default, c)}]" in (opts[f.name].help or "")
                assert opts[f.name].default is None  # not given: the dataclass decides


@pytest.mark.parametrize("args", [
    ["--rate", "2Mbit", "--cycle", "300ms", "--no-delayed-ack", "--rwnd", "44", "--fig2-ack-loss", "none", "--size", "4MB", "--lan-delay", "2ms"],
    [],
])  # fmt: skip
def test_error_models_round_trip(args: list[str]) -> None:
    p = _parse(error_models_cmd, args)
    cfg = EM.StudyConfig(setup=EM.Setup(**settings.given(EM.Setup, p)), **settings.given(EM.StudyConfig, p))
    again = _parse(error_models_cmd, em_args(cfg))
    cfg2 = EM.StudyConfig(setup=EM.Setup(**settings.given(EM.Setup, again)), seeds=int(again["seeds"]), sweep_seeds=int(again["sweep_seeds"]),
                          **settings.given(EM.StudyConfig, again))  # fmt: skip
    assert cfg2 == cfg
    if args:
        assert cfg.setup.rate == 2e6 and cfg.setup.cycle == 0.3 and cfg.setup.delayed_ack is False and cfg.sync_size == 4_000_000


def test_tibet_round_trip_and_quick_duration() -> None:
    p = _parse(tibet_cmd, ["--reading", "rtt", "--recovery", "sack", "--wireless-rate", "50Mbit", "--delayed-ack", "--rto-min", "1s"])
    cfg = TB.StudyConfig(setup=TB.Setup(**settings.given(TB.Setup, p)))
    assert tb_args(cfg)[6:] == ["--reading", "rtt", "--recovery", "sack", "--rto-min", "1s", "--delayed-ack", "--wireless-rate", "50Mbit"]
    q = TB.StudyConfig.quick_config()
    assert "--duration" not in tb_args(q)  # the quick default
    assert tb_args(TB.StudyConfig.quick_config(TB.Setup(duration=120.0)))[-2:] == ["--duration", "120s"]


def test_a_setting_without_help_is_refused_nowhere_but_a_none_cannot_be_written() -> None:
    with pytest.raises(ValueError, match="cannot be written"):
        settings.cli_args(EM.Setup(), EM.Setup(rwnd=44))  # base 44 → None has no option
