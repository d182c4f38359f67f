"""The expert check: a search labels only once shown the stronger labeller."""

import pytest

from mancala.arena.records import GameLog
from mancala.games import new_game
from mancala.learn.expert import TeacherPlayer, check_expert
from mancala.learn.teacher import Teacher


def test_on_the_held_out_set_the_deeper_search_is_the_stronger_labeller():
    """Kalah: both teachers choose in the same solved positions; depth 8 keeps the value
    where depth 1 loses it, and not the other way round."""
    start = new_game("kalah")
    deep, shallow = Teacher(8, game="kalah"), Teacher(1, game="kalah")
    lines = []
    checked = check_expert(start, deep, shallow, positions=120, progress=lines.append)
    assert checked.stronger, checked.said
    assert lines == ["expert check: minimax:8 and minimax:1 on 120 solved positions"]
    assert checked.said.startswith("minimax:8 keeps the value in ")
    assert checked.said.endswith("; minimax:8 labels")
    refused = check_expert(start, shallow, deep, positions=120, progress=lines.append)
    assert not refused.stronger and refused.said.endswith("ahead: minimax:8 labels")


def test_without_a_solved_set_the_teachers_play_game_pairs_of_the_fixed_set():
    start = new_game("sungka")
    checked = check_expert(start, Teacher(1, game="sungka"), Teacher(6, game="sungka"),
                           openings=3, progress=lambda _: None)  # fmt: skip
    assert not checked.stronger
    assert "scored" in checked.said and "in 3 game pairs of the fixed set" in checked.said


def test_a_teacher_plays_the_move_it_values_highest():
    state = new_game("sungka")
    teacher = Teacher(4, game="sungka")
    values = teacher.move_values(state)
    move = TeacherPlayer(teacher).choose_move(state)
    assert values[move] == max(v for v in values if v is not None)


@pytest.mark.slow
def test_the_main_job_labels_with_whichever_teacher_the_check_found_stronger(tmp_path):
    """`mancala train --teacher az:N` checks az against the game's alpha-beta first, says
    so in its log, and its games carry the labels of the one the check chose."""
    from mancala.commands.train import main

    run = tmp_path / "run"
    argv = ["greedy", "luck", "--variant", "sungka", "--record-only", "--teacher", "az:20",
            "--expert-check", "3", "--games", "2", "--per-pairing", "2", "--batches", "1",
            "--run", str(run)]  # fmt: skip
    assert main(argv) == 0
    lines = (run / "log.txt").read_text().splitlines()
    [said] = [line for line in lines if line.startswith("expert check: az:20 scored ")]
    chose = "az:20" if said.endswith("; az:20 labels") else "minimax:8"
    assert said.endswith(f" {chose} labels")
    assert {game["teacher"] for game in GameLog([run / "games.jsonl"])} == {chose}


def test_the_check_meets_distinct_positions_spread_through_the_held_out_set():
    """The held-out set's first hundred positions are eight distinct ones (games begin
    alike); the check takes distinct positions from all through the set."""
    from mancala.arena.solved_set import shipped_set
    from mancala.learn.expert import spread

    held = shipped_set(new_game("kalah"), "held-out")
    assert len({p.key for p in held[:100]}) < 20
    chosen = spread(held, 100)
    assert len({p.key for p in chosen}) == 100
    last = max(i for i, p in enumerate(held) if p.key == chosen[-1].key)
    assert last > len(held) * 0.9
