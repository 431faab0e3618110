"""Settings that run but would silently mean something other than what they say. Each
check returns the one warning line to show (or None); the caller warns (``burstlab.sim``
with :class:`burstlab.sim.LossModeWarning`, the CLI and scenario files on stderr). The
choices are written down in docs/simulator.md ("Settings that warn").

- A model that follows time (on-off, continuous-time Markov, semi-Markov, VDDP) in packet
  mode reads its sojourn times, given in seconds, as numbers of packets: ``onoff:good=1.8,
  bad=0.2`` in packet mode is a channel that changes state every one or two packets, and a
  bulk transfer over it may never end. burstlab keeps packet mode the default for every
  model (a run's meaning does not change with the model's name) and says so.
- A link with a link layer (ARQ, LL-HARQ) is timed by the link layer, frame by frame: its
  ``rate`` is not read (the link layer's PHY rate, e.g. ``arq:dcf_rate=2Mbit``, is).
- A hop whose capacity is a Mahimahi trace and that gives no reverse direction sends its
  ACKs over the same trace: for a Mahimahi ``.down`` file, the uplink is the ``.up`` file
  beside it, which ``[hop.reverse] capacity = "….up"`` names.
"""

from __future__ import annotations

#: Loss models (by their core name) whose parameters are times in seconds, and the spec
#: name a user writes for each (docs/loss-models.md).
TIME_MODEL_SPECS = {"markov-ct": "ctmc", "on-off": "onoff", "semi-markov": "semi", "semi-markov-on-off": "semi", "vddp": "vddp"}


def time_model_in_packet_mode(where: str, model_name: str | None, mode: str) -> str | None:
    """The warning for a time model consulted per packet (None when the pair is sound)."""
    if mode != "packet" or model_name not in TIME_MODEL_SPECS:
        return None
    spec = TIME_MODEL_SPECS[model_name]
    return (f"{where}: the loss model {spec} follows time (its parameters are seconds) but is asked per packet, so each "
            f"second is read as one packet; give --loss-mode time (loss_mode = \"time\") to run it in time")  # fmt: skip


def link_layer_ignores_rate(where: str, layer: str) -> str:
    """The warning for a ``rate`` given to a link that a link layer times."""
    kind = layer.split(":", 1)[0].strip() or "the link layer"
    return (f"{where}: rate is not used on a link with a link layer ({kind} times each frame itself, with 802.11 DCF timing "
            f"at its dcf_rate unless told otherwise: e.g. {kind}:dcf_rate=2Mbit; docs/link-layer.md)")  # fmt: skip


def reverse_reuses_downlink(where: str, capacity: str, has_reverse: bool) -> str | None:
    """The warning for a hop whose ACKs would ride its Mahimahi downlink trace while the
    uplink trace (``.up``) lies beside it (None when a reverse direction is given, or the
    trace is not a ``.down`` file with an ``.up`` beside it)."""
    import os

    up = str(capacity)[: -len(".down")] + ".up"
    if has_reverse or not str(capacity).endswith(".down") or not os.path.exists(up):
        return None
    return (f"{where}: the reverse direction (the ACKs) reuses the downlink trace {capacity}; for the measured uplink give "
            f"[hop.reverse] capacity = \"{up}\" (docs/simulator.md)")  # fmt: skip


__all__ = ["TIME_MODEL_SPECS", "link_layer_ignores_rate", "reverse_reuses_downlink", "time_model_in_packet_mode"]
