"""Runs as the command line makes them: a tournament session (recorded, with a progress
bar, resumable), its replicates, experiments, training, and the cluster as a runner."""
