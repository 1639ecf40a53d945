"""The behaviour pin (tests/golden/pin.py): a fixed-seed tournament of Python, Hy and Lisp
agents with faulty ones, played through the console script, gives the committed JSON in every
isolation mode and for --jobs 1 and 2.

A failure here means the code changed what a tournament produces. If that was meant,
regenerate the expected file (`python tests/golden/regenerate.py`) and say why in the commit.
"""
from __future__ import annotations

import pytest
from golden import pin


@pytest.mark.parametrize("jobs", pin.JOBS)
@pytest.mark.parametrize("mode", [
    pytest.param(mode, marks=[pytest.mark.sandbox] if mode == "sandbox" else [])
    for mode in pin.MODES])
def test_the_pinned_tournament_gives_the_committed_json(mode, jobs, sbcl, request, tmp_path):
    if mode == "sandbox":
        request.getfixturevalue("sandboxed")
    shown = pin.normalized(pin.play(mode, jobs, tmp_path))
    # compared as text: the order of keys is part of the output too
    text = pin.dumps(shown)
    if text != pin.EXPECTED.read_text(encoding="utf-8"):
        (tmp_path / "got.json").write_text(text, encoding="utf-8")
    assert text == pin.EXPECTED.read_text(encoding="utf-8"), (
        f"--isolation {mode} --jobs {jobs} no longer gives tests/golden/tournament.json "
        f"(this run's: {tmp_path / 'got.json'}); {pin.fault_changes(shown)}. If the change "
        "is meant, run python tests/golden/regenerate.py")


def test_the_normalizer_cuts_only_what_may_vary():
    """The repository's folder, the isolation mode and the runtimes' versions go;
    everything else stays."""
    raw = {"params": {"flip": [0.25, 0.1], "isolation": "process"},
           "runtimes": {"python": "Python 3.11.2", "lisp": "SBCL 2.2.9.debian"},
           "agents": [{"source": str(pin.ROOT / "tests" / "A.py"), "message": None}],
           "seed": 7}
    assert pin.normalized(raw) == {"params": {"flip": [0.25, 0.1]},
                                   "runtimes": {"python": "VERSION", "lisp": "VERSION"},
                                   "agents": [{"source": "tests/A.py", "message": None}],
                                   "seed": 7}
