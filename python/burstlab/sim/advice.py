"""Settings that run but would silently mean something other than what they say. Each
check returns the one warning line to show (or None); the CLI (``burstlab sim``) and
scenario files show it on stderr. The choices are written down in docs/simulator.md
("Settings that warn").

- A model that follows time (``onoff``, ``ctmc``, ``semi``, ``vddp``: sojourn times in
  seconds) written as a spec string and asked per packet (the default ``loss_mode``) puts
  the n-th packet at n × ``interval`` (1 ms unless the spec says), not at the time the
  packet is on the channel: ``onoff:good=1.8,bad=0.2`` then loses runs of ~200 packets in a
  row whatever the link's rate, and a transfer over it may never end. burstlab keeps packet
  mode the default for every model (a run's meaning does not change with the model's name)
  and says so, unless the spec gives its ``interval`` (the packet spacing is then chosen, as
  a model fitted to a slotted trace does with its slot).
- A link with a link layer (ARQ, LL-HARQ) is timed by the link layer, frame by frame: its
  ``rate`` is not read (the link layer's PHY rate, e.g. ``arq:dcf_rate=2Mbit``, is).
- A hop whose capacity is a Mahimahi trace and that gives no reverse direction sends its
  ACKs over the same trace: for a Mahimahi ``.down`` file, the uplink is the ``.up`` file
  beside it, which ``[hop.reverse] capacity = "….up"`` names.
"""

from __future__ import annotations
import os

#: Spec names (docs/loss-models.md) of the models whose parameters are times in seconds.
TIME_MODEL_SPECS = ("onoff", "ctmc", "semi", "vddp")


def time_model_in_packet_mode(where: str, spec: object, mode: str) -> str | None:
    """The warning for a time model's spec string consulted per packet without its own
    ``interval`` (None when the setting is sound or ``spec`` is not a string)."""
    if mode != "packet" or not isinstance(spec, str):
        return None
    kind, _, body = spec.strip().partition(":")
    keys = {kv.split("=", 1)[0].strip().lower() for kv in body.split(",") if "=" in kv}
    if kind.strip().lower() not in TIME_MODEL_SPECS or "interval" in keys:
        return None
    return (f"{where}: {spec} follows time (its parameters are seconds) but is asked per packet, which places the n-th packet "
            f"at n × its interval (1 ms), not when the packet is sent; give --loss-mode time (loss_mode = \"time\") to ask it "
            f"about each packet's time on the channel, or interval= to choose the spacing")  # fmt: skip


def link_layer_ignores_rate(where: str, layer: str) -> str:
    """The warning for a ``rate`` given to a link that a link layer times."""
    kind = layer.split(":", 1)[0].strip() or "the link layer"
    return (f"{where}: rate is not used on a link with a link layer ({kind} times each frame itself, with 802.11 DCF timing "
            f"at its dcf_rate unless told otherwise: e.g. {kind}:dcf_rate=2Mbit; docs/link-layer.md)")  # fmt: skip


def reverse_reuses_downlink(where: str, capacity: str, has_reverse: bool) -> str | None:
    """The warning for a hop whose ACKs would ride its Mahimahi downlink trace while the
    uplink trace (``.up``) lies beside it (None when a reverse direction is given, or the
    trace is not a ``.down`` file with an ``.up`` beside it)."""
    up = str(capacity)[: -len(".down")] + ".up"
    if has_reverse or not str(capacity).endswith(".down") or not os.path.exists(up):
        return None
    return (f"{where}: the reverse direction (the ACKs) reuses the downlink trace {capacity}; for the measured uplink give "
            f"[hop.reverse] capacity = \"{up}\" (docs/simulator.md)")  # fmt: skip


__all__ = ["TIME_MODEL_SPECS", "link_layer_ignores_rate", "reverse_reuses_downlink", "time_model_in_packet_mode"]
