"""Turn an ``--impl`` value into an :class:`Adapter`, or explain why not."""

from __future__ import annotations

import importlib
import shlex
import shutil
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from stspec_conformance._capabilities import CapabilityError

if TYPE_CHECKING:
    from stspec_conformance._limits import Limits
    from stspec_conformance.adapters._base import Adapter, InProcessAdapter


class ImplError(Exception):
    """``--impl`` names nothing usable; the message says what was tried."""


BUILTINS = ("reference", "safetensors")


def _why(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(exc)).strip()


def resolve(
    spec: str,
    *,
    memory_limit: int | None = None,
    limits: Limits | None = None,
    isolate: bool = False,
) -> Adapter:
    """Resolve ``spec`` (see the README for the forms) into an adapter.

    ``memory_limit`` is a command's own share of memory (bytes, on top of
    each file's allowance); ``limits`` the run's CPU, wall and memory
    settings; ``isolate`` runs a Python implementation in a fork server
    (:mod:`stspec_conformance._isolation`) where the platform can fork.
    """
    spec = spec.strip()
    if not spec:
        raise ImplError("--impl is empty")
    if spec.startswith("cmd:"):
        return _command(spec, memory_limit, limits)
    if isolate:
        from stspec_conformance import _isolation, _limits  # noqa: PLC0415

        if _isolation.available():
            return _isolation.IsolatedAdapter(spec, limits=limits or _limits.Limits())
    return resolve_in_process(spec)


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


def _command(spec: str, memory_limit: int | None, limits: Limits | None) -> Adapter:
    from stspec_conformance.adapters.command import CommandAdapter  # noqa: PLC0415

    try:
        argv = shlex.split(spec[4:])
    except ValueError as exc:
        raise ImplError(
            f"--impl={spec}: cannot split the command line: {exc}"
        ) from None
    if not argv:
        raise ImplError(f"--impl={spec}: no program after 'cmd:'")
    program = argv[0]
    found = shutil.which(program)
    if found is None:
        raise ImplError(
            f"--impl={spec}: program {program!r} is "
            "neither on PATH nor an executable file"
        )
    try:
        return CommandAdapter(argv, memory_limit=memory_limit, limits=limits)
    except CapabilityError as exc:
        raise ImplError(f"--impl={spec}: {exc}") from None


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
