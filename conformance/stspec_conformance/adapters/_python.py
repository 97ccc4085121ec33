"""Resolve a Python implementation (built-in name, module, ``.py`` file) here."""

from __future__ import annotations

import importlib
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from stspec_conformance._capabilities import CapabilityError

if TYPE_CHECKING:
    from stspec_conformance.adapters._base import InProcessAdapter

__all__ = ["BUILTINS", "ImplError", "resolve_in_process"]


class ImplError(Exception):
    """``--impl`` names nothing usable; the message says what was tried."""


BUILTINS = ("reference", "safetensors")


def _why(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(exc)).strip()


def resolve_in_process(spec: str) -> InProcessAdapter:
    """Resolve a Python implementation (built-in name, module, .py path) here."""
    if spec == "reference":
        from stspec_conformance.adapters.reference import make_adapter  # noqa: PLC0415

        return make_adapter()
    if spec == "safetensors":
        try:
            from stspec_conformance.adapters.hf import make_adapter as make_hf  # noqa: PLC0415

            return make_hf()
        except ImportError as exc:
            raise ImplError(
                "--impl=safetensors: the Hugging Face "
                f"package is not installed ({_why(exc)})"
            ) from None
    if spec.startswith("cmd:"):
        raise ImplError(f"--impl={spec}: a command does not run in-process")
    return _module(spec)


def _module(spec: str) -> InProcessAdapter:
    from stspec_conformance.adapters.module import ModuleAdapter, import_path  # noqa: PLC0415

    tried = [f"built-in names {', '.join(BUILTINS)}"]
    if spec.endswith(".py") or "/" in spec or "\\" in spec:
        path = Path(spec)
        if not path.is_file():
            raise ImplError(
                f"--impl={spec}: no such file {str(path.resolve())!r} "
                f"(tried: {tried[0]}, a path to a .py file)"
            )
        try:
            module = import_path(path)
        except Exception as exc:  # noqa: BLE001 - reported as a usage error
            raise ImplError(
                f"--impl={spec}: importing {path} failed: {_why(exc)}"
            ) from None
        origin = str(path)
    else:
        try:
            module = importlib.import_module(spec)
        except Exception as exc:  # noqa: BLE001 - reported as a usage error
            raise ImplError(
                f"--impl={spec}: not one of the built-in "
                f"names ({', '.join(BUILTINS)}), "
                f"not a .py path, not cmd:..., and `import {spec}` failed: {_why(exc)}"
            ) from None
        origin = spec
    try:
        return ModuleAdapter(module, origin)
    except CapabilityError as exc:
        raise ImplError(f"--impl={spec}: {exc}") from None
    except TypeError as exc:
        raise ImplError(
            f"--impl={spec}: {exc}; an adapter module must define "
            "load(path) -> (tensors, metadata)"
        ) from None
