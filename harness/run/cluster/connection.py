"""The monitor's side of a cluster: connect to the scheduler, check every worker before
any work, run tasks, and turn their answers (JSON texts) into checked plain data.

Dask reschedules the tasks of a worker that dies on another worker; every game is seeded
by itself, so the answer is the same wherever and however often a task runs.
"""
from __future__ import annotations

from harness.core.errors import HarnessError
from harness.core.safe_text import line

from . import wire
from .worker import check, needs

CONNECT_SECONDS = 30
WORKERS_SECONDS = 60


def _distributed():
    try:
        import distributed  # optional: distributed may not be installed
    except ImportError:
        raise HarnessError("--cluster needs Dask's distributed: pip install "
                           "'pdharness[cluster]'") from None
    return distributed


class Cluster:
    """A connection to a Dask scheduler for one run, its workers checked for `needed`."""

    def __init__(self, address: str, needed: dict):
        distributed = _distributed()
        self.address, self.needed = address, needed
        try:
            self.client = distributed.Client(address, timeout=CONNECT_SECONDS,
                                             set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise HarnessError(f"--cluster {address}: cannot reach the scheduler "
                               f"({type(error).__name__})") from None
        try:
            self._check_workers()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def _check_workers(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_SECONDS)
        except (TimeoutError, OSError):
            raise HarnessError(f"--cluster {self.address}: no worker joined the scheduler "
                               f"within {WORKERS_SECONDS} s") from None
        for where, text in sorted(self.client.run(check, self.needed).items()):
            answer = _checked(text, where)
            if answer.get("refused") is not None:
                raise HarnessError(f"worker {where} refuses the work: "
                                   f"{wire.text(answer['refused'], 'a refusal')}")

    @property
    def threads(self) -> int:
        """How many tasks the workers run at once."""
        return max(1, sum(self.client.nthreads().values()))

    def run(self, tasks):
        """Run `tasks` [(function, args, size)], biggest first; yield (index, answer) as
        each is done, the answer a dict checked to be a JSON object of a worker that did
        the work."""
        distributed = _distributed()
        futures = {}
        for index, (function, args, size) in enumerate(tasks):
            future = self.client.submit(function, *args, pure=False, priority=size)
            futures[future] = index
        try:
            for future in distributed.as_completed(list(futures), loop=self.client.loop):
                yield futures.pop(future), self._answer(future)
        finally:
            if futures:   # interrupted, or a task failed: nothing more is wanted
                self.client.cancel(list(futures))

    def _answer(self, future) -> dict:
        try:
            text = future.result()
        except Exception as error:   # the scheduler's: a task lost with its workers
            raise HarnessError(f"--cluster {self.address}: a task failed "
                               f"({type(error).__name__}: {_short(error)})") from None
        answer = _checked(text, "a worker")
        if answer.get("refused") is not None:
            raise HarnessError(f"worker {worker_name(answer)} refuses the work: "
                               f"{_short(answer['refused'])}")
        if answer.get("error") is not None:
            raise HarnessError(f"worker {worker_name(answer)}: {_short(answer['error'])}")
        return answer


def worker_name(answer: dict) -> str:
    """The address a worker's answer gives, as it may be shown."""
    where = answer.get("worker")
    return _short(where)[:100] if isinstance(where, str) else "?"


def _checked(text, where) -> dict:
    try:
        return wire.loads(text)
    except wire.BadAnswer as bad:
        raise HarnessError(f"worker {_short(where)}: an answer that is {bad}") from None


def _short(value) -> str:
    return line(str(value))[:300]


def open_cluster(address: str, specs, isolation_mode: str) -> Cluster:
    return Cluster(address, needs(isolation_mode, specs))
