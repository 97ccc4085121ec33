"""The spec version this package implements, and the package's own version.

The package version is ``SPEC_VERSION`` plus a patch number: ``1.0.x`` releases
all implement spec 1.0, and a new spec version starts a new minor (or major)
line, so ``pip install "safetensors-spec~=1.0.0"`` pins the rules being tested.
"""

SPEC_VERSION = "1.0"
__version__ = "1.0.0"
