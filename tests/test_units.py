import pytest

from burstlab import ParameterError
from burstlab.cli import main
from burstlab.units import TIME_UNITS, parse_duration, parse_rate, parse_size, parse_time


def test_known_answers() -> None:
    assert parse_rate("10Mb/s") == 10e6 and parse_rate("2.5 kbps") == 2500.0
    assert parse_time("250us") == pytest.approx(2.5e-4) and parse_time("250µs") == pytest.approx(2.5e-4)
    assert parse_time("1h") == 3600.0 and parse_time("0") == 0.0
    assert parse_size("1MiB") == 1 << 20 and parse_size("1.5kB") == 1500
    assert parse_duration("100MS") == pytest.approx(0.1)  # units are case-insensitive
    assert all(parse_time(f"2{u}") == pytest.approx(2 * f) for u, f in TIME_UNITS.items())


@pytest.mark.parametrize(
    ("text", "why"),
    [("0", "must be positive"), ("0ms", "must be positive"), ("-1s", "must be positive"), ("1e999s", "too large to be a number"),
     ("1e12s", "at most 1.84e\\+10 s")],
)
def test_duration_must_be_positive_and_finite(text: str, why: str) -> None:
    """Issue 13: each message says what is wrong with the value (a sign, a size), not
    that the text is not a number with a unit."""
    with pytest.raises(ParameterError, match=rf"invalid parameter rtt = '{text}': {why}"):
        parse_duration(text, "rtt")
    with pytest.raises(ParameterError, match="must not be negative"):
        parse_time("-5ms", "delay")


def test_errors_name_parameter_and_value() -> None:
    with pytest.raises(ParameterError, match=r"invalid parameter slot = '10 parsecs': expected a number with a unit"):
        parse_time("10 parsecs", "slot")
    with pytest.raises(ParameterError, match=r"invalid parameter rate = '-1Mbit'"):
        parse_rate("-1Mbit")


def test_click_type_names_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["predict", "--p", "0.01", "--rtt", "soon"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "'--rtt'" in err and "'soon': expected a number with a unit" in err
