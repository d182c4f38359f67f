"""Players in words: made from the registry's templates, the spec's real parameter and,
for networks, the metadata file saved beside the weights."""

import json
import re

import pytest

from mancala.ai import registry
from mancala.ai.registry import Entry, describe_player, describe_players, make_player
from mancala.nn_lib.meta import UNKNOWN, meta_path, read_meta, write_meta
from mancala.nn_lib.zoo import ZOO, network, trained_games


def test_search_players_say_their_own_parameter():
    assert "5,000 simulations" in describe_player("mcts:5000")
    assert "20,000" not in describe_player("mcts:5000")
    assert "0.1 s a move" in describe_player("minimax:t=0.1")
    assert "8 plies deep" in describe_player("minimax:8")
    assert "200,000 playouts" in describe_player("nmcts:200000")
    assert "0.1 s" in describe_player("solver:t=0.1")
    with pytest.raises(ValueError, match="unknown player"):
        describe_player("nobody")


@pytest.mark.parametrize(
    "name,attribute",
    [
        ("minimax", "seconds"),
        ("mcts", "simulations"),
        ("nmcts", "playouts"),
        ("openspiel-mcts", "simulations"),
    ],
)
def test_a_default_described_is_the_default_played(name, attribute):
    """A name without a parameter is described as the player it makes plays."""
    played = getattr(make_player(name, seed=0), attribute)
    spelled = f"t={played:g}" if attribute == "seconds" else f"{played}"
    assert describe_player(name) == describe_player(f"{name}:{spelled}")


def test_every_description_is_filled_in():
    for name, words in describe_players().items():
        assert words and "{" not in words, name


def test_a_network_is_described_from_its_metadata_file(tmp_path, monkeypatch):
    weights = tmp_path / "mine.keras"
    write_meta(
        weights, teacher="minimax:6", data="12 games in x.jsonl", command="c", date="2030-01-02"
    )
    assert json.loads(meta_path(weights).read_text())["teacher"] == "minimax:6"
    monkeypatch.setitem(
        registry._REGISTRY,
        "mine",
        Entry(
            "mancala.ai.network:NetworkPlayer",
            kwargs={"network": "nnx2h256", "path": str(weights)},
            summary="{param}",
            describer="mancala.nn_lib.zoo:describe_network",
        ),
    )
    words = describe_player("mine")
    assert words == (
        "Network nnx2h256: two hidden layers of 256, one-hot house counts; "
        "learnt the choices of minimax:6 from 12 games in x.jsonl (2030-01-02)"
    )
    meta_path(weights).write_text("not json")
    assert UNKNOWN in describe_player("mine")


def test_saving_weights_writes_their_metadata(tmp_path):
    weights = tmp_path / "nn1h128.keras"
    network("nn1h128", weights).fresh(0).save(teacher="minimax:2", data="3 games")
    meta = read_meta(weights)
    assert meta["teacher"] == "minimax:2" and meta["data"] == "3 games"
    assert meta["command"].startswith("python") and len(meta["date"]) == 10
    network("nn1h128", weights).fresh(1).save()  # no word of the training: none kept
    assert read_meta(weights)["teacher"] == UNKNOWN


def test_every_shipped_network_has_its_metadata():
    kalah = ("minimax:8", "minimax:10+solver:n=20000", "minimax:14+solver:n=20000")
    teachers = {"kalah": kalah, "sungka": ("minimax:8",)}
    teachers["tak"] = ("minimax:3", "minimax:4")  # Tak's alpha-beta, 3 or 4 plies
    for name in ZOO:
        games = [game["variant"] for game in trained_games(name)]
        assert games, name
        for game in games:  # the first version's teacher, or the learning loop's
            meta = read_meta(network(name, game=game).path)
            assert meta is not None and UNKNOWN not in meta.values(), (name, game)
            labellings = meta["teacher"].split(" + ")  # the refits on exact labels read
            exact = all(re.fullmatch(r"minimax:\d+\+solver:n=\d+", t) for t in labellings)
            assert meta["teacher"] in teachers[game] or (game == "kalah" and exact), (name, game)
