"""Fast tests: scripts/plot_windows.py draws a PNG of the expected size and stacks windows."""

from __future__ import annotations

import datetime as dt
import struct

import pytest

from scripts import plot_windows  # the repository root is on pytest's pythonpath

pytestmark = pytest.mark.fast

T0 = dt.datetime(2024, 5, 1, 8, 0, 0)


def at(seconds: int) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", header[16:24])


def test_draws_a_png_of_the_expected_size(tmp_path):
    events = [("s1", at(5)), ("s1", at(35)), ("s2", at(-10))]
    windows = [("s1", at(-30), at(30)), ("s1", at(0), at(60)), ("s2", at(-60), at(0))]
    out = plot_windows.draw(events, windows, tmp_path / "w.png", "test")
    assert out.stat().st_size > 1000
    assert png_size(out) == (plot_windows.WIDTH_PX, plot_windows.HEIGHT_PX)


def test_overlapping_windows_are_stacked_and_touching_ones_share_a_row():
    # hopping: each overlaps the one before; tumbling: each starts where the last ended
    assert plot_windows.stack([(at(0), at(60)), (at(30), at(90)), (at(60), at(120))]) == [0, 1, 0]
    assert plot_windows.stack([(at(0), at(60)), (at(60), at(120)), (at(120), at(180))]) == [0, 0, 0]
