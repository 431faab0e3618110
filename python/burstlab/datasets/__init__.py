"""Named readers for real datasets under ``$BURSTLAB_SHARED/data`` (default ``../shared``).

One module per dataset (e.g. :mod:`burstlab.datasets.rutgers`, :mod:`burstlab.datasets.tossim`).
"""

from __future__ import annotations

import os
from pathlib import Path


def shared_root() -> Path:
    """The shared folder: ``$BURSTLAB_SHARED`` or ``../shared`` relative to the working directory."""
    return Path(os.environ.get("BURSTLAB_SHARED", "../shared")).resolve()
