"""Shared fixtures: where the real data lives (``$BURSTLAB_SHARED``, default ``../shared``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    return Path(os.environ.get("BURSTLAB_SHARED", REPO.parent / "shared")).resolve()


@pytest.fixture(scope="session")
def shared() -> Path:
    d = shared_dir()
    if not (d / "data").is_dir():
        pytest.skip(f"shared data not found at {d} (set BURSTLAB_SHARED)")
    return d
