"""The safetensors conformance suite: a pytest plugin, adapters and strategies.

Run it with ``pytest conformance --impl=X`` from a checkout, or with
``pytest --pyargs stspec_conformance --impl=X`` once installed; ``X`` is
``reference``, ``safetensors``, an importable module, a ``.py`` file or
``cmd:PROGRAM ARGS...``.  The README's "The conformance suite" section is the
contract.
"""

from __future__ import annotations

from stspec import _version

__all__ = ["SUITE_VERSION", "__version__"]

__version__ = _version.__version__  # one version for the whole distribution
SUITE_VERSION = "1"
