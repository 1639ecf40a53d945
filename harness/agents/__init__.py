"""The kinds of agent: where one comes from (specs.py), its file read safely, the languages
(lang/), the built-ins, Memory-N and Q-table agents, populations, and the runtime that runs
next to an agent and turns its answers into moves."""
