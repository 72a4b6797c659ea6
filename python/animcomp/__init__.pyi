from ._core import (
    ADDITIVE_FORMATS as ADDITIVE_FORMATS,
    CODECS as CODECS,
    LEVELS as LEVELS,
    Blob as Blob,
    Clip as Clip,
    Measurement as Measurement,
    TierBudgetPlan as TierBudgetPlan,
    TierMeasurement as TierMeasurement,
    compress as compress,
    compress_tiered as compress_tiered,
    compress_tiered_budget as compress_tiered_budget,
    load as load,
    load_all as load_all,
    measure as measure,
    measure_tiers as measure_tiers,
    plan_tier_budget as plan_tier_budget,
    tier_candidates as tier_candidates,
)
from ._errors import (
    ArgumentError as ArgumentError,
    BlobError as BlobError,
    ClipError as ClipError,
    Error as Error,
    InputError as InputError,
    InternalError as InternalError,
    LoadError as LoadError,
)
from . import batch as batch, cache as cache

__version__: str
BLOB_FORMAT_VERSION: int
BLOB_FORMAT_VERSION_GROUPED: int

def is_supported(path: str) -> bool: ...
