"""Turn an ``--impl`` value into an :class:`Adapter`, or explain why not."""

from __future__ import annotations

import shlex
import shutil
from typing import TYPE_CHECKING

from stspec_conformance._capabilities import CapabilityError
from stspec_conformance._limits import Limits
from stspec_conformance.adapters import isolated
from stspec_conformance.adapters._python import ImplError, resolve_in_process
from stspec_conformance.adapters.command import CommandAdapter

if TYPE_CHECKING:
    from stspec_conformance.adapters._base import Adapter

__all__ = ["ImplError", "resolve", "resolve_in_process"]


def resolve(
    spec: str,
    *,
    memory_limit: int | None = None,
    limits: Limits | None = None,
    isolate: bool = False,
) -> Adapter:
    """Resolve ``spec`` (the forms: docs/reference/python-adapter.md) to an adapter.

    ``memory_limit`` is a runtime's own share of memory (bytes, on top of
    each file's allowance: a command's, and the isolated worker's warm-up);
    ``limits`` the run's CPU, wall and memory settings; ``isolate`` runs a
    Python implementation in a fork server
    (:mod:`stspec_conformance.adapters.isolated`) where the platform can fork.
    """
    spec = spec.strip()
    if not spec:
        raise ImplError("--impl is empty")
    if spec.startswith("cmd:"):
        return _command(spec, memory_limit, limits)
    if isolate and isolated.available():
        return isolated.IsolatedAdapter(
            spec, limits=limits or Limits(), runtime_share=memory_limit
        )
    return resolve_in_process(spec)


def _command(spec: str, memory_limit: int | None, limits: Limits | None) -> Adapter:
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
