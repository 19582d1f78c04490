"""Fast tests of scripts/cluster.sh that start no Spark: what `stop` and `status` may touch."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

SCRIPT = PROJECT_DIR / "scripts" / "cluster.sh"


def cluster(command: str, state_dir, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env or {}), "SPARK_WINDOWS_CLUSTER_DIR": str(state_dir)}
    return subprocess.run(["bash", str(SCRIPT), command], capture_output=True, text=True, env=env, timeout=600)


def test_stop_leaves_alone_a_process_that_reuses_a_recorded_pid(tmp_path):
    stranger = subprocess.Popen(["sleep", "300"])  # as if the master's pid were reused after a reboot
    try:
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        (run_dir / "master.pid").write_text(f"{stranger.pid}\n")
        status = cluster("status", tmp_path)
        assert status.returncode == 1
        assert "master is not running" in status.stdout
        stopped = cluster("stop", tmp_path)
        assert stopped.returncode == 0, stopped.stderr
        assert "stopped" not in stopped.stdout
        assert stranger.poll() is None, "stop signalled a process it did not start"
        assert not (run_dir / "master.pid").exists()
    finally:
        stranger.kill()
        stranger.wait()


def test_stop_ends_a_process_that_names_the_state_folder(tmp_path):
    # stands in for a daemon the script started: its command line names the state folder
    ours = subprocess.Popen(["bash", "-c", "sleep 300; : " + str(tmp_path / "work")])
    try:
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        (run_dir / "worker1.pid").write_text(f"{ours.pid}\n")
        assert "worker1 runs" in cluster("status", tmp_path).stdout
        stopped = cluster("stop", tmp_path)
        assert f"stopped worker1 (pid {ours.pid})" in stopped.stdout, stopped.stdout + stopped.stderr
        assert ours.wait(timeout=30) is not None
    finally:
        ours.kill()
        ours.wait()


def test_a_daemon_replacing_its_program_still_counts_as_running(tmp_path):
    # spark-class execs java: while a process execs, the kernel shows an empty command line (read
    # about once in ten here, where a process execs in a loop), and `start` once took its master,
    # starting, for one that had exited; reading it through a pipe to `grep -q` failed too, about
    # once in sixty, when grep left before the writer was done
    again = tmp_path / "again.sh"
    again.write_text(f'exec bash "{again}" "{tmp_path / "work"}"\n')
    ours = subprocess.Popen(["bash", str(again), str(tmp_path / "work")])
    try:
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        (run_dir / "worker1.pid").write_text(f"{ours.pid}\n")
        for _ in range(40):
            status = cluster("status", tmp_path)
            assert "worker1 runs" in status.stdout, status.stdout + status.stderr
    finally:
        ours.kill()
        ours.wait()


def test_unknown_command_prints_the_usage(tmp_path):
    result = cluster("restart", tmp_path)
    assert result.returncode == 2
    assert "usage: scripts/cluster.sh start|stop|status" in result.stderr


def test_start_refuses_a_port_another_program_holds_before_starting_anything(tmp_path):
    with socket.socket() as stranger:  # another program's server on the Thrift port
        stranger.bind(("127.0.0.1", 0))
        stranger.listen()
        port = stranger.getsockname()[1]
        env = {"SPARK_WINDOWS_THRIFT_PORT": str(port), "SPARK_WINDOWS_MASTER_PORT": str(free_port())}
        result = cluster("start", tmp_path, env)
    assert result.returncode == 1
    assert f"port {port} (for the Thrift server) is in use by another program" in result.stderr
    assert "SPARK_WINDOWS_THRIFT_PORT" in result.stderr
    assert not list((tmp_path / "run").glob("*.pid")), "something was started"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
