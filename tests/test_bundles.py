"""Submission bundles (harness/agents/bundles.py): a folder or zip named after its agent,
played with its data and helper modules in every language, shown to its agent alone, and
refused, one line each, when it breaks a limit."""
from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import zipfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from harness.agents import bundle_limits, bundles
from harness.core.errors import LoadError

from conftest import console_script, run_cli
from test_records_resume import cut_back


@pytest.fixture(autouse=True)
def _readable_cache(shared_folder, monkeypatch):
    """A cache every user can reach: under `process` as root, agents run as users of their
    own, and the session's cache under /tmp/pytest-of-root (0700) is out of their reach."""
    cache = Path(shared_folder) / "cache"
    cache.mkdir(mode=0o755, exist_ok=True)
    os.chmod(shared_folder, 0o755)
    monkeypatch.setenv("PDHARNESS_CACHE", str(cache))


PY_AGENT = """import json, os
from jonessmith_helpers import three
with open(os.path.join(os.path.dirname(__file__), "weights.json")) as f:
    WEIGHTS = json.load(f)
with open("weights.json") as f:          # the current folder is the bundle too
    assert json.load(f) == WEIGHTS


def JonesSmith(hist, score):
    return three(WEIGHTS["move"])
"""
HY_AGENT = """(import json os)
(import hyhelp [pick])
(setv W (with [f (open (os.path.join (os.path.dirname __file__) "data.json"))] (json.load f)))
(defn ChenDiaz [hist score] [(pick W) (pick W) (pick W)])
"""
LISP_AGENT = """(load "lisphelp.lisp")
(defvar *bakerlee-move*
  (with-open-file (in (merge-pathnames "move.txt" *load-truename*))
    (intern (string-upcase (read-line in)))))
(defun BakerLee (hist score)
  (declare (ignore hist score))
  (bakerlee-three *bakerlee-move*))
"""
# looks everywhere it can for another bundle's marker, and answers D if it finds one
SNOOP = """import os
FOUND = []
for top in ("/", os.path.expanduser("~"), "/var/tmp", "/tmp", os.getcwd() + "/.."):
    for folder, subfolders, files in os.walk(top):
        if folder.startswith(("/proc", "/sys", "/dev", "/usr")):
            subfolders[:] = []
            continue
        if "SECRET-OF-JONESSMITH.txt" in files:
            FOUND.append(folder)
SEEN = sorted(os.listdir("."))


def AdamsSnoop(hist, score):
    return ["D", "D", "D"] if FOUND or SEEN != ["AdamsSnoop.py"] else ["C", "C", "C"]
"""


def make_bundle(folder: Path, name: str, files: dict[str, str]) -> Path:
    bundle = folder / name
    bundle.mkdir(parents=True)
    for file, text in files.items():
        (bundle / file).write_text(text)
    return bundle


def python_bundle(folder: Path, move: str = "D") -> Path:
    return make_bundle(folder, "JonesSmith", {
        "JonesSmith.py": PY_AGENT, "weights.json": json.dumps({"move": move}),
        "jonessmith_helpers.py": "def three(m):\n    return [m, m, m]\n",
        "SECRET-OF-JONESSMITH.txt": "x"})


def hy_bundle(folder: Path) -> Path:
    return make_bundle(folder, "ChenDiaz", {
        "ChenDiaz.hy": HY_AGENT, "hyhelp.hy": '(defn pick [w] (get w "move"))\n',
        "data.json": '{"move": "D"}'})


def lisp_bundle(folder: Path) -> Path:
    return make_bundle(folder, "BakerLee", {
        "BakerLee.lisp": LISP_AGENT, "move.txt": "D\n",
        "lisphelp.lisp": "(defun bakerlee-three (m) (list m m m))\n"})


def zipped(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder).as_posix())
    return target


def played(result: dict, agent: str) -> set:
    return {move for turn in result["turns"]
            for move in turn["a" if result["agents"][0] == agent else "b"]["intended"]}


# -- playing their data -----------------------------------------------------------------------
def test_a_python_bundle_plays_its_data_through_the_console_script(tmp_path, sandboxed):
    bundle = python_bundle(tmp_path)
    done = subprocess.run([console_script(), "play", str(bundle), "cooperate", "--turns", "3",
                           "--seed", "1", "--format", "json"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert played(json.loads(done.stdout), "JonesSmith") == {"D"}   # its weights' move


@pytest.mark.parametrize("mode", ["sandbox", "process", "none"])
def test_a_zipped_python_bundle_plays_in_every_mode(tmp_path, mode, request):
    if mode == "sandbox":
        request.getfixturevalue("sandboxed")
    archive = zipped(python_bundle(tmp_path / "src"), tmp_path / "JonesSmith.zip")
    status, out, err = run_cli("play", archive, "cooperate", "--turns", "2", "--seed", "1",
                               "--isolation", mode, "--format", "json")
    assert status == 0, err
    assert played(json.loads(out), "JonesSmith") == {"D"}


def test_a_hy_bundle_imports_its_helper_and_reads_its_data(tmp_path, sandboxed):
    status, out, err = run_cli("play", hy_bundle(tmp_path), "cooperate", "--turns", "2",
                               "--seed", "1", "--format", "json")
    assert status == 0, err
    assert played(json.loads(out), "ChenDiaz") == {"D"}


def test_a_lisp_bundle_loads_its_helper_and_reads_its_data(tmp_path, sandboxed, sbcl):
    status, out, err = run_cli("play", lisp_bundle(tmp_path), "cooperate", "--turns", "2",
                               "--seed", "1", "--format", "json")
    assert status == 0, err
    assert played(json.loads(out), "BakerLee") == {"D"}


def test_an_agent_finds_no_other_bundle_in_the_sandbox(tmp_path, sandboxed):
    python_bundle(tmp_path)
    snoop = tmp_path / "AdamsSnoop"
    snoop.mkdir()
    (snoop / "AdamsSnoop.py").write_text(SNOOP)
    status, out, err = run_cli("tournament", tmp_path, "--seed", "2", "--format", "json",
                               "--length", "2", "2", "--flip", "0", "0", "--timeout", "20")
    assert status == 0, err
    result = json.loads(out)
    assert {a["name"]: a["status"] for a in result["agents"]} == {
        "AdamsSnoop": "ok", "JonesSmith": "ok"}
    game = result["games"][0]
    # it cooperated: no marker of the other bundle anywhere, its folder holds only itself
    assert game["score"][0] == 0 and game["score"][1] > 0


# -- the same result everywhere ----------------------------------------------------------------
def _course(folder: Path) -> Path:
    course = folder / "course"
    python_bundle(course)
    zipped(hy_bundle(folder / "hy"), course / "ChenDiaz.zip")
    (course / "RossTito.py").write_text("def RossTito(hist, score):\n    return 'CDC'\n")
    return course


def _json(*args) -> dict:
    status, out, err = run_cli("tournament", *args, "--format", "json", "--seed", "5")
    assert status == 0, err
    result = json.loads(out)
    result["params"].pop("isolation")
    return result


def test_jobs_resume_and_modes_give_the_same_result_with_bundles(tmp_path, sandboxed):
    course = _course(tmp_path)
    first = _json(course, "--jobs", "1")
    assert [a["status"] for a in first["agents"]] == ["ok"] * 3
    assert first == _json(course, "--jobs", "2")
    assert first == _json(course, "--isolation", "process")
    assert first == _json(course, "--isolation", "none")   # a bundle plays in a host there
    record = tmp_path / "run.sqlite"
    assert first == _json(course, "--db", record)
    cut_back(record, 1)   # as if stopped after round 1
    assert _resumed(record) == first


def _resumed(record, *options) -> dict:
    """What `resume` prints as JSON, as `_json` gives a run's."""
    status, out, err = run_cli("resume", record, *options, "--format", "json")
    assert status == 0, err
    resumed = json.loads(out)
    resumed["params"].pop("isolation")
    return resumed


def test_the_report_and_show_name_a_bundle_with_its_digest(tmp_path):
    course = _course(tmp_path)
    record, report = tmp_path / "run.sqlite", tmp_path / "report.html"
    _json(course, "--db", record, "--report", report, "--isolation", "process")
    digest = bundles.open_bundle(course / "JonesSmith").digest
    assert "JonesSmith" in report.read_text(encoding="utf-8")
    status, out, err = run_cli("show", record, "--agent", "JonesSmith")
    assert status == 0, err
    assert digest in out and str(course / "JonesSmith") in out


def test_a_tampered_bundle_is_refused_on_resume(tmp_path):
    course = _course(tmp_path)
    record = tmp_path / "run.sqlite"
    _json(course, "--db", record, "--isolation", "process")
    cut_back(record, 1)   # as if stopped after round 1
    (course / "JonesSmith" / "weights.json").write_text('{"move": "C"}')
    status, out, err = run_cli("resume", record, "--isolation", "process")
    assert status == 2
    assert "JonesSmith" in err and "changed since the run started" in err
    assert len(err.strip().splitlines()) == 1


def test_resume_under_another_bundle_limit_is_refused_naming_the_runs(tmp_path):
    course = _course(tmp_path)
    (course / "JonesSmith" / "big.bin").write_bytes(b"\0" * (2 << 20))
    record = tmp_path / "run.sqlite"
    _json(course, "--db", record, "--isolation", "process")
    cut_back(record, 1)
    status, out, err = run_cli("resume", record, "--isolation", "process",
                               "--max-bundle-mib", "1")
    assert status == 2
    assert "recorded with --max-bundle-mib 64" in err and "give --max-bundle-mib 64" in err
    assert "changed" not in err and len(err.strip().splitlines()) == 1


def test_a_bundle_over_resumes_limit_in_an_older_record_says_so_not_that_it_changed(
        tmp_path):
    course = _course(tmp_path)
    (course / "JonesSmith" / "big.bin").write_bytes(b"\0" * (2 << 20))
    record = tmp_path / "run.sqlite"
    _json(course, "--db", record, "--isolation", "process")
    cut_back(record, 1)
    with sqlite3.connect(record) as connection:   # made before the limit was kept
        connection.execute("UPDATE run SET max_bundle_mib = NULL")
    status, out, err = run_cli("resume", record, "--isolation", "process",
                               "--max-bundle-mib", "1")
    assert status == 2
    assert "more than 1 MiB" in err and "changed" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_bundle_the_runs_limit_refused_stays_refused_when_resumed_under_it(tmp_path):
    course = _course(tmp_path)
    (course / "JonesSmith" / "big.bin").write_bytes(b"\0" * (2 << 20))
    record = tmp_path / "run.sqlite"
    whole = _json(course, "--db", record, "--isolation", "process", "--max-bundle-mib", "1")
    (refused,) = [a for a in whole["agents"] if a["name"] == "JonesSmith"]
    assert refused["status"] == "disqualified" and "more than 1 MiB" in refused["message"]
    with sqlite3.connect(record) as connection:
        assert connection.execute("SELECT max_bundle_mib FROM run").fetchone() == (1,)
    cut_back(record, 1)
    # under the default limit the bundle would open, and play: not the same tournament
    status, out, err = run_cli("resume", record, "--isolation", "process")
    assert status == 2 and "give --max-bundle-mib 1" in err
    assert "changed" not in err and len(err.strip().splitlines()) == 1
    assert _resumed(record, "--isolation", "process", "--max-bundle-mib", "1") == whole


def test_an_experiment_keeps_its_bundle_limit_and_resume_holds_to_it(tmp_path):
    bundle = python_bundle(tmp_path)
    (bundle / "big.bin").write_bytes(b"\0" * (2 << 20))
    (tmp_path / "exp.json").write_text(json.dumps({
        "types": [{"id": "js", "agent": "JonesSmith", "count": 2},
                  {"id": "tft", "agent": "titfortat"}],
        "replicates": 2, "parameters": {"length": [3, 3]}}))
    record = tmp_path / "exp.sqlite"
    status, out, err = run_cli("experiment", tmp_path / "exp.json", "--isolation", "process",
                               "--seed", "4", "--db", record, "--max-bundle-mib", "1",
                               "--format", "json", "--quiet")
    assert status == 0, err
    assert "agent type js (JonesSmith) did not load" in err and "more than 1 MiB" in err
    with sqlite3.connect(record) as connection:
        assert connection.execute("SELECT max_bundle_mib FROM experiment").fetchone() == (1,)
        connection.execute("DELETE FROM placing WHERE replicate = 2")
        connection.execute("DELETE FROM tournament WHERE replicate = 2")
        connection.execute("UPDATE experiment SET finished_at = NULL")
    status, _, err = run_cli("resume", record, "--isolation", "process")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "experiment was recorded with --max-bundle-mib 1" in err and "changed" not in err
    status, resumed, err = run_cli("resume", record, "--isolation", "process",
                                   "--max-bundle-mib", "1", "--format", "json", "--quiet")
    assert status == 0, err
    assert json.loads(resumed) == json.loads(out)
    for column, tampered in (("max_bundle_mib", "0"), ("agent_packages", "'[\"a b\"]'"),
                             ("agent_packages", "'{}'")):
        with sqlite3.connect(record) as connection:
            connection.execute(f"UPDATE experiment SET {column} = {tampered}")
        status, _, err = run_cli("resume", record, "--isolation", "process",
                                 "--max-bundle-mib", "1")
        assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert f"not a record pdharness wrote: experiment.{column}" in err
        assert "--agent-package" not in err and "Traceback" not in err
        with sqlite3.connect(record) as connection:   # as it was
            connection.execute("UPDATE experiment SET max_bundle_mib = 1, "
                               "agent_packages = NULL")


def test_a_record_holding_a_bundle_limit_no_run_has_is_refused_in_one_line(tmp_path):
    record = tmp_path / "run.sqlite"
    _json("cooperate", "defect", "--db", record, "--isolation", "none")
    for tampered in ("0", "-1", "1e9", "'x'", "2.5", "99999999"):
        with sqlite3.connect(record) as connection:
            connection.execute(f"UPDATE run SET max_bundle_mib = {tampered}")
        status, out, err = run_cli("show", record)
        assert status == 2, tampered
        assert "run.max_bundle_mib" in err and len(err.strip().splitlines()) == 1, err


def test_the_digest_covers_every_file_alike_from_a_folder_or_a_zip(tmp_path):
    folder = python_bundle(tmp_path / "src")
    archive = zipped(folder, tmp_path / "JonesSmith.zip")
    assert bundles.open_bundle(folder).digest == bundles.open_bundle(archive).digest
    (folder / "SECRET-OF-JONESSMITH.txt").write_text("y")
    with bundle_limit(63):   # another limit: read anew
        assert bundles.open_bundle(folder).digest != bundles.open_bundle(archive).digest


def test_a_helper_modules_random_is_the_agents_seeded_one(tmp_path):
    make_bundle(tmp_path, "JonesSmith", {
        "JonesSmith.py": "from jonessmith_dice import roll\n\n\n"
                         "def JonesSmith(hist, score):\n    return [roll(), roll(), roll()]\n",
        "jonessmith_dice.py": "import random\n\n\n"
                              "def roll():\n    return random.choice('CD')\n"})
    runs = [run_cli("play", tmp_path / "JonesSmith", "cooperate", "--turns", "8", "--seed",
                    "3", "--isolation", "process", "--format", "json") for _ in range(2)]
    assert [status for status, _, _ in runs] == [0, 0], runs[0][2]
    first, second = (json.loads(out) for _, out, _ in runs)
    assert first == second and played(first, "JonesSmith") == {"C", "D"}


def test_monitor_finds_bundles_among_its_agents_by_name(tmp_path):
    python_bundle(tmp_path / "course")
    status, out, err = run_cli("monitor", "(monitor '(.25 .1) '(10 20) '(#'cooperate "
                               "#'JonesSmith))", "--agents", tmp_path / "course",
                               "--isolation", "process", "--seed", "1")
    assert status == 0, err
    assert out.startswith("((JonesSmith ")   # it defects, as its weights say


def test_the_course_file_sets_the_bundle_limit(tmp_path):
    bundle = python_bundle(tmp_path / "course")
    (bundle / "big.bin").write_bytes(b"\0" * (2 * 1024 * 1024))
    (tmp_path / "pdharness.toml").write_text("max-bundle-mib = 1\n")
    status, out, err = run_cli("tournament", bundle, "cooperate", "--isolation", "process",
                               "--seed", "1", "--format", "json", cwd=tmp_path)
    assert status == 0, err
    agent = json.loads(out)["agents"][0]
    assert agent["status"] == "disqualified" and "more than 1 MiB" in agent["message"]


def test_a_bundle_travels_to_a_worker_as_its_files_and_arrives_checked(tmp_path):
    """A bundle is shipped as its snapshot's files; the worker's copy is the same bundle
    (name, language, digest), and one changed byte, or a path out of it, is refused."""
    from dataclasses import replace

    from harness.agents.specs import file_spec
    from harness.run.cluster.shipment import DamagedParcel, Shipment, pack, unpack

    original = file_spec(zipped(hy_bundle(tmp_path / "src"), tmp_path / "ChenDiaz.zip"))
    shipment = pack([original])
    (copy,) = unpack(shipment)
    assert copy.is_bundle and (copy.name, copy.language, copy.entry) == (
        "ChenDiaz", "hy", "ChenDiaz")
    assert copy.sha256() == original.sha256()
    (parcel,) = shipment.agents
    (relative, digest) = parcel.bundle[0]
    changed = dict(shipment.files, **{digest: shipment.files[digest] + b" "})
    escaping = replace(parcel, bundle=(("../" + relative, digest), *parcel.bundle[1:]))
    for damaged in (Shipment(shipment.agents, changed, shipment.bundle_bytes),
                    Shipment((escaping,), shipment.files, shipment.bundle_bytes)):
        with pytest.raises(DamagedParcel, match="ChenDiaz: its bundle arrived damaged"):
            unpack(damaged)


# -- validate --------------------------------------------------------------------------------
def test_validate_takes_a_folder_of_bundles_and_files_and_no_helper_is_an_agent(tmp_path):
    course = _course(tmp_path)
    status, out, err = run_cli("validate", course, "--format", "json", "--isolation",
                               "process")
    verdicts = json.loads(out)
    assert sorted(v["agent"] for v in verdicts) == ["ChenDiaz", "JonesSmith", "RossTito"]
    assert all(v["ok"] for v in verdicts), verdicts
    assert status == 0


def test_the_team_folder_layout_still_works(tmp_path):
    team = tmp_path / "course" / "team1"
    team.mkdir(parents=True)
    (team / "RossTito.py").write_text("def RossTito(hist, score):\n    return 'CDC'\n")
    status, out, err = run_cli("tournament", *[str(p) for p in (tmp_path / "course").glob("*/")],
                               "cooperate", "--isolation", "process", "--seed", "1",
                               "--format", "lisp")
    assert status == 0, err
    assert "RossTito" in out



def test_a_renamed_bundle_plays_as_the_agent_it_holds_with_a_warning(tmp_path):
    """A bundle an LMS or a browser renamed is the agent whose file it holds, as a renamed
    file is: a folder `JonesSmith-2/` and a zip `ChenDiaz (1).zip` of a folder `ChenDiaz/`
    (before, the folder was silently no submission at all)."""
    course = tmp_path / "course"
    course.mkdir()
    python_bundle(tmp_path / "src").rename(course / "JonesSmith-2")
    zipped(hy_bundle(tmp_path / "src2"), course / "ChenDiaz (1).zip")
    status, out, err = run_cli("tournament", course, "cooperate", "--isolation", "process",
                               "--seed", "1", "--format", "json")
    assert status == 0, err
    assert sorted(agent["name"] for agent in json.loads(out)["agents"]) == [
        "ChenDiaz", "JonesSmith", "cooperate"]
    assert "JonesSmith-2 defines JonesSmith" in err and "name the folder JonesSmith\n" in err
    assert "ChenDiaz (1).zip defines ChenDiaz" in err and "name the file ChenDiaz.zip" in err


def test_a_folder_carrying_two_agents_names_is_no_bundle(tmp_path):
    """Which agent `JonesSmith-ChenDiaz/` holds, nothing says: it is a folder of submissions
    (each its own agent), not a bundle."""
    folder = tmp_path / "JonesSmith-ChenDiaz"
    folder.mkdir()
    for name in ("JonesSmith", "ChenDiaz"):
        (folder / f"{name}.py").write_text(f"def {name}(hist, score):\n    return 'CCC'\n")
    assert not bundles.is_bundle(folder)
    status, out, err = run_cli("validate", folder, "--format", "json", "--isolation",
                               "process")
    assert sorted(v["agent"] for v in json.loads(out)) == ["ChenDiaz", "JonesSmith"], err

# -- refusals ---------------------------------------------------------------------------------
def _zip(entries: dict, target: Path, method=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(target, "w", method) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            archive.writestr(info, data)
    return target


AGENT = b"def JonesSmith(hist, score):\n    return 'CCC'\n"


@contextmanager
def bundle_limit(mib: int):
    """--max-bundle-mib MIB for what runs inside, the default again after."""
    bundles.use_max_mib(mib)
    try:
        yield
    finally:
        bundles.use_max_mib(None)


def _refusal(path) -> str:
    with pytest.raises(LoadError) as caught:
        bundles.open_bundle(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_bundle_over_the_size_limit_is_refused(tmp_path):
    folder = tmp_path / "JonesSmith"
    folder.mkdir()
    (folder / "JonesSmith.py").write_bytes(AGENT)
    (folder / "big.bin").write_bytes(b"\0" * (2 * 1024 * 1024))
    with bundle_limit(1):
        assert "more than 1 MiB" in _refusal(folder)


def test_a_zip_that_expands_past_the_limit_is_refused_while_read(tmp_path):
    archive = _zip({"JonesSmith.py": AGENT, "bomb.bin": b"\0" * (3 * 1024 * 1024)},
                   tmp_path / "JonesSmith.zip")
    assert archive.stat().st_size < 100_000
    with bundle_limit(2):
        assert "more than 2 MiB (expanded)" in _refusal(archive)


def test_reading_a_zip_bomb_holds_memory_bounded(tmp_path):
    """100 MiB of zeros in a 100 KiB zip, under the default 64 MiB: refused once 64 MiB
    are out, having held a chunk at a time (tracemalloc counts what Python allocates)."""
    import tracemalloc

    archive = tmp_path / "JonesSmith.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as written:
        written.writestr("JonesSmith.py", AGENT)
        with written.open("bomb.bin", "w") as bomb:
            for _ in range(100):
                bomb.write(bytes(1024 * 1024))
    assert archive.stat().st_size < 1024 * 1024
    tracemalloc.start()
    try:
        message = _refusal(archive)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "more than 64 MiB (expanded)" in message
    assert peak < 4 * 1024 * 1024


def test_a_zip_whose_header_lies_about_its_size_is_still_counted(tmp_path):
    archive = _zip({"JonesSmith.py": AGENT, "bomb.bin": b"\0" * (3 * 1024 * 1024)},
                   tmp_path / "JonesSmith.zip")
    data = bytearray(archive.read_bytes())
    # every size field of bomb.bin (local header and central directory) says 10 bytes
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = -1
        while (at := data.find(signature, at + 1)) >= 0:
            if b"bomb.bin" in data[at:at + 80]:
                data[at + offset:at + offset + 4] = (10).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    with bundle_limit(2):
        _refusal(archive)   # cut short and damaged, or too large: never 10 bytes


def test_too_many_files_are_refused(tmp_path):
    archive = _zip({"JonesSmith.py": AGENT,
                    **{f"f{i}.txt": b"" for i in range(bundle_limits.MAX_FILES + 1)}},
                   tmp_path / "JonesSmith.zip")
    assert f"more than {bundle_limits.MAX_FILES} files" in _refusal(archive)


def test_a_link_out_of_the_bundle_is_refused(tmp_path):
    folder = tmp_path / "JonesSmith"
    folder.mkdir()
    (folder / "JonesSmith.py").write_bytes(AGENT)
    (folder / "passwd").symlink_to("/etc/passwd")
    assert "a link out of the bundle" in _refusal(folder)


def test_a_link_inside_the_bundle_is_copied_as_its_file(tmp_path):
    folder = tmp_path / "JonesSmith"
    folder.mkdir()
    (folder / "JonesSmith.py").write_bytes(AGENT)
    (folder / "data.json").write_text("[1]")
    (folder / "same.json").symlink_to("data.json")
    snapshot = Path(bundles.open_bundle(folder).folder)
    assert (snapshot / "same.json").read_text() == "[1]"
    assert not (snapshot / "same.json").is_symlink()


@pytest.mark.parametrize("name", ["../evil.py", "a/../../evil.py", "/etc/evil.py",
                                  "a\\..\\evil.py"])
def test_a_zip_entry_outside_its_folder_is_refused(tmp_path, name):
    archive = _zip({"JonesSmith.py": AGENT, name: b"x"}, tmp_path / "JonesSmith.zip")
    assert "outside its folder" in _refusal(archive)
    assert not (tmp_path / "evil.py").exists()


def test_a_non_utf8_entry_name_is_refused(tmp_path):
    archive = _zip({"JonesSmith.py": AGENT, "cafX.txt": b"x"}, tmp_path / "JonesSmith.zip")
    data = archive.read_bytes().replace(b"cafX", b"caf\xff")   # no UTF-8 flag: raw bytes
    archive.write_bytes(data)
    assert "not UTF-8" in _refusal(archive)


def test_a_folder_with_a_non_utf8_name_or_a_fifo_is_refused(tmp_path):
    folder = tmp_path / "JonesSmith"
    folder.mkdir()
    (folder / "JonesSmith.py").write_bytes(AGENT)
    (folder / os.fsdecode(b"caf\xff.txt")).write_text("x")
    assert "not UTF-8" in _refusal(folder)
    os.unlink(folder / os.fsdecode(b"caf\xff.txt"))
    os.mkfifo(folder / "pipe")
    with bundle_limit(63):   # read anew (no wait on the FIFO)
        assert "not a plain file" in _refusal(folder)


def test_a_duplicate_entry_name_is_refused(tmp_path):
    archive = tmp_path / "JonesSmith.zip"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr("JonesSmith.py", AGENT)
        with pytest.warns(UserWarning):
            written.writestr("JonesSmith.py", b"def JonesSmith(h, s): return 'DDD'")
    assert "twice" in _refusal(archive)


def test_a_zip_without_its_agent_file_is_refused(tmp_path):
    archive = _zip({"Other.py": AGENT}, tmp_path / "JonesSmith.zip")
    assert "no agent file JonesSmith" in _refusal(archive)


def test_a_zipped_folder_named_after_the_agent_is_its_bundle(tmp_path):
    archive = _zip({"JonesSmith/JonesSmith.py": AGENT, "JonesSmith/w.json": b"1"},
                   tmp_path / "JonesSmith.zip")
    found = bundles.open_bundle(archive)
    assert sorted(os.listdir(found.folder)) == ["JonesSmith.py", "w.json"]


def test_a_refused_bundle_is_a_recorded_load_error_in_a_tournament(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    _zip({"JonesSmith.py": AGENT, "../x": b"x"}, course / "JonesSmith.zip")
    (course / "RossTito.py").write_text("def RossTito(hist, score):\n    return 'CDC'\n")
    status, out, err = run_cli("tournament", course, "cooperate", "--isolation", "process",
                               "--seed", "1", "--format", "json", "--db", tmp_path / "r.sqlite")
    assert status == 0, err
    agent = next(a for a in json.loads(out)["agents"] if a["name"] == "JonesSmith")
    assert agent["status"] == "disqualified" and "outside its folder" in agent["message"]
    with sqlite3.connect(tmp_path / "r.sqlite") as connection:
        (message,) = connection.execute(
            "SELECT message FROM agent WHERE name = 'JonesSmith'").fetchone()
    assert "outside its folder" in message


# -- the zip reader, on any bytes -------------------------------------------------------------
def _valid_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("JonesSmith.py", AGENT)
        archive.writestr("data/w.json", b"[1, 2, 3]" * 50)
    return buffer.getvalue()


VALID = _valid_zip()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(
    st.binary(max_size=2000),
    st.builds(lambda at, junk: VALID[:at] + junk + VALID[at + len(junk):],
              st.integers(0, len(VALID)), st.binary(min_size=1, max_size=40)),
    st.builds(lambda at: VALID[:at], st.integers(0, len(VALID)))))
def test_any_bytes_give_a_bundle_or_one_line(tmp_path, data):
    archive = tmp_path / "JonesSmith.zip"
    archive.write_bytes(data)
    try:
        found = bundles._snapshot(str(archive), 1024 * 1024)
    except LoadError as error:
        message = str(error)
        assert message.startswith(str(archive)) and "\n" not in message
    else:
        assert found.size <= 1024 * 1024 and os.path.isfile(found.agent_file)


# -- the example a course can copy ---------------------------------------------------------------
def test_the_example_bundle_trains_validates_and_plays_as_the_readme_says(tmp_path, sandboxed):
    """examples/AdamsBrown, copied as a course would: the three commands of docs/submit.md, through
    the console script; training writes the very model the example ships."""
    import shutil

    from conftest import ROOT

    course = tmp_path / "examples"
    shutil.copytree(ROOT / "examples" / "AdamsBrown", course / "AdamsBrown")
    shutil.copy(ROOT / "examples" / "train.json", course / "train.json")
    shipped = (course / "AdamsBrown" / "model.json").read_bytes()
    (course / "AdamsBrown" / "model.json").unlink()

    def run(*args):
        done = subprocess.run([console_script(), *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("train", "examples/train.json", "--out", "examples/AdamsBrown/model.json")
    assert (course / "AdamsBrown" / "model.json").read_bytes() == shipped
    [verdict] = json.loads(run("validate", "examples/AdamsBrown", "--format", "json"))
    assert verdict["ok"] and verdict["agent"] == "AdamsBrown"
    game = json.loads(run("play", "examples/AdamsBrown", "titfortat", "--seed", "1",
                          "--format", "json"))
    assert game["agents"] == ["AdamsBrown", "titfortat"] and len(game["turns"]) > 0
    # it learned to exploit a type that always cooperates
    against = json.loads(run("play", "examples/AdamsBrown", "cooperate", "--seed", "1",
                             "--flip", "0", "0", "--format", "json"))
    assert against["score"][0] > against["score"][1]


# -- what a review of the merged bundles found ------------------------------------------------
def test_a_bundle_earns_its_host_no_right_to_read_that_its_file_would_not(
        tmp_path, monkeypatch, request):
    """Its snapshot is kept where every agent user may pass (bundles.snapshots_root), not
    in the cache: with the cache under root's private folder, a bundle once made its host
    keep root's right to read every file, and lose its world."""
    if os.geteuid() != 0:
        pytest.skip("only a root monitor runs agents as users of their own")
    import shutil
    import tempfile

    from harness.agents.specs import file_spec
    from harness.isolation.root_read import keeps_read

    # as /root is: 0700, and not under /tmp (whose caches were never used for snapshots)
    private = Path(tempfile.mkdtemp(prefix="pdharness-private-", dir="/var/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(private, ignore_errors=True))
    monkeypatch.setenv("PDHARNESS_CACHE", str(private / "cache"))
    bundle = python_bundle(tmp_path / "course")
    alone = tmp_path / "alone" / "JonesSmith.py"
    alone.parent.mkdir()
    alone.write_text(PY_AGENT)
    snapshot = file_spec(bundle).agent_file
    assert not snapshot.startswith(str(private))
    assert keeps_read(file_spec(bundle)) == keeps_read(file_spec(alone))


def test_a_bundles_fault_names_it_as_given_not_its_snapshot(tmp_path):
    """What an agent raises is recorded with the bundle's path as given: the snapshot's is
    random, and the same run must read the same on every machine."""
    bundle = make_bundle(tmp_path, "JonesSmith", {"JonesSmith.py": (
        "import os\n\n\ndef JonesSmith(hist, score):\n"
        "    raise ValueError('at ' + os.path.abspath(__file__))\n")})
    status, out, err = run_cli("play", bundle, "cooperate", "--turns", "2", "--seed", "1",
                               "--isolation", "process", "--format", "json")
    assert status == 0, err
    faults = [turn["faults"]["a"] for turn in json.loads(out)["turns"]]
    assert faults and all(fault for fault in faults), faults
    text = json.dumps(faults)
    assert "pdharness-bundles" not in text and str(bundle) in text


def test_a_bare_name_plays_the_bundle_in_the_current_folder(tmp_path, monkeypatch):
    """As for a file: the name designates what the current folder holds first,
    a bundle too, in any case."""
    from harness.agents.specs import resolve_one

    python_bundle(tmp_path)
    monkeypatch.chdir(tmp_path)
    for name in ("JonesSmith", "jonessmith"):
        [spec] = resolve_one(name, [Path(bundles.__file__).parent])
        assert spec.is_bundle and Path(spec.source).resolve() == (tmp_path / "JonesSmith")


def test_the_monitor_reads_no_long_hy_file_for_its_imports():
    """Which declared libraries a file imports is read by the monitor, never past the
    language's bound for reading untrusted text (Hy's reader is slow)."""
    from harness.agents.lang import LANGUAGES
    from harness.isolation.handles.opening import _declared_imports

    short = b"(import hyrule)\n(defn ChenDiaz [hist score] [\"C\" \"C\" \"C\"])\n"
    long = short + b";" * LANGUAGES["hy"].static_read_limit
    modules = frozenset({"hyrule"})
    assert _declared_imports("hy", "ChenDiaz.hy", short, modules) == "hyrule"
    assert _declared_imports("hy", "ChenDiaz.hy", long, modules) == ""


@given(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=30),
                 st.binary(max_size=30)))
def test_a_recorded_bundle_limit_reads_as_one_run_can_have_or_a_one_line_error(value):
    from harness.core.errors import HarnessError
    from harness.engine.parameters import BUNDLE_MIB
    from harness.store.reader import recorded_bundle_mib

    try:
        read = recorded_bundle_mib(value, "run.sqlite")
    except HarnessError as refused:
        assert "\n" not in str(refused) and "run.max_bundle_mib" in str(refused)
        assert value is not None and not (type(value) is int and BUNDLE_MIB.holds(value))
        return
    assert read is None if value is None else (read == value and BUNDLE_MIB.holds(read))
