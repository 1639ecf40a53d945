"""Agent handles: the seam between a game and an agent, whatever its language or isolation."""
