"""Running a tournament's rounds, its replicates and an experiment's tournaments on a Dask
cluster (`--cluster ADDRESS`), with exactly the result a single machine gives.

The monitor keeps everything that decides the result (seeds, rounds, drops, the record);
workers only play: each task carries the agents' files with their SHA-256 and the games or
tournaments to play, and answers with a JSON text that the monitor checks before use.

- `shipment.py`: agents travelling to workers, and checked on arrival
- `wire.py`: what a worker answers (games, placings) as plain data, and checking it
- `worker.py`: what runs on a worker (its self-check, a chunk of games, a tournament)
- `connection.py`: the monitor's side: connecting, checking every worker, tasks and answers
- `chunked_rounds.py`: a round's games in chunks of the same agents, one task each (the
  runner harness/run/round_runner.py passes into the tournament)
- `spread.py`: replicates and experiment cells, one task per tournament

`distributed` is imported only here, when a run asks for a cluster.
"""
