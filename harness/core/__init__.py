"""The vocabulary every layer shares: the game's rules and horizons, seeds, the verdict words
(statuses, fault kinds), errors a user sees as one line, and safe text for untrusted strings.
Pure and cheap; imports nothing else of the harness."""
