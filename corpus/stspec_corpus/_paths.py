"""Where the corpus lives: the checkout's ``corpus/`` or the copy a wheel ships.

A wheel carries the committed corpus as ``stspec_corpus/data`` (setup.py copies
it there); a checkout, editable or not, keeps it in ``corpus/`` next to this
package.  Only the checkout is ever written to: an installed package is
read-only, and files written into site-packages would outlive ``pip
uninstall``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

PACKAGE: Final = Path(__file__).resolve().parent
SHIPPED: Final = PACKAGE / "data"
MANIFEST: Final = "manifest.json"
# The sha256 of the manifest this package generates, carried in the package so
# a manifest whose verdicts were edited is told from the real one.
DIGEST: Final = PACKAGE / "manifest.sha256"


def manifest_digest() -> str:
    """Return the sha256 of the manifest this package generates ("" if unknown)."""
    try:
        return DIGEST.read_text(encoding="ascii").strip()
    except OSError:
        return ""


def source_dir() -> Path | None:
    """Return the checkout's corpus/ directory, or None outside a checkout."""
    candidate = PACKAGE.parent
    if candidate.name == "corpus" and (candidate.parent / "pyproject.toml").is_file():
        return candidate
    return None


def default_dir() -> Path:
    """Return the corpus this package reads: the checkout's, else the shipped copy.

    Raises FileNotFoundError when neither exists (an installation without
    its data).
    """
    source = source_dir()
    if source is not None:
        return source
    if (SHIPPED / MANIFEST).is_file():
        return SHIPPED
    raise FileNotFoundError(
        f"no corpus: neither a checkout's corpus/ nor {SHIPPED} holds {MANIFEST}"
    )


def writable_dir() -> Path:
    """Return where ``generate()`` writes without a target: the checkout only.

    Raises ValueError outside a checkout: give the target explicitly.
    """
    source = source_dir()
    if source is None:
        raise ValueError(
            "outside a checkout the corpus is read-only: name a target directory "
            "(python -m stspec_corpus generate --out DIR)"
        )
    return source
