"""No agent runs as the monitor's user, and no agent leaves its namespaces by a socket:
real agents in each language, in the real sandbox and as plain
processes, under the monitor this suite runs as.

Requires: bubblewrap and SBCL (CI has both); for the user-id tests, a root monitor (CI runs
as root) and nothing else: a dropped host keeps CAP_DAC_READ_SEARCH when its user could
not read the interpreter, the checkout or the cache otherwise (test_agent_capabilities.py
tests both cases), so they need not be open to other users. Hy agents need
Hy where the suite's interpreter finds it under -S (a global install, as CI makes).
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from harness.agents.specs import file_spec

from conftest import AGENTS, play_one

pytestmark = pytest.mark.slow  # every test starts agent hosts

HOSTILE = AGENTS / "hostile"
AS_ROOT = os.geteuid() == 0
LANGUAGES = [pytest.param("{}.py", id="python"), pytest.param("Hy{}.hy", id="hy"),
             pytest.param("Lisp{}.lisp", id="lisp")]


def moves_of(name: str, mode: str, folder: Path | None = None) -> set[str]:
    path = HOSTILE / name
    if folder is not None:
        path = Path(shutil.copy(path, folder))
    record, side, agent = play_one(file_spec(path), mode=mode, turns=3, timeout=10.0)
    faults = [t.fault_a if side == "a" else t.fault_b for t in record.turns]
    assert faults == [None] * 3, faults
    return {t.intended_a if side == "a" else t.intended_b for t in record.turns}


# -- socket families ------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", LANGUAGES)
def test_in_the_sandbox_an_agent_opens_unix_sockets_only(sandboxed, sbcl, pattern):
    """AF_VSOCK (reaches the hypervisor through any network namespace), AF_INET, AF_INET6,
    AF_NETLINK and AF_PACKET fail; AF_UNIX works (its own namespaces); the agent loads and
    plays in every language."""
    assert moves_of(pattern.format("SocketProber"), "sandbox") == {"CDC"}


@pytest.mark.parametrize("pattern", LANGUAGES)
def test_as_a_plain_process_an_agent_opens_no_socket_at_all(sbcl, pattern):
    """Without namespaces of its own even AF_UNIX would reach the machine's abstract
    sockets (a desktop's X server, D-Bus): no family is allowed."""
    assert moves_of(pattern.format("SocketProber"), "process") == {"CCC"}


# -- the agent's own user under a root monitor -----------------------------------------------
@pytest.fixture
def root_only(tmp_path):
    """A folder only root may write (as the autograder's results folder is)."""
    if not AS_ROOT:
        pytest.skip("needs a root monitor")
    folder = tmp_path / "root-only"
    folder.mkdir(mode=0o755)
    return folder


def checker_in(folder: Path, target: Path, name: str) -> Path:
    source = (HOSTILE / name).read_text()
    agent = folder / name
    agent.write_text(source.replace('ROOT_ONLY = ""', f"ROOT_ONLY = {str(target)!r}"))
    return agent


@pytest.mark.parametrize("mode", ["process", "sandbox"])
@pytest.mark.parametrize("pattern", LANGUAGES)
def test_under_a_root_monitor_no_agent_runs_as_root(request, root_only, sbcl, mode, pattern):
    if mode == "sandbox":
        request.getfixturevalue("sandboxed")
    name = pattern.format("UidChecker")
    agent = checker_in(root_only.parent, root_only, name) if name.endswith(".py") else \
        Path(shutil.copy(HOSTILE / name, root_only.parent))
    record, side, _handle = play_one(file_spec(agent), mode=mode, turns=3, timeout=10.0)
    moves = {t.intended_a if side == "a" else t.intended_b for t in record.turns}
    assert moves == {"CCC"}
    assert list(root_only.iterdir()) == []


def test_without_bubblewrap_the_fallback_runs_agents_as_their_own_user_too(root_only,
                                                                             monkeypatch):
    """The sandbox's documented fallback (bubblewrap cannot run: containers that forbid user
    namespaces) is `process` isolation, which under root drops to a user of its own."""
    from harness.isolation import sandbox

    monkeypatch.setattr(sandbox, "_support", sandbox.Support(None, "simulated: no bwrap"))
    monkeypatch.setattr(sandbox, "_warned", True)
    agent = checker_in(root_only.parent, root_only, "UidChecker.py")
    record, side, _handle = play_one(file_spec(agent), mode="sandbox", turns=3,
                                     timeout=10.0)
    assert {t.intended_a if side == "a" else t.intended_b for t in record.turns} == {"CCC"}
    assert list(root_only.iterdir()) == []


def test_each_host_gets_a_user_id_of_its_own_with_one_capability(root_only):
    """What harness/isolation/agent_user.py promises, read from the host's /proc status: a user and
    group of its own, no supplementary group, CAP_DAC_READ_SEARCH and nothing else when its
    user could not run the host without it (this suite's interpreter under /root), else no
    capability at all."""
    import subprocess
    import sys

    from harness.agents.lang.python_process import host_environment
    from harness.agents.specs import builtin_spec
    from harness.isolation.handles.opening import Isolation
    from harness.isolation.sandbox import _keeps_read, launcher

    start = launcher(builtin_spec("cooperate"), Isolation("process"))
    kept = 1 << 2 if _keeps_read(builtin_spec("cooperate")) else 0
    seen = []
    for _ in range(2):
        launch = start([sys.executable, "-c", "print(open('/proc/self/status').read())"],
                       host_environment(""))
        try:
            done = subprocess.run(launch.argv, env=launch.env, capture_output=True,
                                  text=True, timeout=60, **launch.popen_options())
        finally:
            launch.close()
            launch.ended()
        fields = dict(line.split(":\t", 1) for line in done.stdout.splitlines()
                      if ":\t" in line)
        uids, gids = fields["Uid"].split(), fields["Gid"].split()
        assert len(set(uids)) == 1 and uids[0] != "0" and set(gids) == {uids[0]}
        assert fields["Groups"].strip() == ""
        assert int(fields["CapEff"], 16) == kept and int(fields["CapAmb"], 16) == kept
        assert int(fields["NoNewPrivs"]) == 1 and int(fields["Seccomp"]) == 2
        seen.append(uids[0])
    assert seen[0] != seen[1]
