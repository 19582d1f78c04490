"""The Hypothesis settings of the slow property tests: derandomized, no deadline, as many examples as asked."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def property_settings(max_examples: int) -> settings:
    """`max_examples` examples, the same ones every run (derandomize), however long each takes on
    Spark (no deadline, no too_slow health check), with fixtures allowed in @given tests."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
