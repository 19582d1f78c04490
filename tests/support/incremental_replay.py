"""One replay of the sensor readings and the clicks through the five incremental example models,
which the sensor replay test (test_incremental.py), the session replay test
(test_incremental_sessions.py) and the crash test (test_incremental.py) each check.

Each run is one `dbt run --select raw_sensor_readings+ raw_clicks+` with the rows that arrived by
a cut-off (CUTS), as a scheduled build runs every model of a project; the tables are read after
each. Then the session model's data tests run on the tables the runs built, and one
`--full-refresh` of all five models at the last cut-off is read too.

On an embedded Spark (the `local` and `iceberg` targets) the runs are those of a scheduler whose process
dies: driver processes (incremental_driver.py) on a state folder of their own, each killed
(SIGKILL, its Spark with it) at a random point of a run, and the next process runs that cut-off
again and goes on. The tables are read after every run that ended, the run after a kill
included, so each kill is checked where it happened. On other targets the runs are those of this
process, on its warehouse, none killed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from incremental_cases import CUTS
from incremental_driver import RUN, arrived, finish_replay, replay_tables

from dev.dbt_harness import run_dbt
from dev.project import PROJECT_DIR

DRIVER = PROJECT_DIR / "tests" / "support" / "incremental_driver.py"
# runs killed in one replay, each in a process of its own; the first two runs are never killed
# (the second measures how long a run of a warm Spark takes), nor is the run with nothing new
# (CUTS repeats 08:20), which ends before most kill times
KILLS = 4


@dataclass
class Kill:
    cut: str  # the cut-off of the run killed
    after: float  # seconds after the run started
    landed: bool  # the process was still running (False: the run had ended, nothing was killed)


@dataclass
class Replay:
    runs: list[tuple[str, dict]] = field(default_factory=list)  # (cut-off, every table after its run)
    refreshed: dict = field(default_factory=dict)  # every table after --full-refresh at CUTS[-1]
    kills: list[Kill] = field(default_factory=list)
    seed: int | None = None  # of the kills' random points (SPARK_WINDOWS_CRASH_SEED repeats them)

    def killed(self) -> str:
        """For a failure's message: the runs killed, and how to kill them again."""
        if not self.kills:
            return ""
        cuts = ", ".join(
            f"{kill.cut} at {kill.after:.1f} s" + ("" if kill.landed else " (ended first)") for kill in self.kills
        )
        return f"; runs killed: {cuts} (SPARK_WINDOWS_CRASH_SEED={self.seed})"


def replay(rows_of, schema: str) -> Replay:
    """The replay in this process, on the warehouse of the test session (no run killed)."""
    done = Replay()
    for index, cut in enumerate(CUTS):
        run_dbt(RUN + (["--full-refresh"] if index == 0 else []), env=arrived(cut))
        done.runs.append((cut, replay_tables(rows_of, schema)))
    finish_replay(CUTS[-1])
    done.refreshed = replay_tables(rows_of, schema)
    return done


def replay_with_kills(folder: Path, seed: int, target: str = "local") -> Replay:
    """The replay in driver processes on a state folder in `folder`, KILLS of its runs killed at
    random points: each at a time drawn between 0.5 s and the longest run of a warm Spark so far,
    after the run starts. `target`: an embedded target of profiles/profiles.yml."""
    rng = random.Random(seed)
    candidates = [index for index in range(2, len(CUTS)) if CUTS[index] != CUTS[index - 1]]
    killed = sorted(rng.sample(candidates, KILLS))
    dumps = folder / "tables"
    dumps.mkdir(parents=True)
    done = Replay(seed=seed)
    warm: list[float] = []
    first = 0
    for last in [*killed, None]:
        cuts = CUTS[first:] if last is None else CUTS[first : last + 1]
        options = ["--dumps", str(dumps), "--first-run", str(first)]
        if first == 0:
            options += ["--seed", "--full-refresh"]
        # the last driver finishes at the last cut-off, also with no run left (the last run was
        # killed once it had ended)
        finish = ["--finish", CUTS[-1]] if last is None else []
        process = _driver(folder / "state", "--target", target, *options, *finish, "--until", *cuts)
        durations: list[float] = []
        if last is None:
            durations = _finish(process)
        else:
            done.kills.append(_kill_in_last_run(process, cuts, durations, rng, warm))
        # a driver's first run starts its Spark (the first of all also seeds): not a warm run
        warm += durations[1:]
        ended = first + len(durations)
        for index in range(first, ended):
            done.runs.append((CUTS[index], json.loads((dumps / f"run-{index}.json").read_text())))
        first = ended
    done.refreshed = json.loads((dumps / "refreshed.json").read_text())
    return done


def crash_seed() -> int:
    return int(os.environ.get("SPARK_WINDOWS_CRASH_SEED", random.randrange(1_000_000)))


def _driver(state_dir: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(DRIVER), "--state-dir", str(state_dir), *args],
        cwd=PROJECT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _finish(process: subprocess.Popen) -> list[float]:
    """Waits for a driver that is not killed; returns how long its runs took."""
    output, _ = process.communicate(timeout=1800)
    assert process.returncode == 0, output[-4000:]
    return [float(line.split()[-1]) for line in output.splitlines() if line.startswith("DONE ")]


def _kill_in_last_run(
    process: subprocess.Popen, cuts: list[str], durations: list[float], rng: random.Random, warm: list[float]
) -> Kill:
    """Follows a driver given `cuts`; once its last run starts, waits a time drawn between 0.5 s
    and the longest of the `warm` runs (or of this driver's runs after its first) and kills its
    whole process group, Spark included. `durations` receives the runs that ended; every run
    before the last must end. A kill that comes once the last run has ended (the process
    writing its tables or exiting) kills no run: that run counts as ended."""
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("DONE "):
            durations.append(float(line.split()[-1]))
        if line.startswith("START ") and len(durations) == len(cuts) - 1:
            break
    else:
        process.wait(timeout=60)
        raise AssertionError(f"the driver stopped before its last run started: {''.join(lines)[-4000:]}")
    after = rng.uniform(0.5, max(warm or durations[1:]))
    time.sleep(after)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    output, _ = process.communicate(timeout=60)
    ended = [line for line in output.splitlines() if line.startswith("DONE ")]
    if ended:
        durations.append(float(ended[-1].split()[-1]))
    assert process.returncode in (0, -signal.SIGKILL), "".join(lines)[-2000:] + output[-2000:]
    return Kill(cuts[-1], after, landed=not ended)
