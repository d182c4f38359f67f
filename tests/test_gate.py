"""The promotion gate refuses weaker weights, passes equal ones, and keeps what it replaces."""

from mancala.ai.network import NetworkPlayer
from mancala.ai.registry import make_player
from mancala.game_state import GameState
from mancala.learn.gate import gate, promote
from mancala.nn_lib.zoo import network


def test_an_untrained_candidate_is_refused(tmp_path):
    shipped = NetworkPlayer(network="nn1h128")
    weakened = NetworkPlayer(net=network("nn1h128", tmp_path / "fresh.keras").fresh(seed=3))
    result = gate(weakened, shipped, ["greedy"], GameState.new(), openings=20)
    assert not result.promoted
    assert result.games == 40
    assert result.head_to_head < 0.5
    assert "against the weights it would replace" in result.reason


def test_the_record_shows_both_sides_against_the_fixed_opponents():
    result = gate(
        make_player("luck", seed=2),
        make_player("minimax:4", seed=2),
        ["greedy"],
        GameState.new(),
        openings=20,
    )
    assert not result.promoted
    greedy = result.against["greedy"]
    assert greedy["candidate"] < greedy["incumbent"] - greedy["margin"]


def test_the_same_weights_pass_the_gate():
    # Deterministic and identical: each opening's two games mirror each other.
    one, two = NetworkPlayer(network="nn1h128"), NetworkPlayer(network="nn1h128")
    result = gate(one, two, ["greedy"], GameState.new(), openings=20)
    assert result.promoted, result.reason
    assert result.head_to_head == 0.5
    greedy = result.against["greedy"]
    assert greedy["candidate"] == greedy["incumbent"]


def test_promote_keeps_the_replaced_file(tmp_path):
    target, candidate = tmp_path / "models" / "n.keras", tmp_path / "run" / "n.keras"
    target.parent.mkdir()
    candidate.parent.mkdir()
    target.write_bytes(b"old weights")
    candidate.write_bytes(b"new weights")
    kept = promote(candidate, target, tmp_path / "models" / "replaced")
    assert target.read_bytes() == b"new weights"
    assert kept is not None and kept.read_bytes() == b"old weights"
    assert kept.parent == tmp_path / "models" / "replaced"
    assert promote(candidate, tmp_path / "models" / "new.keras", tmp_path / "kept") is None
