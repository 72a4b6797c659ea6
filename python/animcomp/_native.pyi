"""Type hints of the compiled module ``animcomp._native`` (PyO3). Use the ``animcomp`` API
instead: it checks arguments and wraps these in ``Clip`` and ``Blob``."""

from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

__version__: str
LIBRARY_VERSION: str
BLOB_FORMAT_VERSION: int
BLOB_FORMAT_VERSION_GROUPED: int
BLOB_ALIGNMENT: int

def load(path: str, resample: Optional[float] = None) -> List[Dict[str, Any]]:
    """Every take of a file as a dict of arrays (name, sample_rate, rotations, translations,
    scales, parents, joint_names, curves, curve_names, units). Raises ``LoadError``."""

def compress(
    clip: Any,
    codec: str = "auto",
    precision: float = 0.01,
    shell: float = 3.0,
    level: Optional[str] = None,
    curve_precision: float = 0.001,
    additive: Optional[str] = None,
    base: Any = None,
) -> bytes:
    """The blob of a clip (any object with the ``Clip`` attributes, float32 C-contiguous)."""

def regroup(data: bytes) -> bytes:
    """A `vbr` blob of format version 2 (or one already grouped) in the grouped layout."""

class Handle:
    """A validated copy of a blob in 16-byte aligned memory."""

    def __init__(self, data: bytes) -> None: ...
    def info(self) -> Dict[str, Any]: ...
    def sample(self, t: float, looping: str = "clamp") -> npt.NDArray[np.float32]: ...
    def sample_many(
        self, times: npt.NDArray[np.float64], looping: str = "clamp"
    ) -> npt.NDArray[np.float32]: ...
    def sample64(self, t: float, looping: str = "clamp") -> npt.NDArray[np.float64]: ...
    def sample_many64(
        self, times: npt.NDArray[np.float64], looping: str = "clamp"
    ) -> npt.NDArray[np.float64]: ...
    def sample_curves(self, t: float, looping: str = "clamp") -> npt.NDArray[np.float32]: ...
    def to_bytes(self) -> bytes: ...
    def attach(self, data: bytes) -> int: ...
    def detach(self, level: int) -> Optional[bytes]: ...
    def attached(self) -> List[int]: ...
    def address(self) -> int: ...

def measure(
    clip: Any,
    handle: Handle,
    precision: float = 0.01,
    shell: float = 3.0,
    base: Any = None,
) -> Tuple[float, float, npt.NDArray[np.float32], int, int]:
    """(max, p99, per-joint max, worst joint, worst sample) by the library's metric."""

def compress_tiered(
    clip: Any,
    precision: float = 0.01,
    shell: float = 3.0,
    level: Optional[str] = None,
    levels: int = 2,
    resident_factor: float = 10.0,
    medium_factor: float = 3.0,
) -> Tuple[bytes, List[bytes]]:
    """(resident blob, tier blobs level 1 first) of a clip compressed with quality tiers."""

def measure_tiers(
    clip: Any,
    handle: Handle,
    tiers: List[bytes],
    precision: float = 0.01,
    shell: float = 3.0,
) -> List[Tuple[int, float, float]]:
    """(bytes, max, p99 in float64) per fidelity: resident, + level 1, ... ."""

def is_supported(path: str) -> bool: ...
def status_message(status: int) -> str: ...
def status_name(status: int) -> str: ...
