"""Small helpers shared by several modules."""

from __future__ import annotations

import math
import sys
from typing import Any


def json_safe(x: Any) -> Any:
    """``x`` made fit for strict JSON (``json.dumps(..., allow_nan=False)``): dicts, lists
    and tuples converted item by item, numpy scalars to Python ones, non-finite floats
    (NaN, ±Infinity, which JSON does not have) to ``None`` (``null``). Also used for CSV
    cells, where ``None`` is an empty field."""
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    np = sys.modules.get("numpy")  # no numpy scalar exists unless numpy was imported: do not import it here
    if np is not None and isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x
