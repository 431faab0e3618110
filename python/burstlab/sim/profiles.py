"""The TCP profiles (``rfc``, ``ns3``, ``linux``, ``tossim``) as the core holds them: data, shared by
Rust, Python, the CLI and TOML. :meth:`burstlab.sim.TcpConfig.profile` builds a flow's settings
from one; ``docs/tcp.md`` gives each profile's sources.
"""

from __future__ import annotations

from typing import Any

from burstlab import _core


#: The profiles, as the core holds them (``crates/burstlab-core/src/tcp/profiles.rs``): name ->
#: the values it fixes, then ``computed``: {field: how it follows from the others}, and
#: ``cc_alias``: congestion controls it runs under another name. Sources: ``docs/tcp.md``.
PROFILES: dict[str, dict[str, Any]] = {
    name: {**p["fixed"], **({"computed": p["computed"]} if p["computed"] else {}), **({"cc_alias": p["cc_alias"]} if p["cc_alias"] else {})}
    for name, p in _core.tcp_profiles().items()
}
