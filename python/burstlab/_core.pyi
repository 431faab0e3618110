# Hand-written stub of the compiled module burstlab._core; tests/test_stubs.py keeps it
# in sync with the extension via mypy.stubtest.
import os
from typing import Any, final

import numpy as np
import numpy.typing as npt

__version__: str
ENGINE_FINGERPRINT: str
__all__ = [
    "ENGINE_FINGERPRINT",
    "BitTrace",
    "BitTraceBuilder",
    "SeqListBuilder",
    "parse_text",
    "parse_file",
    "read_mahimahi",
    "write_text",
    "available_memory",
    "LossModel",
    "BurstlabError",
    "EmptyInputError",
    "ParameterError",
    "TraceFormatError",
    "__version__",
    "simulate",
    "simulate_trace",
    "red_params",
    "loss_specs",
    "read_loss_spec",
    "codel_params",
    "tcp_params",
    "tcp_profile",
    "tcp_profiles",
    "tcp_settings",
    "simulate_network",
    "check_link_layer",
    "rate_adapt_params",
    "link_layer_params",
    "link_measure",
    "wifi_timing",
    "phy_frame_error",
    "phy_chunk_success",
    "phy_modes",
    "phy_loss_model",
    "shell_forward",
    "phy_rate_measure",
]

class BurstlabError(ValueError): ...
class ParameterError(BurstlabError): ...
class TraceFormatError(BurstlabError): ...
class EmptyInputError(BurstlabError): ...

@final
class BitTrace:
    @staticmethod
    def from_numpy(bits: npt.NDArray[np.uint8]) -> BitTrace: ...
    @staticmethod
    def from_words(words: npt.NDArray[np.uint64], length: int) -> BitTrace: ...
    @staticmethod
    def filled(length: int, value: bool) -> BitTrace: ...
    @staticmethod
    def from_str01(s: str) -> BitTrace: ...
    def __len__(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def to_numpy(self) -> npt.NDArray[np.uint8]: ...
    def words(self) -> npt.NDArray[np.uint64]: ...
    def count_ones(self) -> int: ...
    def summary(self, chunk: int, prefixes: npt.NDArray[np.uint64]) -> dict[str, Any]: ...
    def transitions(self, start: int = 0, end: int | None = None) -> tuple[int, int, int, int]: ...
    def run_histograms(
        self,
    ) -> tuple[
        tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]], tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]
    ]: ...
    def chunk_rms(self, chunk: int) -> float | None: ...
    def run_lengths(self, value: bool) -> npt.NDArray[np.uint64]: ...
    def prefix_mu(self, lengths: npt.NDArray[np.uint64]) -> npt.NDArray[np.float64]: ...
    def chunk_mu(self, chunk: int) -> npt.NDArray[np.float64]: ...
    def slice(self, start: int, end: int) -> BitTrace: ...
    def inverted(self) -> BitTrace: ...

# -- text trace parsing (crates/burstlab-py/src/trace.rs); burstlab.io wraps it ----------
def parse_text(
    data: bytes,
    format: str,
    file: str = "<input>",
    one_means_lost: bool = False,
    expected: int | None = None,
    drop_beyond: bool = False,
) -> tuple[BitTrace, int, int, int, int | None, bool]: ...
def parse_file(
    path: str | os.PathLike[str],
    format: str,
    file: str | None = None,
    one_means_lost: bool = False,
    expected: int | None = None,
    drop_beyond: bool = False,
) -> tuple[BitTrace, int, int, int, int | None, bool]: ...
def read_mahimahi(path: str | os.PathLike[str], file: str | None = None) -> npt.NDArray[np.uint64]: ...
def available_memory() -> int | None: ...
def write_text(trace: BitTrace, path: str | os.PathLike[str], format: str, one_means_lost: bool = False) -> None: ...
@final
class BitTraceBuilder:
    def __new__(cls) -> BitTraceBuilder: ...
    def extend(self, bits: npt.NDArray[np.uint8]) -> None: ...
    def __len__(self) -> int: ...
    def finish(self) -> BitTrace: ...

@final
class SeqListBuilder:
    def __new__(cls, file: str, expected: int | None = None, drop_beyond: bool = False) -> SeqListBuilder: ...
    def add(self, seqs: npt.NDArray[np.uint64], first: int, rows: bool = False) -> None: ...
    def finish(self) -> tuple[BitTrace, int, int, int, int | None]: ...

@final
class LossModel:
    @staticmethod
    def bernoulli(p: float) -> LossModel: ...
    @staticmethod
    def bit_errors(ber: float, packet_bytes: int = 1028, overhead_bytes: int = 0) -> LossModel: ...
    @staticmethod
    def gilbert_elliott(b: float, g: float, h_loss: float = 1.0, k_loss: float = 0.0) -> LossModel: ...
    @staticmethod
    def gilbert_elliott_prr_mu(prr: float, mu: float) -> LossModel: ...
    @property
    def name(self) -> str: ...
    def mean_loss(self) -> float | None: ...
    def sample(self, n: int, seed: int) -> BitTrace: ...
    @staticmethod
    def deterministic(drops: list[int], period: int | None = None) -> LossModel: ...
    @staticmethod
    def markov_ct(
        mean_good: float, mean_bad: float, loss_good: float = 0.0, loss_bad: float = 1.0, packet_interval: float = 0.001
    ) -> LossModel: ...
    @staticmethod
    def on_off(mean_good: float, mean_bad: float, packet_interval: float = 0.001) -> LossModel: ...
    @staticmethod
    def semi_markov(
        good: dict[str, Any],
        bad: dict[str, Any],
        loss_good: float = 0.0,
        loss_bad: float = 1.0,
        temporal: bool = False,
        packet_interval: float = 0.001,
    ) -> LossModel: ...
    @staticmethod
    def vddp(
        mean_a: float,
        mean_b: float,
        drop_a: float,
        drop_b: float,
        cycle_a: float,
        cycle_b: float,
        packet_interval: float = 0.001,
    ) -> LossModel: ...
    @staticmethod
    def replay(trace: BitTrace, end: str = "wrap", slot: float | None = None) -> LossModel: ...
    @staticmethod
    def keyed_replay(flow: npt.NDArray[np.uint32], kind: npt.NDArray[np.uint8], num: npt.NDArray[np.uint64],
                     tx: npt.NDArray[np.uint32], lost: npt.NDArray[np.bool_], otherwise: LossModel | None = None) -> LossModel: ...
    @staticmethod
    def hmm(transmat: list[list[float]], startprob: list[float], loss: list[float]) -> LossModel: ...
    @staticmethod
    def run_length(success: dict[str, Any], burst: dict[str, Any]) -> LossModel: ...
    @staticmethod
    def hsmm(jump: list[list[float]], start: list[float], durations: list[dict[str, Any]], loss: list[float]) -> LossModel: ...
    @staticmethod
    def bootstrap(trace: BitTrace, mean_block: float) -> LossModel: ...
    def time_loss_fraction(self) -> float | None: ...
    def lost_in_transit_many(
        self, starts: npt.NDArray[np.float64], ends: npt.NDArray[np.float64], seed: int
    ) -> npt.NDArray[np.bool_]: ...
    def lost_packets_many(self, n: int, seed: int) -> npt.NDArray[np.bool_]: ...

# -- simulator (crates/burstlab-py/src/sim.rs); burstlab.sim wraps these --------------
def simulate(
    config: dict[str, object], forward_loss: LossModel | None = None, reverse_loss: LossModel | None = None
) -> dict[str, object]: ...
def simulate_trace(trace: BitTrace, config: dict[str, object]) -> dict[str, object]: ...
def tcp_settings(config: dict[str, Any]) -> dict[str, Any]: ...
def tcp_params() -> list[dict[str, Any]]: ...
def red_params() -> list[dict[str, Any]]: ...
def loss_specs() -> list[dict[str, Any]]: ...
def read_loss_spec(text: str) -> tuple[str, dict[str, Any]]: ...
def codel_params() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]: ...
def tcp_profile(name: str, overrides: dict[str, Any]) -> dict[str, Any]: ...
def tcp_profiles() -> dict[str, dict[str, Any]]: ...
def simulate_network(
    config: dict[str, object],
    losses: list[LossModel | None],
    capacities: list[npt.NDArray[np.uint64] | None],
) -> dict[str, object]: ...

# -- link layer (crates/burstlab-py/src/linklayer.rs); burstlab.linklayer wraps it ---------
def link_measure(
    layer: dict[str, Any],
    loss: LossModel | None,
    mode: str,
    frames: int,
    frame_bytes: int,
    seed: int,
    quantiles: list[float],
) -> dict[str, Any]: ...
def wifi_timing(dcf: dict[str, Any], packet_bytes: int) -> dict[str, Any]: ...
def check_link_layer(layer: dict[str, Any]) -> None: ...
def rate_adapt_params() -> list[dict[str, Any]]: ...

# -- PHY error rates (crates/burstlab-py/src/phy.rs); burstlab.phy wraps them ----------------
def phy_frame_error(
    mode: str,
    snr_db: npt.NDArray[np.float64],
    psdu_bytes: int,
    ofdm: str = "nist",
    cck: str = "integral",
    oqpsk: str = "ns3",
    preamble: str = "long",
) -> npt.NDArray[np.float64]: ...
def phy_chunk_success(
    mode: str,
    snr: npt.NDArray[np.float64],
    nbits: float,
    ofdm: str = "nist",
    cck: str = "integral",
    oqpsk: str = "ns3",
) -> npt.NDArray[np.float64]: ...
def phy_modes() -> list[tuple[str, int]]: ...
def link_layer_params() -> dict[str, list[dict[str, Any]]]: ...
def phy_rate_measure(
    controller: str,
    snr: dict[str, object],
    frames: int,
    packet_bytes: int = 1000,
    max_attempts: int = 7,
    seed: int = 1,
    cck: str = "integral",
    rate_set: str = "b",
    ack_rates: str = "basic",
    rate_table: str = "distinct",
) -> dict[str, Any]: ...
def phy_loss_model(
    mode: str,
    psdu_bytes: int,
    snr: dict[str, object],
    packet_interval: float = 0.001,
    ofdm: str = "nist",
    cck: str = "integral",
    oqpsk: str = "ns3",
    preamble: str = "long",
) -> LossModel: ...

# -- burstlab shell's forwarder (crates/burstlab-py/src/shell.rs); burstlab.shell wraps it -----
def shell_forward(
    netns: str,
    inner: str,
    outer: str,
    uplink: dict[str, Any],
    downlink: dict[str, Any],
    stop_fd: int,
    ready_fd: int,
    log: bool = True,
    realtime: bool = True,
) -> dict[str, Any]: ...
