"""The value of a final margin (`mancala.games.sowing.margin_value`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.games.sowing.margin_value import SCORE_SCALE, margin_of, margin_value


@settings(max_examples=200, deadline=None)
@given(
    margin=st.floats(-60, 60),
    scale=st.floats(1, 30),
    weight=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]),
)
def test_a_margins_value_rises_with_it_and_gives_it_back(margin, scale, weight):
    value = margin_value(margin, scale, weight)
    assert -1 <= value <= 1
    assert margin_value(margin + 1, scale, weight) > value or abs(value) > 0.999999
    if abs(value) < 0.99:  # where the value still tells margins apart
        assert margin_of(value, scale, weight, 0.999) == pytest.approx(margin, abs=1e-6)


def test_without_a_score_weight_the_value_is_the_win_term_alone():
    margins = np.array([-10.0, -1.0, 0.0, 3.0])
    assert np.allclose(margin_value(margins, 2.0, 0.0), np.tanh(margins / 2))
    assert margin_of(float(np.tanh(1.5)), 2.0, 0.0, 0.999) == pytest.approx(3.0)


def test_the_score_utility_tells_decided_margins_apart():
    won_by_10, won_by_20 = margin_value(10.0, 2.0, 0.25), margin_value(20.0, 2.0, 0.25)
    assert won_by_20 - won_by_10 > 0.1 * (np.tanh(20 / SCORE_SCALE) - np.tanh(10 / SCORE_SCALE))
    assert margin_value(20.0, 2.0, 0.0) - margin_value(10.0, 2.0, 0.0) < 1e-3
