"""Load the conformance plugin for ``pytest conformance --impl=X`` from a checkout."""

# the entry point module (already registered under this name when the package
# is installed); it loads stspec_conformance.plugin when the run asks for it
pytest_plugins = ["stspec_conformance._entry"]
