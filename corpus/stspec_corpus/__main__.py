"""``python -m stspec_corpus``: generate, check, coverage, lint, materialise."""

import sys

from stspec_corpus._cli import main

sys.exit(main())
