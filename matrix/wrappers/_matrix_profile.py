"""pytest plugin: the hypothesis profile the matrix runs the suite under.

The suite's own default, ``stspec-ci`` (25 derandomised examples, no shrink
phase), under a name of its own so that the matrix's settings stay fixed: a
property that fails still fails on the same example, without hundreds of
extra calls (one process each for a ``cmd:`` program) minimising it.  Run
the suite with ``--hypothesis-profile=stspec-shrink`` for minimal examples.
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "stspec-matrix",
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
