"""How agents run: a plain value the engine holds in its Settings and the handles read
(harness/isolation/handles/opening.py makes handles by it)."""
from __future__ import annotations

from dataclasses import dataclass

from harness.agents.agent_environment import resolve
from harness.core.errors import ParameterError

from ..limits import DEFAULT_MEMORY


@dataclass(frozen=True)
class Isolation:
    """How agents run: `sandbox` (own process inside bubblewrap), `process` (own process)
    or `none` (inside the monitor)."""

    mode: str = "sandbox"
    timeout: float = 1.0          # seconds per call: the one time limit, enforced and recorded
    memory_limit: int = DEFAULT_MEMORY   # bytes of address space for an agent's process
    load_timeout: float = 10.0    # seconds to load an agent's file (its module body, its load)
    # what agents may import besides the standard library, hy and hyrule: pip requirements
    # (harness/agents/agent_environment.py)
    agent_packages: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.timeout > 0:
            raise ParameterError(f"timeout {self.timeout} must be positive")
        if not self.load_timeout > 0:
            raise ParameterError(f"load timeout {self.load_timeout} must be positive")
        object.__setattr__(self, "agent_packages", tuple(self.agent_packages))

    def environment(self):
        """The agents' environment this declares, resolved here (HarnessError if a declared
        package is not installed)."""
        return resolve(self.agent_packages)
