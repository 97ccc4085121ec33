"""Run the ``stspec`` command as ``python -m stspec``."""

from stspec.audit.cli import run

raise SystemExit(run())
