"""The lab's file writes: JSON and pictures are written whole or not at all."""

import json

import pytest

from mancala.arena.plots import save_figure, subplots
from mancala.core.atomic import write_json
from mancala.learn.curve import LearningCurve


def test_json_is_written_whole_with_a_final_newline(tmp_path):
    path = tmp_path / "deep" / "a.json"
    write_json(path, {"b": [1, 2], "é": None})
    assert path.read_text(encoding="utf-8") == '{\n "b": [\n  1,\n  2\n ],\n "\\u00e9": null\n}\n'
    write_json(path, [1, {"x": 2}], indent=None)
    assert path.read_text() == '[1,{"x":2}]\n'
    assert [p.name for p in path.parent.iterdir()] == ["a.json"]


def test_a_failed_json_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "a.json"
    write_json(path, {"kept": True})
    with pytest.raises(TypeError):
        write_json(path, {"bad": object()})
    assert json.loads(path.read_text()) == {"kept": True}
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_figure_is_saved_as_png_and_closed(tmp_path):
    import matplotlib.pyplot as plt

    figure, axes = subplots(1, 2)
    axes[0].plot([0, 1], [1, 0])
    save_figure(figure, tmp_path / "f.png")
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"
    assert not plt.fignum_exists(figure.number)


def test_the_learning_curve_writes_its_points_and_picture(tmp_path):
    curve = LearningCurve(tmp_path / "curve.json")
    for minutes in range(3):
        curve.add({"minutes": minutes, "games": 10 * minutes, "rates": {"luck": {"nn": 50.0}}})
    assert len(json.loads((tmp_path / "curve.json").read_text())) == 3
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    assert LearningCurve(tmp_path / "curve.json").points == curve.points
