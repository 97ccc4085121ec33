"""A reader with implementation limits it declares (SPEC 1.6).

It supports files up to 2 GiB and tensors up to 1 GiB and refuses larger
ones as unsupported, so the 4 GiB case is not applicable to it.  A stand-in
module that lowers ``REFUSE_ABOVE`` refuses small valid files too, which the
declared limits do not excuse.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Loaded, strict_load

__all__ = ["CAPABILITIES", "load"]

FILE_LIMIT = 2**31
CAPABILITIES = {"max_file_size": FILE_LIMIT, "max_tensor_size": 2**30}
# a stand-in module sets this to refuse every file above a few bytes
REFUSE_ABOVE = FILE_LIMIT


class UnsupportedError(ValueError):
    """The file is beyond this reader's limits (not invalid)."""


def load(path: str) -> Loaded:
    size = Path(path).stat().st_size
    if size > REFUSE_ABOVE:
        raise UnsupportedError(f"unsupported: {size} bytes, above {REFUSE_ABOVE}")
    return strict_load(path)
