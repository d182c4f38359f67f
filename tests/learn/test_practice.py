"""The main job's refit: it stops at Ctrl+C or SIGTERM after the batch under way, and
never draws copies of its examples."""

from __future__ import annotations

import itertools
import signal

import pytest

from mancala.core.paths import DATA_DIR
from mancala.core.stopping import Terminated, sigterm_as_interrupt
from mancala.learn.labels import labelled
from mancala.learn.practice import Practice
from mancala.nn_lib.zoo import network

LABELS = DATA_DIR / "kalah" / "kalah-h6-s4-labels-seed0.jsonl.xz"


def practice_with(tmp_path, games: int) -> Practice:
    practice = Practice(tmp_path / "games.jsonl")
    practice.store.add(itertools.islice(labelled([LABELS]), games))
    return practice


def test_a_signal_ends_the_refit_after_its_batch_and_keeps_the_saved_weights(tmp_path):
    practice = practice_with(tmp_path, 40)
    net = network("nn1h128", tmp_path / "nn1h128.keras").fresh(seed=1)
    net.save()
    before = net.path.read_bytes()
    real, asked = net.fit, []

    def fit_then_terminated(*args, stop, **options):
        signal.raise_signal(signal.SIGTERM)  # held by the refit until the fit has ended

        def counted() -> bool:
            asked.append(stop())
            return asked[-1]

        return real(*args, stop=counted, **options)

    net.fit = fit_then_terminated
    with pytest.raises(Terminated), sigterm_as_interrupt():
        practice.refit(net, sample=len(practice.store), epochs=5, batch_size=16)
    assert asked == [True]  # one batch of the hundreds asked for, then the end
    assert net.path.read_bytes() == before  # the cut fit was not saved


def test_a_sample_beyond_the_store_takes_each_example_once_and_says_so(tmp_path):
    practice = practice_with(tmp_path, 5)
    net = network("nn1h128", tmp_path / "nn1h128.keras").fresh(seed=1)
    real, rows, lines = net.fit, [], []

    def fit(examples, *rest, **options):
        rows.append(len(examples))
        return real(examples, *rest, **options)

    net.fit = fit
    practice.refit(net, sample=100_000, epochs=1, progress=lines.append)
    assert rows == [len(practice.store)] and 0 < len(practice.store) < 1000
    assert lines[0] == (
        f"takes all {len(practice.store):,} examples recorded, fewer than --sample's 100,000"
    )
    network("nn1h128", net.path).load()  # fitted and saved
