"""Run the ``stspec`` command as ``python -m stspec``."""

from stspec._cli import main

raise SystemExit(main())
