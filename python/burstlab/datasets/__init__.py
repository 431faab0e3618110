"""Named readers for real datasets under ``$BURSTLAB_SHARED/data`` (default ``../shared``).

One module per dataset (e.g. :mod:`burstlab.datasets.rutgers_noise`, re-exported as
:func:`burstlab.datasets.rutgers`).
"""

from __future__ import annotations

import os
from pathlib import Path


def shared_root() -> Path:
    """The shared folder: ``$BURSTLAB_SHARED`` or ``../shared`` relative to the working directory."""
    return Path(os.environ.get("BURSTLAB_SHARED", "../shared")).resolve()


from burstlab.datasets.rutgers_noise import rutgers  # noqa: E402  (needs shared_root)

__all__ = ["rutgers", "shared_root"]
