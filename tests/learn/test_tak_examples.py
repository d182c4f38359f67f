"""The Tak examples of annotated records (`games.tak.examples`, on the fast engine)
against the readable rules' positions and planes, on random records (hypothesis)."""

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mancala.arena.records import replay
from mancala.games.tak.examples import BEST, CHILDREN
from mancala.games.tak.planes import channels, planes
from mancala.games.tak.state import new_tak
from mancala.learn.data import record_positions


def random_record(size: int, komi: int, rng, plies: int) -> dict:
    """A random game of `size`, each legal move of each position valued at random."""
    state, moves, values = new_tak(size, komi), [], []
    for _ in range(plies):
        legal = state.legal_moves()
        if not legal:
            break
        values.append([rng.choice([rng.uniform(-5, 5), 1.0, -1.0]) for _ in legal])
        moves.append(rng.choice(legal))
        state = state.play(moves[-1])
    options = {"size": size, "komi": komi}
    return {"format": 1, "variant": "tak", "options": options, "moves": moves, "values": values}


def readable_examples(record: dict):
    """What `record_positions` gives, by the readable rules (`TakState.play`, `planes`)."""
    rng = np.random.default_rng(record["moves"])
    rows = []
    for state, row in zip(replay(record), record["values"]):
        moves, v = state.legal_moves(), np.array(row, np.float64)
        ranked = np.argsort(-v, kind="stable")
        chosen = [
            *ranked[:BEST],
            *rng.permutation(ranked[BEST:])[: CHILDREN - BEST],
        ]
        afters = [(state.play(moves[k]), v[k]) for k in chosen]
        live = [(planes(a, state.player), value) for a, value in afters if a.outcome is None]
        if live:
            rows.append(live)
    return rows


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3, 6), st.integers(-2, 2), st.randoms(use_true_random=False), st.integers(0, 120)
)
@pytest.mark.slow
def test_the_examples_are_the_readable_rules_afterstates(size, komi, rng, plies):
    record = random_record(size, komi, rng, plies)
    examples, rows = record_positions(record), readable_examples(record)
    if not rows:
        assert examples is None
        return
    x, gains, mask = examples
    assert x.dtype == np.float16 and len(x) == len(rows)
    for r, live in enumerate(rows):
        assert mask[r].sum() == len(live) and not mask[r, len(live) :].any()
        for c, (after, value) in enumerate(live):
            assert np.array_equal(x[r, c], after.astype(np.float16)) and gains[r, c] == np.float32(
                value
            )


def test_records_that_do_not_fit_the_rules_are_refused():
    import random

    record = random_record(4, 0, random.Random(3), 30)
    for broken, why in [
        ({"values": record["values"][:-1]}, "do not match the moves"),
        ({"values": [row[:-1] for row in record["values"]]}, "one number a legal move"),
        ({"values": [["x"] for _ in record["values"]]}, "lists of numbers"),
        ({"moves": [record["moves"][0], record["moves"][0], *record["moves"][2:]]}, "illegal move"),
    ]:
        with pytest.raises(ValueError, match=why):
            record_positions({**record, **broken})


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3, 6), st.integers(-2, 2), st.randoms(use_true_random=False), st.integers(0, 120)
)
@pytest.mark.slow
def test_the_networks_value_the_readable_rules_afterstates(size, komi, rng, plies):
    from mancala.games import WIN_VALUE
    from mancala.nn_lib.views import TakView

    states = [new_tak(size, komi)]
    for _ in range(plies):
        legal = states[-1].legal_moves()
        if not legal:
            break
        states.append(states[-1].play(rng.choice(legal)))
    picked = [states[-1], *rng.sample(states, min(3, len(states)))]
    weights = np.random.default_rng(size).normal(size=channels(size) * size * size)

    def predict(x):  # any function of the planes will do
        return (x.reshape(len(x), -1) @ weights)[:, None]

    with patch("mancala.nn_lib.views.PREDICT_CHUNK", 7):  # many forward passes
        values, mask = TakView({"size": size}).move_values(predict, picked)
    for row, state in enumerate(picked):
        legal = state.legal_moves()
        assert np.flatnonzero(mask[row]).tolist() == legal
        for move in legal:
            after = state.play(move)
            if after.outcome is None:
                want = predict(planes(after, state.player)[None])[0, 0]
            else:
                winner = after.outcome.winner
                want = 0 if winner is None else WIN_VALUE * (1 if winner == state.player else -1)
            assert values[row, move] == pytest.approx(want, rel=1e-5, abs=1e-6)
