"""Recorded games: one JSON line a game, replayable, corrupt lines skipped and counted."""

import json
import logging
import lzma

from mancala.ai import make_player
from mancala.arena.match import play_games
from mancala.arena.records import GameLog, append_games, record_files, replay
from mancala.game_state import GameState


def some_records(n=5, variant="kalah"):
    players = [make_player("greedy", seed=1), make_player("luck", seed=2)]
    return play_games(players, [GameState.new(variant)] * n, seed=7)


def test_records_replay_to_their_recorded_result(tmp_path):
    path = tmp_path / "games.jsonl"
    records = some_records(4) + some_records(3, "sungka")
    assert append_games(path, records) == 7
    assert len(path.read_text().splitlines()) == 7
    read = list(GameLog([path]))
    assert read == records
    for record in read:
        end = replay(record)[-1]
        assert end.is_over()
        assert list(end.scores()) == record["scores"] and end.winner() == record["winner"]
        assert record["players"] == ["greedy", "luck"] and record["format"] == 1


def test_corrupt_lines_are_skipped_and_counted(tmp_path, caplog):
    path = tmp_path / "games.jsonl"
    good = some_records(3)
    bad_moves = dict(good[0], moves=[0, 0, 0])  # house 0 is empty the second time
    append_games(path, good[:1])
    with open(path, "a") as handle:
        handle.write("not json at all\n")
        handle.write(json.dumps({"format": 99}) + "\n")
        handle.write(json.dumps(bad_moves) + "\n")
        handle.write("[1, 2]\n")
    append_games(path, good[1:])
    with open(path, "a") as handle:
        handle.write(json.dumps(good[0])[:40])  # a line cut short by a crash
    log = GameLog([path])
    with caplog.at_level(logging.WARNING):
        assert list(log) == good
    assert log.skipped == 5
    assert "skipped 5" in caplog.text


def test_appending_after_a_cut_line_keeps_the_new_game(tmp_path):
    path = tmp_path / "games.jsonl"
    first, second = some_records(2)
    path.write_text(json.dumps(first)[:50])  # no newline: cut short
    append_games(path, [second])
    log = GameLog([path])
    assert list(log) == [second]
    assert log.skipped == 1


def test_default_log_reads_the_training_folder(tmp_path, monkeypatch):
    import mancala.arena.records as recorder

    monkeypatch.setattr(recorder, "TRAINING_DIR", tmp_path)
    append_games(tmp_path / "a.jsonl", some_records(2))
    append_games(tmp_path / "b.jsonl", some_records(1))
    (tmp_path / "notes.txt").write_text("not a game file")
    assert len(list(GameLog())) == 3
    (tmp_path / "c.jsonl.xz").write_bytes(lzma.compress(b""))
    assert record_files(tmp_path) == [tmp_path / n for n in ("a.jsonl", "b.jsonl", "c.jsonl.xz")]


def test_a_compressed_file_with_a_header_reads_as_its_games(tmp_path, caplog):
    plain = tmp_path / "games.jsonl"
    records = some_records(3)
    append_games(plain, records)
    header = json.dumps({"kind": "header", "command": "mancala train --record-only"})
    packed = tmp_path / "games.jsonl.xz"
    packed.write_bytes(lzma.compress((header + "\n").encode() + plain.read_bytes()))
    log = GameLog([packed])
    with caplog.at_level(logging.WARNING):
        assert list(log) == records
    assert log.skipped == 0 and not caplog.text
    damaged = tmp_path / "damaged.jsonl.xz"
    damaged.write_bytes(packed.read_bytes()[:30] + b"garbage" * 20)
    log = GameLog([damaged, plain])
    assert list(log) == records  # the damaged file's unreadable rest skipped, not fatal
    assert log.skipped == 1
