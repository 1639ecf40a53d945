"""Submission files that are not plain files (a link restored from a student's archive, a
FIFO, a device) or are too large: refused as agents with a load error that says why, never
read through, never hanging; `validate` and `tournament` agree, in every isolation mode."""
import json
import os
import stat

import pytest

from harness.agents.agent_files import MAX_AGENT_BYTES, read_agent_file
from harness.core.errors import LoadError

from conftest import run_cli

SECRET = "TOP-SECRET-4f1c9a"   # what the link's target holds: must never be quoted
GOOD = "def {name}(hist, score):\n    return 'CCC'\n"
TIMEOUT = 240                  # a FIFO that hangs the monitor fails the test, not the suite


def plant(folder, secret_file):
    """One file of each kind the harness must refuse, next to a good agent."""
    folder.mkdir()
    (folder / "AdamsBrown.py").write_text(GOOD.format(name="AdamsBrown"))
    (folder / "LinkLee.py").symlink_to(secret_file)
    os.mkfifo(folder / "PipeParker.py")
    huge = GOOD.format(name="HugeHill") + "#" * (MAX_AGENT_BYTES + 10) + "\n"
    (folder / "HugeHill.py").write_text(huge)
    return {"LinkLee": "symbolic link", "PipeParker": "FIFO",
            "HugeHill": f"at most {MAX_AGENT_BYTES // 1024} KiB"}


@pytest.fixture
def secret_file(tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text(f"def LinkLee(hist, score):\n    return '{SECRET}'\n")
    secret.chmod(0o600)
    return secret


def _device(folder) -> bool:
    """A character device like /dev/null named as an agent; only root may make one."""
    try:
        os.mknod(folder / "DevDunn.py", 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        return False
    return True


def test_validate_refuses_each_kind_and_says_which(tmp_path, secret_file):
    folder = tmp_path / "subs"
    expected = plant(folder, secret_file)
    if _device(folder):
        expected["DevDunn"] = "character device"
    status, out, err = run_cli("validate", folder, "--format", "json", "--isolation",
                               "process", timeout=TIMEOUT)
    assert status == 1, err
    verdicts = {v["agent"]: v for v in json.loads(out)}
    assert verdicts["AdamsBrown"]["ok"]
    for name, words in expected.items():
        problems = verdicts[name]["problems"]
        assert [p["code"] for p in problems] == ["load-error"], problems
        assert words in problems[0]["message"]
    assert SECRET not in out + err


@pytest.mark.parametrize("mode", ["process", "sandbox"])
def test_tournament_and_its_record_refuse_them_as_validate_does(tmp_path, secret_file, mode,
                                                               bwrap):
    folder = tmp_path / "subs"
    expected = plant(folder, secret_file)
    record = tmp_path / "run.sqlite"
    status, out, err = run_cli("tournament", folder, "--format", "json", "--seed", "5",
                               "--length", "3", "3", "--max-rounds", "1", "--isolation", mode,
                               "--db", record, timeout=TIMEOUT)
    assert status == 0, err
    agents = {a["name"]: a for a in json.loads(out)["agents"]}
    assert agents["AdamsBrown"]["status"] == "ok"
    for name, words in expected.items():
        assert agents[name]["status"] == "disqualified"   # does not load
        assert words in agents[name]["message"]
    assert SECRET not in out + err
    assert SECRET.encode() not in record.read_bytes()


def test_a_file_named_on_the_command_line_is_refused_the_same_way(tmp_path, secret_file):
    link = tmp_path / "LinkLee.py"
    link.symlink_to(secret_file)
    status, out, err = run_cli("tournament", link, "cooperate", "--format", "json",
                               "--seed", "5", "--length", "3", "3", "--isolation", "none",
                               timeout=TIMEOUT)
    assert status == 0, err
    agents = {a["name"]: a for a in json.loads(out)["agents"]}
    assert agents["LinkLee"]["status"] == "disqualified"   # does not load
    assert "symbolic link" in agents["LinkLee"]["message"]
    assert SECRET not in out + err


def test_reading_is_capped_and_never_follows_a_link(tmp_path, secret_file):
    exact = tmp_path / "Exact.py"
    exact.write_bytes(b"#" * MAX_AGENT_BYTES)
    assert len(read_agent_file(exact)) == MAX_AGENT_BYTES
    exact.write_bytes(b"#" * (MAX_AGENT_BYTES + 1))
    with pytest.raises(LoadError, match="at most"):
        read_agent_file(exact)
    link = tmp_path / "Link.py"
    link.symlink_to(secret_file)
    with pytest.raises(LoadError, match="symbolic link") as refused:
        read_agent_file(link)
    assert SECRET not in str(refused.value)
