"""Where an agent's code runs and what it may touch: the handles the engine talks to, the
host process and its zygote, a fresh world per game, the sandbox (bubblewrap), resource
limits, cgroups, seccomp and the user an agent runs as."""
