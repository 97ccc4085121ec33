"""Load a matrix wrapper module by path, as the matrix runs it: beside its helpers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["WRAPPERS", "load_wrapper"]

WRAPPERS = Path(__file__).resolve().parents[2] / "matrix" / "wrappers"


def load_wrapper(file: str) -> ModuleType:
    """Import ``matrix/wrappers/FILE`` under a test-only name (helpers importable)."""
    sys.path.insert(0, str(WRAPPERS))  # wrappers import _spec, _listing, ...
    try:
        spec = importlib.util.spec_from_file_location(
            f"{Path(file).stem}_under_test", WRAPPERS / file
        )
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(WRAPPERS))
    return module
