"""The Spark settings every target must carry, in the project's profile and the consumer project's."""

from __future__ import annotations

import jinja2
import pytest
import yaml

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

PROFILES = [PROJECT_DIR / "profiles" / "profiles.yml", PROJECT_DIR / "integration_tests" / "consumer" / "profiles.yml"]


def outputs() -> list:
    return [
        pytest.param(output, id=f"{path.parent.name}-{target}")
        for path in PROFILES
        for profile in yaml.safe_load(path.read_text()).values()
        for target, output in profile["outputs"].items()
    ]


def unset(value: str) -> str:
    """A profile's value as dbt renders it where no environment variable is set."""
    return jinja2.Template(value).render(env_var=lambda name, default=None: default)


@pytest.mark.parametrize("output", outputs())
def test_every_target_pins_the_time_zone_and_writes_timestamps_parquet_can_skip_by(output):
    parameters = output["server_side_parameters"]
    # windows never depend on the machine's zone: UTC unless the profile's variable names another
    assert unset(parameters["spark.sql.session.timeZone"]) == "UTC"
    # Spark's default, INT96, has no statistics Parquet can skip files by: a run's filter on the
    # ingestion time would read every file of the input
    assert parameters["spark.sql.parquet.outputTimestampType"] == "TIMESTAMP_MICROS"


def test_the_consumer_profile_keeps_spark_quiet_without_a_file_of_this_repository():
    """Spark's own setting: a consumer has no log4j2 file of ours (each model printed several
    WARN SparkSession lines, and window_aggregate without group_by a WARN of its window)."""
    path = PROJECT_DIR / "integration_tests" / "consumer" / "profiles.yml"
    for profile in yaml.safe_load(path.read_text()).values():
        for output in profile["outputs"].values():
            assert output["server_side_parameters"]["spark.log.level"] == "ERROR"
