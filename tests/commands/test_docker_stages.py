"""The api image's stages run from the files they copy, checked without a Docker engine.

deploy/Dockerfile.api's `database` stage copies a hand-kept list of files (so that other
code changes do not rebuild its minutes-long layer) and the final stage copies the build
context (`COPY . ./`) less deploy/Dockerfile.api.dockerignore. A module missing from such
a copy breaks only the Docker build, which CI cannot run. These tests read the Dockerfile,
put exactly the files a stage copies into a temporary folder and run the stage's command
there in a subprocess, smaller where the real one takes minutes:

- `database`: its RUN line as written, with a small board and a temporary cache folder
  appended (argparse keeps an option's last value);
- the final stage: `compileall` and `deploy/api_games.py --build` as in its RUN line
  (first plies against every player; only the solver may be missing, since the endgame
  database comes from the other stage), then the image's command's imports (gunicorn's
  config module, `webapi:create_app()`).

The subprocess sees only the copy: the project is installed editable into the venv, whose
import hooks would find a missing module in the repo, so a `sitecustomize` put on the
subprocess's path removes them, and it reports every module loaded: each of the project's
must lie in the copy, and each third-party one must belong to a distribution that
requirements.txt asks for (directly or through their requirements), since the image
installs requirements.txt alone, not requirements-dev.txt.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from mancala.core.paths import ROOT

pytestmark = [pytest.mark.docker, pytest.mark.slow]

DOCKERFILE = ROOT / "deploy" / "Dockerfile.api"
DOCKERIGNORE = ROOT / "deploy" / "Dockerfile.api.dockerignore"
PROJECT = "mancala-lab"  # the project's distribution (pyproject.toml)
PROJECT_PACKAGES = ("mancala", "webapi")
SMALL_DATABASE = ["--houses", "3", "--max-seeds", "6"]  # 924 boards: seconds, not minutes


# ----- reading the Dockerfile ------------------------------------------------------------


@dataclass
class Copy:
    sources: list[str]
    destination: str
    from_stage: str | None  # COPY --from=...: files of another stage or image, not the context


@dataclass
class Stage:
    name: str
    base: str
    workdir: str = "/"
    copies: list[Copy] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile: comments dropped, continued lines joined."""
    joined, current = [], ""
    for line in text.splitlines():
        if line.lstrip().startswith("#") or (not line.strip() and not current):
            continue
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        joined.append(current + line)
        current = ""
    if current:
        joined.append(current)
    pairs = []
    for line in joined:
        keyword, _, arguments = line.strip().partition(" ")
        pairs.append((keyword.upper(), " ".join(arguments.split())))
    return pairs


def read_stages(text: str) -> list[Stage]:
    """The stages of a Dockerfile, each with its base's WORKDIR and COPY lines first."""
    stages: list[Stage] = []
    for keyword, arguments in instructions(text):
        if keyword == "FROM":
            words = arguments.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else str(len(stages))
            base = next((stage for stage in stages if stage.name == words[0]), None)
            stage = Stage(name, words[0])
            if base is not None:
                stage.workdir, stage.copies = base.workdir, list(base.copies)
            stages.append(stage)
        elif keyword == "WORKDIR":
            stages[-1].workdir = os.path.join(stages[-1].workdir, arguments)
        elif keyword == "COPY":
            words = shlex.split(arguments)
            flags = [word for word in words if word.startswith("--")]
            paths = [word for word in words if not word.startswith("--")]
            if any(char in word for word in paths[:-1] for char in "*?["):
                raise NotImplementedError(f"COPY with a wildcard: {arguments}")
            from_stage = next((f.split("=", 1)[1] for f in flags if f.startswith("--from=")), None)
            stages[-1].copies.append(Copy(paths[:-1], paths[-1], from_stage))
        elif keyword == "RUN":
            stages[-1].runs.append(arguments)
    return stages


def stage_named(name: str) -> Stage:
    stages = read_stages(DOCKERFILE.read_text())
    return stages[-1] if name == "final" else next(s for s in stages if s.name == name)


# ----- the build context: the repo less the .dockerignore ---------------------------------


def pattern_regex(pattern: str) -> re.Pattern:
    """A .dockerignore pattern as Docker reads it (Go's filepath.Match, plus `**` for any
    number of folders), matched against a whole path relative to the context's root."""
    regex, i = "", 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            regex, i = regex + "(.*/)?", i + 3
        elif pattern.startswith("**", i):
            regex, i = regex + ".*", i + 2
        elif char == "*":
            regex, i = regex + "[^/]*", i + 1
        elif char == "?":
            regex, i = regex + "[^/]", i + 1
        elif char == "\\" and i + 1 < len(pattern):
            regex, i = regex + re.escape(pattern[i + 1]), i + 2
        else:
            regex, i = regex + re.escape(char), i + 1
    return re.compile(regex)


def read_dockerignore(text: str) -> list[tuple[re.Pattern, bool]]:
    """(pattern, excludes) in order: `!pattern` lines let files back in."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keeps = line.startswith("!")
        pattern = os.path.normpath(line.lstrip("!").strip()).lstrip("/")
        rules.append((pattern_regex(pattern), not keeps))
    return rules


def ignored(path: str, rules: list[tuple[re.Pattern, bool]]) -> bool:
    """Whether the context leaves out `path` ("a/b/c.py"): the last rule matching the path
    or one of its folders decides.

    >>> rules = read_dockerignore("deploy\\n!deploy/api_games.py\\n*.md\\n**/__pycache__")
    >>> [ignored(p, rules) for p in ("deploy/build.sh", "deploy/api_games.py", "README.md")]
    [True, False, True]
    >>> [ignored(p, rules) for p in ("mancala/README.md", "a/b/__pycache__/c.pyc", "a/b.py")]
    [False, True, False]
    """
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    excluded = False
    for regex, excludes in rules:
        if any(regex.fullmatch(prefix) for prefix in prefixes):
            excluded = excludes
    return excluded


def context_files(root: Path, rules: list[tuple[re.Pattern, bool]]) -> list[str]:
    """The files Docker sends from `root` (relative paths); a left-out folder is not walked
    unless a `!` rule may let something under it back in."""
    let_back = [regex.pattern for regex, excludes in rules if not excludes]
    files = []
    for folder, subfolders, names in os.walk(root):
        here = Path(folder).relative_to(root).as_posix()
        here = "" if here == "." else here + "/"
        subfolders[:] = [
            sub
            for sub in subfolders
            if not ignored(here + sub, rules)
            or any(pattern.startswith(re.escape(here + sub + "/")) for pattern in let_back)
        ]
        files += [here + name for name in names if not ignored(here + name, rules)]
    return sorted(files)


# ----- a stage's files, and its command run from them ------------------------------------


def materialise(stage: Stage, root: Path) -> Path:
    """Copy the files of the stage's COPY lines from the context (the repo) into `root`,
    which stands for the image's /; the stage's WORKDIR in it."""
    rules = read_dockerignore(DOCKERIGNORE.read_text())
    files = context_files(ROOT, rules)
    workdir = root / stage.workdir.lstrip("/")
    workdir.mkdir(parents=True, exist_ok=True)
    for copy in stage.copies:
        if copy.from_stage is not None:
            continue
        absolute = copy.destination.startswith("/")
        target = root / copy.destination.lstrip("/") if absolute else workdir / copy.destination
        into_folder = copy.destination.endswith("/") or len(copy.sources) > 1
        for source in copy.sources:
            source = os.path.normpath(source)
            if source == ".":
                under = files
            else:
                under = [f for f in files if f == source or f.startswith(source + "/")]
            assert under, f"COPY {source}: not in the build context (or .dockerignore'd)"
            for file in under:
                if file == source:  # one file
                    to = target / Path(file).name if into_folder else target
                else:  # a folder's contents
                    to = target / (file if source == "." else file[len(source) + 1 :])
                to.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / file, to)
    return workdir


def share_compiled_kernels(workdir: Path, numba_cache: Path) -> None:
    """Put the kernels numba has compiled for the repo (its in-tree cache) where the copy's
    commands look for them (`numba_cache`, $NUMBA_CACHE_DIR), so that they compile only
    what the repo has not: an entry is keyed by the contents of its source, which the copy
    shares. The image compiles every kernel afresh; deploy/docker-check.sh builds it."""
    from numba.core.caching import UserProvidedCacheLocator

    for package in PROJECT_PACKAGES:
        for entry in (ROOT / package).rglob("__pycache__/*.nb[ic]"):
            folder = entry.parent.parent.relative_to(ROOT)
            if (workdir / folder).is_dir():
                subpath = UserProvidedCacheLocator.get_suitable_cache_subpath(
                    str(workdir / folder / "any.py")
                )
                (numba_cache / subpath).mkdir(parents=True, exist_ok=True)
                shutil.copy2(entry, numba_cache / subpath / entry.name)


GUARD = '''"""Put on the path of a stage's command by tests/commands/test_docker_stages.py."""
import atexit, json, os, re, sys
from importlib.machinery import PathFinder

# The editable install's import hooks find the project's modules in the repo: not here.
def _editable(hook):
    return getattr(hook, "__module__", "").startswith("__editable__")

sys.meta_path[:] = [finder for finder in sys.meta_path if not _editable(finder)]
sys.path_hooks[:] = [hook for hook in sys.path_hooks if not _editable(hook)]
sys.path[:] = [entry for entry in sys.path if "__editable__" not in entry]
sys.path_importer_cache.clear()


class _PathFinderOfTheImage(PathFinder):
    """What only requirements-dev.txt installs is missing in the image, so it is here:
    neither its modules (an optional import falls back as in the image) nor its metadata."""

    missing = json.loads(os.environ["STAGE_CHECK_MISSING"])
    modules, distributions = set(missing["modules"]), set(missing["distributions"])

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in cls.modules:
            return None
        return super().find_spec(name, path, target)

    @classmethod
    def find_distributions(cls, *args, **kwargs):
        for distribution in super().find_distributions(*args, **kwargs):
            name = re.sub(r"[-_.]+", "-", distribution.metadata["Name"] or "").lower()
            if name not in cls.distributions:
                yield distribution


sys.meta_path[:] = [_PathFinderOfTheImage if f is PathFinder else f for f in sys.meta_path]
_before = set(sys.modules)


@atexit.register
def _report():
    loaded = {}
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        where = getattr(module, "__file__", None) or getattr(spec, "origin", None)
        if where is None and getattr(module, "__path__", None):
            where = next(iter(module.__path__), None)
        if name not in _before and where not in (None, "built-in", "frozen"):
            loaded[name] = os.path.realpath(where)
    path = os.path.join(os.environ["STAGE_CHECK_REPORTS"], f"{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump({"argv": sys.argv, "loaded": loaded}, f)
'''


@dataclass
class Run:
    returncode: int
    output: str
    loaded: dict[str, str]  # every module the commands loaded: name -> file


def run_in_copy(root: Path, workdir: Path, commands: list[list[str]]) -> Run:
    """Run each command (argv; "python" is this interpreter) in `workdir` with only the
    copy importable, from the kernels numba has compiled for the repo; stop at the first
    that fails."""
    guard, reports = root.parent / "guard", root.parent / "reports"
    guard.mkdir()
    reports.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    scratch = root.parent / "scratch"
    share_compiled_kernels(workdir, scratch / "numba")
    env = {key: value for key, value in os.environ.items() if not key.startswith("MANCALA_")}
    env |= {
        "PYTHONPATH": f"{workdir}{os.pathsep}{guard}",
        "STAGE_CHECK_MISSING": json.dumps(not_in_image()),
        "STAGE_CHECK_REPORTS": str(reports),
        "OPENBLAS_NUM_THREADS": "1",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "MANCALA_CACHE_DIR": str(scratch / "cache"),
        "NUMBA_CACHE_DIR": str(scratch / "numba"),
        "KERAS_HOME": str(scratch / "keras"),
        "MPLCONFIGDIR": str(scratch / "matplotlib"),
    }
    output, returncode = "", 0
    for argv in commands:
        argv = [sys.executable if word == "python" else word for word in argv]
        result = subprocess.run(
            argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=600
        )
        output += f"$ {shlex.join(argv)}\n{result.stdout}{result.stderr}"
        returncode = result.returncode
        if returncode:
            break
    loaded = {}
    for report in reports.glob("*.json"):
        loaded |= json.loads(report.read_text())["loaded"]
    return Run(returncode, output, loaded)


def outside_copy(run: Run, root: Path) -> dict[str, str]:
    """The project's modules the commands loaded from anywhere but the copy."""
    return {
        name: where
        for name, where in run.loaded.items()
        if name.split(".")[0] in PROJECT_PACKAGES and not Path(where).is_relative_to(root)
    }


# ----- third-party modules: from the runtime requirements? --------------------------------


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_distributions() -> set[str]:
    """The distributions requirements.txt installs: its lines and, transitively, what they
    require (with the extras asked for; markers evaluated here)."""
    wanted = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            wanted.append(Requirement(line))
    found: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    while wanted:
        requirement = wanted.pop()
        name, extras = canonical(requirement.name), frozenset(requirement.extras)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        found.add(name)
        try:
            requires = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed here (a marker left it out): nothing of it is loaded
        for text in requires:
            needed = Requirement(text)
            marker = needed.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in extras or {""}):
                wanted.append(needed)
    return found


def not_in_image() -> dict[str, list[str]]:
    """What is installed here but not in the image: the distributions outside
    requirements.txt's (the project's own, pip and setuptools aside), and the top-level
    modules that only they provide."""
    keep = runtime_distributions() | {"pip", "setuptools", canonical(PROJECT)}
    missing = {canonical(d.metadata["Name"]) for d in importlib.metadata.distributions()} - keep
    owners = importlib.metadata.packages_distributions()
    modules = [
        top
        for top, distributions in owners.items()
        if {canonical(d) for d in distributions} <= missing
    ]
    return {"modules": sorted(modules), "distributions": sorted(missing)}


def distributions_of(run: Run, root: Path) -> dict[str, set[str]]:
    """The installed distributions whose modules the commands loaded: name -> the
    top-level folders or files of site-packages they were loaded from (by file, not by
    module name: an extension may load under a bare name, as SciPy's `_cyutility`)."""
    sites = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    owners = importlib.metadata.packages_distributions()
    found: dict[str, set[str]] = {}
    for where in run.loaded.values():
        path = Path(where)
        site = next((site for site in sites if path.is_relative_to(site)), None)
        if path.is_relative_to(root) or site is None:
            continue  # the project, the standard library
        top = path.relative_to(site).parts[0]
        name = top.split(".")[0]  # six.py, _cffi_backend.cpython-311-x86_64-linux-gnu.so
        for distribution in owners.get(top) or owners.get(name) or [f"(none: {top})"]:
            found.setdefault(canonical(distribution), set()).add(top)
    return found


def not_in_runtime(run: Run, root: Path) -> dict[str, set[str]]:
    runtime = runtime_distributions()
    loaded = distributions_of(run, root)
    return {dist: modules for dist, modules in loaded.items() if dist not in runtime}


# ----- the tests -------------------------------------------------------------------------


def database_commands(stage: Stage, cache: Path) -> list[list[str]]:
    """The `database` stage's RUN line, on a small board into `cache`."""
    assert len(stage.runs) == 1, stage.runs
    argv = shlex.split(stage.runs[0])
    assert argv[:2] == ["python", "-m"], f"not `python -m module ...`: {stage.runs[0]}"
    assert not set(argv) & {"&&", "||", ";", "|"}, f"not one command: {stage.runs[0]}"
    return [[*argv, *SMALL_DATABASE, "--cache-dir", str(cache)]]


def test_database_stage_runs_from_its_files(tmp_path: Path):
    root = tmp_path.resolve() / "root"  # stands for the image's /
    stage = stage_named("database")
    workdir = materialise(stage, root)
    cache = tmp_path / "database"
    run = run_in_copy(root, workdir, database_commands(stage, cache))
    assert run.returncode == 0, run.output[-4000:]
    assert [p.name for p in cache.iterdir()] == ["kalah-db-h3-n6-std.bin"], run.output
    assert Path(run.loaded["mancala"]).is_relative_to(workdir)
    assert "mancala.games.sowing.solver.database" in run.loaded
    assert outside_copy(run, root) == {}
    assert not_in_runtime(run, root) == {}


@pytest.mark.parametrize(
    "left_out",
    [
        "mancala/core/paths.py",  # what broke the image: the database reads its folder there
        "mancala/game_state.py",  # the editable install would find it in the repo
    ],
)
def test_database_stage_fails_without_a_file_it_needs(tmp_path: Path, left_out: str):
    root = tmp_path.resolve() / "root"  # stands for the image's /
    stage = stage_named("database")
    workdir = materialise(stage, root)
    (workdir / left_out).unlink()
    run = run_in_copy(root, workdir, database_commands(stage, tmp_path / "db"))
    module = left_out.removesuffix(".py").replace("/", ".")
    assert run.returncode != 0
    assert f"ModuleNotFoundError: No module named '{module}'" in run.output, run.output[-2000:]


FINAL_IMPORTS = """
import os
import gunicorn.util
import webapi, webapi.gunicorn_config, mancala

here = os.getcwd()
for module in (mancala, webapi, webapi.gunicorn_config):
    assert os.path.realpath(module.__file__).startswith(here + os.sep), module.__file__
app = gunicorn.util.import_app("webapi:create_app()")  # deploy/api-start.sh's app
assert app.test_client().get("/api/health").status_code == 200
print("the image's command imports: done")
"""


def test_final_stage_runs_from_its_files(tmp_path: Path):
    root = tmp_path.resolve() / "root"  # stands for the image's /
    stage = stage_named("final")
    (run_line,) = [run for run in stage.runs if "api_games.py" in run]
    assert "python -m compileall -q mancala webapi" in run_line
    assert "python deploy/api_games.py --build" in run_line
    workdir = materialise(stage, root)
    assert not (workdir / "tests").exists() and (workdir / "deploy" / "api_games.py").is_file()
    commands = [
        ["python", "-m", "compileall", "-q", "mancala", "webapi"],
        ["python", "deploy/api_games.py", "--build", "--allow-missing"],
        ["python", "-c", FINAL_IMPORTS],
    ]
    run = run_in_copy(root, workdir, commands)
    assert run.returncode == 0, run.output[-6000:]
    assert "players the image offers:" in run.output
    # The endgame database comes from the other stage (COPY --from=database): only the
    # solver may be missing here; a player whose weights the copy lacks fails the test.
    missing = re.findall(r"players that cannot be made .*: (.*)", run.output)
    assert missing in ([], ["solver"]), run.output[-6000:]
    assert {"webapi", "webapi.gunicorn_config", "gunicorn"} <= set(run.loaded)
    assert outside_copy(run, root) == {}
    assert not_in_runtime(run, root) == {}
