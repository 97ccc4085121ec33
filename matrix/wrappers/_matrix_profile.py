"""pytest plugin: the hypothesis profile the matrix runs the suite under.

The suite's own ``stspec-ci`` profile (25 derandomised examples) without the
shrink phase: a property that fails still fails on the same example, but the
matrix does not spend hundreds of extra calls (one process each for a
``cmd:`` program) minimising it.  The failure messages then show unshrunk
examples; run the suite itself for minimal ones.
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
