"""The Trace type: numpy in/out, packed words, intervals and timestamps."""

from __future__ import annotations

import numpy as np
import pytest

from burstlab import ParameterError, Trace


def test_numpy_round_trip_and_bool_input() -> None:
    v = (np.arange(1000) % 7 < 3).astype(np.uint8)
    t = Trace(v)
    assert len(t) == 1000
    assert np.array_equal(t.to_numpy(), v)
    assert Trace(v.astype(bool)) == t
    assert Trace(v.astype(np.int64)) == t


def test_packed_words_are_a_readonly_view_and_round_trip() -> None:
    rng = np.random.default_rng(3)
    v = rng.integers(0, 2, 1000, dtype=np.uint8)
    t = Trace(v)
    w = t.packed()
    assert w.dtype == np.uint64 and w.size == 16
    assert not w.flags.writeable
    assert w.base is not None  # a view kept alive by the trace, not a copy
    assert t.packed().__array_interface__["data"][0] == w.__array_interface__["data"][0]
    assert Trace.from_packed(w, 1000) == t
    # np.packbits(bitorder="little") bytes are the same layout.
    assert Trace.from_packed(np.packbits(v, bitorder="little"), 1000) == t
    del t
    assert np.array_equal(np.unpackbits(w.view(np.uint8), bitorder="little")[:1000], v)


def test_bad_bits_and_parameters() -> None:
    with pytest.raises(ParameterError, match="0 or 1"):
        Trace([0, 1, 2])
    with pytest.raises(ParameterError, match="1-D"):
        Trace(np.zeros((2, 2)))
    with pytest.raises(ParameterError, match="interval"):
        Trace([1, 0], interval=-0.1)
    with pytest.raises(ParameterError, match="interval"):
        Trace([1, 0], interval=0.1, timestamps=[0.0, 1.0])
    with pytest.raises(ParameterError, match="earlier"):
        Trace([1, 0, 1], timestamps=[0.0, 2.0, 1.0])
    with pytest.raises(ParameterError, match="bytes"):
        Trace.from_packed(np.zeros(3, dtype=np.uint8), 100)


def test_times_slicing_and_equality() -> None:
    t = Trace([1, 1, 0, 1], interval=0.5, name="x", meta={"k": 1})
    assert np.allclose(t.times(), [0, 0.5, 1.0, 1.5])  # type: ignore[arg-type]
    s = t[1:3]
    assert s.to_numpy().tolist() == [1, 0] and s.interval == 0.5
    s.meta["k"] = 2
    assert t.meta["k"] == 1
    ts = Trace([1, 0], timestamps=[0.0, 0.25])
    assert np.array_equal(ts[1:].times(), [0.25])  # type: ignore[arg-type]
    assert Trace([1, 0]) != ts
    assert Trace([1, 0]).times() is None
