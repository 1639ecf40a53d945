"""`tournament --ecology GENERATIONS`: Axelrod's ecological tournament from the run's own
scores.

Axelrod (1984, ch. 3) let each strategy's share of a population grow with its score
against the population as it then was. The payoff matrix is the run's own: M[i][j] is
agent i's points per move against agent j over all their games, and M[i][i] its points per
move against a copy of itself, which a population needs and a Levinson round robin does
not play: one self-game per round the agent played (that round's length, a seed of its
own), played only when --ecology is asked. Then, from equal shares, each generation

    payoff_i = sum_j M[i][j] * share_j;   share_i <- share_i * payoff_i / sum_k (share_k * payoff_k)

which is `axelrod.Ecosystem.reproduce` with its fitness the identity and no deviation
(Axelrod's draws each payoff from a normal of the pair's deviation; the run's matrix is
used as it is, so the ecology is a deterministic function of the run: same seed, same
shares). tests/test_ecology.py holds it equal to `axelrod.Ecosystem`.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.core import seeds
from harness.core.errors import LoadError
from harness.engine.game import play_game
from harness.isolation.handles.agent_handle import DefaultHandle

COPY_SUFFIX = "#copy"     # the copy's name, in its game's seed only
SURVIVING_SHARE = 1e-3    # an agent whose final share is below this is extinct


@dataclass(frozen=True)
class Ecology:
    agents: list[str]
    shares: list[list[float]]   # one row per generation, the first equal shares

    @property
    def generations(self) -> int:
        return len(self.shares) - 1

    def survivors(self) -> list[tuple[str, float]]:
        """(agent, final share) of those above SURVIVING_SHARE, largest first."""
        final = zip(self.agents, self.shares[-1], strict=True)
        return sorted(((name, share) for name, share in final if share >= SURVIVING_SHARE),
                      key=lambda pair: (-pair[1], pair[0]))

    def as_dict(self) -> dict:
        return {"generations": self.generations, "agents": self.agents,
                "shares": [[round(share, 12) for share in row] for row in self.shares],
                "survivors": [{"agent": name, "share": round(share, 12)}
                              for name, share in self.survivors()]}


def reproduce(matrix: list[list[float]], generations: int) -> list[list[float]]:
    """The shares from equal ones through GENERATIONS generations (Axelrod's formula)."""
    count = len(matrix)
    shares = [[1 / count] * count]
    for _ in range(generations):
        now = shares[-1]
        payoffs = [sum(matrix[i][j] * now[j] for j in range(count)) for i in range(count)]
        grown = [share * payoff for share, payoff in zip(now, payoffs, strict=True)]
        total = sum(grown)
        shares.append([value / total for value in grown] if total > 0 else list(now))
    return shares


def payoff_matrix(agents: list[str], games, self_games: dict[str, tuple[float, int]]
                  ) -> list[list[float]]:
    """Points per move of each agent against each (self_games: {agent: (points, moves)})."""
    index = {name: i for i, name in enumerate(agents)}
    points = [[0.0] * len(agents) for _ in agents]
    moves = [[0] * len(agents) for _ in agents]
    for game in games:
        a, b = index.get(game.a), index.get(game.b)
        if a is None or b is None:
            continue
        played = sum(len(turn) for turn in game.played_a)
        points[a][b] += game.score[0]
        points[b][a] += game.score[1]
        moves[a][b] += played
        moves[b][a] += played
    for name, (scored, played) in self_games.items():
        i = index[name]
        points[i][i], moves[i][i] = scored, played
    return [[points[i][j] / moves[i][j] if moves[i][j] else 0.0 for j in range(len(agents))]
            for i in range(len(agents))]


def self_games(specs, result, settings) -> dict[str, tuple[float, int]]:
    """Each agent against a copy of itself, once per round it played: {agent: (points of
    one side on average, moves)}. An agent that does not load plays default answers."""
    # heavy (concurrent, ctypes, email): loaded only where used
    from harness.isolation.handles.opening import open_handle

    lengths = {game.round: game.length for game in result.games}
    played: dict[str, tuple[float, int]] = {}
    for spec in specs:
        rounds = [r.number for r in result.rounds if spec.name in r.scores]
        handles = []
        for _side in range(2):
            try:
                handles.append(open_handle(spec, settings.isolation))
            except LoadError as error:
                handles.append(DefaultHandle(spec.name, str(error)))
        points, moves = 0.0, 0
        try:
            for number in rounds:
                seed = seeds.game_seed(result.seed, number, spec.name, spec.name + COPY_SUFFIX)
                game = play_game(handles[0], handles[1], lengths.get(number, 1), seed,
                                 settings.game, number)
                points += (game.score[0] + game.score[1]) / 2
                moves += sum(len(turn) for turn in game.played_a)
        finally:
            for handle in handles:
                handle.close()
        played[spec.name] = (points, moves)
    return played


def ecology_of(specs, result, settings, generations: int) -> Ecology:
    agents = [entrant.name for entrant in result.entrants]
    matrix = payoff_matrix(agents, result.games, self_games(specs, result, settings))
    return Ecology(agents, reproduce(matrix, generations))
