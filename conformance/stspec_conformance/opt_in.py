"""Corpus cases the suite runs only when asked (public: reports leave them out).

The densest valid header, 1.8 M tensors, costs a reader and the suite's
comparison about a minute of CPU: it runs only with ``--dense-header``.
"""

from __future__ import annotations

from typing import Final

__all__ = ["OPT_IN_CASES"]

OPT_IN_CASES: Final = frozenset({"y_layout_dense_header_at_limit"})
