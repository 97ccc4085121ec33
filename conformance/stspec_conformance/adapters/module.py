"""Adapter for an importable module or a ``.py`` file defining ``load``.

The contract (see docs/reference/python-adapter.md):

``load(path: str) -> (tensors, metadata)``
    required; ``tensors`` maps each name to ``(dtype, shape, raw bytes)``,
    ``metadata`` is the ``__metadata__`` map or None; raise any Exception to
    reject the file.
``save(path, tensors, metadata) -> None``
    optional; present => the writer tests run.
``NAME``, ``VERSION``
    optional strings for the report header.
``classify(exc) -> str | None``
    optional; the spec rule id a rejection corresponds to (``--check-rules``).
``CAPABILITIES``
    optional dict declaring what the implementation does (dtypes it reads and
    writes, header-only, metadata presence; see
    :mod:`stspec_conformance._capabilities`).
``SAVE_DTYPES``
    older spelling of ``CAPABILITIES["write_dtypes"]``.
``REJECTS``
    optional exception type or tuple of types that mean "rejected"; with it,
    any other exception is a crash.  Without it, any ``Exception`` rejects
    except programming errors (``ImportError``, ``AttributeError``,
    ``NameError``, ``SyntaxError``, ``NotImplementedError``,
    ``AssertionError``, ``RecursionError``, ``MemoryError``, ``SystemError``).
``READ_REJECTS``, ``WRITE_REJECTS``
    the same, for ``load`` only and for ``save`` only; each defaults to
    ``REJECTS``.  A writer that refuses a bad request with the ``TypeError``
    of its binding while its reader's ``TypeError`` would be a bug declares
    ``WRITE_REJECTS = (MyError, TypeError)``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from typing import TYPE_CHECKING, Any, cast

from stspec_conformance._capabilities import CapabilityError, from_module
from stspec_conformance.adapters._base import (
    InProcessAdapter,
    RawTensors,
    content_from_raw,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from types import ModuleType

    from stspec_conformance._model import Content


class ModuleAdapter(InProcessAdapter):
    """Wraps a module that follows the minimal adapter contract."""

    def __init__(self, module: ModuleType, origin: str) -> None:
        load = getattr(module, "load", None)
        if not callable(load):
            raise TypeError(f"{origin} defines no callable load(path)")
        self._load: Callable[[str], Any] = load
        save = getattr(module, "save", None)
        self._save: Callable[..., Any] | None = save if callable(save) else None
        classify = getattr(module, "classify", None)
        self._classify: Callable[[BaseException], Any] | None = (
            classify if callable(classify) else None
        )
        self.name = str(getattr(module, "NAME", origin))
        self.version = str(getattr(module, "VERSION", "?"))
        self.capabilities = from_module(
            getattr(module, "CAPABILITIES", None),
            getattr(module, "SAVE_DTYPES", None),
            has_writer=self._save is not None,
            origin=origin,
        )
        both = rejects_of(getattr(module, "REJECTS", None), origin, "REJECTS")
        read = rejects_of(getattr(module, "READ_REJECTS", None), origin, "READ_REJECTS")
        write = rejects_of(
            getattr(module, "WRITE_REJECTS", None), origin, "WRITE_REJECTS"
        )
        self.rejects = both if read is None else read
        self.write_rejects = both if write is None else write
        self.module = module

    def load(self, path: str) -> Content:
        """Call the module's ``load`` and check what it returned."""
        return content_from_raw(
            self._load(path), header_only=self.capabilities.header_only
        )

    def save(
        self, path: str, tensors: RawTensors, metadata: Mapping[str, str] | None
    ) -> None:
        """Call the module's ``save``."""
        if self._save is None:  # pragma: no cover - guarded by can_save
            raise NotImplementedError
        self._save(path, dict(tensors), None if metadata is None else dict(metadata))

    def classify(self, exc: BaseException) -> str | None:
        """Call the module's ``classify`` hook, if any."""
        return (
            None if self._classify is None else cast("str | None", self._classify(exc))
        )


def rejects_of(
    declared: object, origin: str, attribute: str = "REJECTS"
) -> tuple[type[BaseException], ...] | None:
    """Check a module's ``REJECTS`` (or ``attribute``; None when absent)."""
    if declared is None:
        return None
    types = declared if isinstance(declared, tuple) else (declared,)
    wrong = [
        t for t in types if not (isinstance(t, type) and issubclass(t, BaseException))
    ]
    if wrong or not types:
        msg = (
            f"{origin}: {attribute} must be an exception type or a non-empty tuple "
            f"of them, got {declared!r:.100}"
        )
        raise CapabilityError(msg)
    return cast("tuple[type[BaseException], ...]", types)


def import_path(path: Path) -> ModuleType:
    """Import a ``.py`` file under a name derived from its full path."""
    resolved = path.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    name = f"_stspec_impl_{resolved.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {resolved}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
