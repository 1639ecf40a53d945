"""Training and playing the type-recognizing Q-table agent: what `pdharness
train` costs per game, and what a trained agent costs per move against a built-in, both in
the monitor's process (`--isolation none`), on `cooperate`, `defect` and `titfortat`.

    python benchmarks/train.py [GAMES]

Prints CPU seconds (this process only) and the load average, as every benchmark here does.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from harness.agents.qtable import save_model
    from harness.agents.specs import builtin_spec, resolve
    from harness.engine.game import play_game
    from harness.isolation.handles.opening import Isolation, open_handle
    from harness.run.experiment.plan import load
    from harness.run.qlearning import Training, train

    games = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f} on {os.cpu_count()} cores")
    types = [{"id": n, "agent": n, "count": 1} for n in ("cooperate", "defect", "titfortat")]
    with tempfile.TemporaryDirectory() as folder:
        for label, parameters in [("classic (1 move a turn, no flips)",
                                   {"moves_per_turn": 1, "flip": [0.0, 0.0]}),
                                  ("Levinson (3 moves a turn, 10% flips)",
                                   {"flip": [0.1, 0.1]})]:
            path = Path(folder) / "three.json"
            path.write_text(json.dumps({"types": types, "parameters": dict(
                parameters, isolation="none")}))
            condition = load(path).conditions[0]
            began = time.process_time()
            model = train(condition.types, condition.settings, Training(games=games, seed=1))
            spent = time.process_time() - began
            moves = condition.settings.game.moves_per_turn
            print(f"{label}: trained in {games} games of 10-50 turns: {spent:.2f} s CPU, "
                  f"{1000 * spent / games:.2f} ms a game")
            save_model(model, Path(folder) / "model.json")
            [agent] = resolve([f"qtable:{Path(folder) / 'model.json'}"])
            me = open_handle(agent, Isolation("none"))
            played = 0
            began = time.process_time()
            for seed in range(100):
                other = open_handle(builtin_spec(types[seed % 3]["id"]), Isolation("none"))
                played += 50 * moves * 2
                play_game(me, other, 50, seed, condition.settings.game)
            spent = time.process_time() - began
            print(f"  played 100 games of 50 turns against them: {played / spent:,.0f} "
                  f"moves/s (both sides' moves)")


if __name__ == "__main__":
    main()
