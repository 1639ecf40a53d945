"""A ladder's pass on a real Dask cluster (`--cluster`), files and a bundle, plays the very
games, and gives the very board, that it plays here."""
import json
import os
import sqlite3

import pytest

from conftest import pdharness
from test_ladder import write_agent

pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed") if os.environ.get("CI", "").lower() != \
    "true" else __import__("distributed")   # CI installs the `test` extra: never a skip


def test_a_pass_on_a_cluster_is_the_local_pass(tmp_path):
    from test_cluster import local_cluster

    folder = tmp_path / "subs"
    folder.mkdir()
    write_agent(folder, "AdamsBrown", extra="import random\n",
                moves='random.choice("CD"), "C", "D"')
    write_agent(folder, "ChenDiaz", '"D", "D", "C"')
    bundle = folder / "EvansFord"             # a bundle: its helper travels with it
    bundle.mkdir()
    (bundle / "moves.py").write_text("MOVES = ['C', 'D', 'D']\n", encoding="utf-8")
    (bundle / "EvansFord.py").write_text(
        "from moves import MOVES\ndef EvansFord(hist, score):\n    return MOVES\n",
        encoding="utf-8")
    args = ("ladder", folder, "--seed", "4", "--length", "3", "6", "--games-per-pair", "3",
            "--reference", "titfortat", "--isolation", "process", "--timeout", "30",
            "--format", "json")
    local = pdharness(*args, "--db", tmp_path / "local.sqlite")
    with local_cluster() as cluster:
        far = pdharness(*args, "--db", tmp_path / "far.sqlite", "--cluster",
                        cluster.scheduler_address)
    assert json.loads(far.stdout) == json.loads(local.stdout)
    query = ("SELECT number, seed, length, score_a, score_b, intended_a, played_a, "
             "intended_b, played_b, faults FROM game ORDER BY 1, 2")
    rows = [sqlite3.connect(tmp_path / name).execute(query).fetchall()
            for name in ("local.sqlite", "far.sqlite")]
    assert rows[0] == rows[1] and len(rows[0]) == 6 * 3   # four agents, three a pair
