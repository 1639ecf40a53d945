"""What a host's zygote makes of its agent before the first fork (harness/isolation/host_agent.py):
the rehearsal plays our own stand-in, whatever the agent is called, and leaves the game's
runtime as it was."""
from __future__ import annotations

import pytest

from harness.agents.lang import LANGUAGES
from harness.core import protocol
from harness.core.rules import Payoffs
from harness.isolation import host_agent


@pytest.mark.parametrize("language", ["python", "hy"])
def test_the_rehearsal_plays_the_harness_call_path_to_moves(language):
    assert host_agent.rehearse(LANGUAGES[language], Payoffs()) == {protocol.MOVES}


@pytest.mark.parametrize("name", [
    "a(x=open({marker!r}, 'w').write('ran')) -> int",   # a default argument runs with the def
    "Jones-Smith (1)", "class", "2fast"])
def test_an_agent_name_is_never_code_in_the_zygote(tmp_path, name):
    """The agent's name is the upload's file name: the zygote runs no code made from it
    (it once formatted the name into the stand-in's source), and any name rehearses."""
    marker = tmp_path / "ran"
    source = tmp_path / "Agent.py"
    source.write_text("def Agent(hist, score):\n    return 'CCC'\n")
    agent = host_agent.Agent("python", str(source), name.format(marker=str(marker)))
    assert not marker.exists()
    assert agent.ready.function is None and agent.ready.hist == []   # the game's: unplayed
