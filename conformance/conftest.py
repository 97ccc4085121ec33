"""Load the conformance plugin for ``pytest conformance --impl=X`` from a checkout."""

pytest_plugins = ["stspec_conformance.plugin"]
