"""`pdharness moran AGENT... --size N`: a seeded Moran process of pdharness agents.

A population of N individuals, the types (AGENTs) shared out as evenly as the size
allows (the first types given take the extra ones). Each generation, as in Axelrod's
`MoranProcess` (birth-death, a complete graph): every pair of individuals plays one game
under the run's rules (its length drawn per generation as a tournament's round draws it),
an individual's fitness is its points per move summed over its games; one is chosen to
reproduce with probability proportional to its fitness, one other uniformly at random
dies and is replaced by the newborn, which with probability `mutation` is instead of
another type, uniformly. Without mutation the process ends at fixation (one type left);
with it, or if it has not fixed, after `max_generations`.

Every draw follows from the seed: the games' seeds from (seed, generation, the pair's
names), the birth, death and mutation from (seed, "moran", generation). An individual is
named `type#slot` (its slot 1..N), so a game's seed, and so the whole process, is the same
with any --jobs.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from harness.agents.specs import AgentSpec, Kind
from harness.core import seeds
from harness.core.errors import HarnessError
from harness.core.safe_text import line
from harness.engine.rounds import draw_length, round_robin
from harness.engine.runners import HandlePool, make_runner


@dataclass
class MoranResult:
    seed: int
    size: int
    mutation: float
    types: list[str]
    fixation: str | None = None
    record: list[dict] = field(default_factory=list)   # one entry per generation

    @property
    def generations(self) -> int:
        return len(self.record)

    def as_dict(self) -> dict:
        return {"seed": self.seed, "size": self.size, "mutation": self.mutation,
                "types": self.types, "fixation": self.fixation,
                "generations": self.generations, "record": self.record}


def initial_population(types: list[str], size: int) -> list[str]:
    share, extra = divmod(size, len(types))
    return [name for index, name in enumerate(types)
            for _ in range(share + (index < extra))]


def _copy(spec, name: str):
    """SPEC playing as the individual NAME (a built-in keeps its strategy's name)."""
    if spec.kind is Kind.BUILTIN and spec.source == Kind.BUILTIN.spelling:
        return AgentSpec(name, spec.language, spec.name)
    return replace(spec, name=name)


def _refuse_broken(specs, isolation) -> None:
    """A type that does not load would play the default answer as if it chose to: its
    share would be no result about it. HarnessError (one line) naming the first such."""
    probe = HandlePool(list(specs), isolation)
    try:
        broken = probe.open_all()
    finally:
        probe.close()
    if broken:
        name = sorted(broken)[0]
        raise HarnessError(f"{line(name)} does not load: {line(broken[name])}")


def run_moran(specs, seed: int, size: int, mutation: float, max_generations: int,
              settings, on_generation=None) -> MoranResult:
    by_type = {spec.name: spec for spec in specs}
    types = list(by_type)
    _refuse_broken(specs, settings.isolation)
    population = initial_population(types, size)
    result = MoranResult(seed, size, mutation, types)

    def name(slot: int) -> str:
        return f"{population[slot]}#{slot + 1}"

    pool = HandlePool([_copy(by_type[kind], name(slot)) for slot, kind in enumerate(population)],
                      settings.isolation)
    # forked workers (`none`, --jobs > 1) copy the pool as it is when they are forked:
    # there, a generation's runner is its own, so each generation's newborn is in it
    forks = settings.isolation.mode == "none"
    runner = make_runner(pool, settings.game, settings.jobs)
    try:
        for generation in range(1, max_generations + 1):
            if mutation == 0 and len(set(population)) == 1:
                break
            names = [name(slot) for slot in range(size)]
            length = draw_length(seed, generation, settings.length)
            games = runner.play(round_robin(names, generation, length, seed, settings.length))
            if forks:
                runner.close()
                runner = make_runner(pool, settings.game, settings.jobs)
            fitness = _fitness(names, games)
            rng = random.Random(seeds.derive(seed, "moran", generation))
            born, died, newborn = _birth_and_death(population, fitness, mutation, types, rng)
            old = name(died)
            population[died] = newborn
            if name(died) != old:
                pool.release([old])
                pool.specs[name(died)] = _copy(by_type[newborn], name(died))
            entry = {"generation": generation, "game_length": length,
                     "birth": {"slot": born + 1, "type": population[born]},
                     "death": {"slot": died + 1, "type": old.rsplit("#", 1)[0]},
                     "newborn": newborn, "mutated": newborn != population[born],
                     "population": {kind: population.count(kind) for kind in types}}
            result.record.append(entry)
            if on_generation is not None:
                on_generation(entry)
    finally:
        runner.close()
        pool.close()
    remaining = set(population)
    result.fixation = remaining.pop() if len(remaining) == 1 else None
    return result


def _fitness(names: list[str], games) -> list[float]:
    index = {name: i for i, name in enumerate(names)}
    fitness = [0.0] * len(names)
    for game in games:
        moves = sum(len(turn) for turn in game.played_a) or 1
        fitness[index[game.a]] += game.score[0] / moves
        fitness[index[game.b]] += game.score[1] / moves
    return fitness


def _birth_and_death(population, fitness, mutation, types, rng):
    """(the slot that reproduces, the slot that dies, the newborn's type)."""
    total = sum(fitness)
    weights = fitness if total > 0 else [1.0] * len(fitness)
    born = rng.choices(range(len(population)), weights=weights)[0]
    died = rng.choice([slot for slot in range(len(population)) if slot != born])
    newborn = population[born]
    others = [kind for kind in types if kind != newborn]
    if others and rng.random() < mutation:
        newborn = rng.choice(others)
    return born, died, newborn
