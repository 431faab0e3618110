import json
import math

import numpy as np

from burstlab._util import json_safe


def test_json_safe_known_answer() -> None:
    x = {"a": math.nan, "b": [1.5, math.inf, -math.inf, np.float64(2.5)], "c": (np.int64(3), np.bool_(True)), "d": "s", "e": None}
    y = json_safe(x)
    assert y == {"a": None, "b": [1.5, None, None, 2.5], "c": [3, True], "d": "s", "e": None}
    assert type(y["b"][3]) is float and type(y["c"][0]) is int and type(y["c"][1]) is bool
    assert json.loads(json.dumps(y, allow_nan=False)) == y  # strict JSON accepts it


def test_json_safe_scalars() -> None:
    assert json_safe(np.float32(math.nan)) is None
    assert json_safe(0.25) == 0.25 and json_safe(7) == 7
