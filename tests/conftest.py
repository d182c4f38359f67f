"""Shared fixtures of the test suite."""

import os
import subprocess
import sys

import pytest

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from mancala.core.paths import ROOT  # noqa: E402  (after the thread settings above)


@pytest.fixture
def lab_command():
    """Run a command as a user does, `python -m mancala VERB ARGS` from the project root:
    `lab_command("play", "luck", input="q\\n")` -> the finished process, output as text."""

    def run(verb: str, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "mancala", verb, *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kwargs,
        )

    return run


@pytest.fixture
def lab_main(capsys):
    """Run a command in this process, as `mancala VERB ARGS` runs it: `lab_main("selfplay",
    ...)` -> a finished process, output as text. For tests of what a command does, where
    the process itself is not what is tested (signals, start-up): it spares a start of
    Python and TensorFlow."""
    from mancala.commands import main

    def run(verb: str, *args: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        try:
            code = main([verb, *args])
        except SystemExit as stop:  # argparse refusing a line
            code = stop.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess([verb, *args], code, out, err)

    return run


# Tests by node id prefix -> their markers (pyproject.toml names them). `./deploy/dev.sh
# --quick` leaves out slow, browser, ray and docker tests; `--ci` runs every test.
MARKED = {
    "tests/webapi/test_web_e2e.py": ("browser", "slow"),
    "tests/commands/test_docker.py": ("docker", "slow"),
    "tests/commands/test_docker_stages.py": ("docker", "slow"),
    "tests/arena/test_parallel.py::test_records_do_not_depend": ("ray", "slow"),
    "tests/arena/test_parallel.py::test_sigterm_stops_the_workers": ("ray", "slow"),
    "tests/arena/test_parallel.py::test_a_two_node_cluster": ("ray", "slow"),
    "tests/webapi/test_load.py": ("slow",),
    "tests/webapi/test_webapi.py::test_mancala_serve": ("slow",),
    "tests/webapi/test_webapi.py::test_network_players_first_made": ("slow",),
    "tests/learn/test_gate.py::test_random_train": ("slow",),
    "tests/learn/test_learning_data.py::test_chained_teacher": ("slow",),
    "tests/learn/test_learning_data.py::test_solved_set_is_built": ("slow",),
    "tests/ai/test_players.py::test_every_player_plays_only_legal_moves": ("slow",),
    "tests/ai/test_az.py::test_selfplay": ("slow",),
    "tests/ai/test_gumbel.py::test_the_generations_of_a_run": ("slow",),
    "tests/ai/test_gumbel.py::test_selfplay_learns_from_scratch": ("slow",),
    "tests/commands/test_cli.py::test_bench_teachers": ("slow",),
    "tests/ai/test_az.py::test_the_numba_forward_pass": ("slow",),
    "tests/nn_lib/test_networks.py::test_random_train_survives_ctrl_c": ("slow",),
    "tests/nn_lib/test_networks.py::test_exact_teacher": ("slow",),
    "tests/arena/test_tournament.py::test_balanced_openings": ("slow",),
    "tests/games/test_solver.py::test_random_small_positions": ("slow",),
    "tests/games/test_solver.py::test_kalah_6_3_opening": ("slow",),
    "tests/games/test_solver_campaign.py::test_ctrl_c": ("slow",),
    "tests/games/test_tak_search.py::test_move_values_equal_the_generic_alpha_beta": ("slow",),
    "tests/commands/test_cli.py::test_no_tensorflow_start_up_lines": ("slow",),
    "tests/commands/test_cli.py::test_sigterm_stops_random_train": ("slow",),
    "tests/commands/test_tei.py::test_the_lab_engine_plays_whole_games": ("slow",),
    "tests/commands/test_tei.py::test_the_engine_answers": ("slow",),
    "tests/arena/test_opening_sets.py::test_a_set_is_distinct": ("slow",),
    "tests/commands/test_cli.py::test_measure_weights_reads_a_folder": ("slow",),
    "tests/webapi/test_webapi.py::test_network_players_listed_by_the_registry": ("slow",),
    "tests/ai/test_search_generic.py::test_alpha_beta_values_a_sooner_win": ("slow",),
    "tests/nn_lib/test_networks.py::test_a_tak_network_trains_saves_loads": ("slow",),
    "tests/nn_lib/test_networks.py::test_training_on_the_sample_learns": ("slow",),
    "tests/ai/test_az.py::test_tak_az_and_az_net_play_legal_moves_only": ("slow",),
    "tests/webapi/test_webapi.py::test_analysis_estimates_where": ("slow",),
    "tests/games/test_tak_properties.py::test_play_takes_every_legal_move": ("slow",),
    "tests/learn/test_dqn.py::test_a_run_can_start_from_saved_weights": ("slow",),
    "tests/learn/test_dqn.py::test_training_from_random_openings": ("slow",),
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for prefix, markers in MARKED.items():
            if item.nodeid.startswith(prefix):
                for marker in markers:
                    item.add_marker(marker)
