"""Team: Adams, Brown. A trained agent as a bundle: this file plays the Q-table model
`pdharness train` wrote beside it (model.json), read through __file__; the reading of the
model is in adamsbrown_model.py, a helper module of the bundle.

Train, check and play it (from the repository's top folder):
    pdharness train examples/train.json --out examples/AdamsBrown/model.json
    pdharness validate examples/AdamsBrown
    pdharness play examples/AdamsBrown titfortat
"""
import os

from adamsbrown_model import Model

MODEL = Model.read(os.path.join(os.path.dirname(__file__), "model.json"))


def AdamsBrown(hist, score):
    mine = [pair[0] for pair in hist]
    theirs = [pair[1] for pair in hist]
    return [MODEL.move(mine, theirs, len(hist) + j) for j in range(3)]
