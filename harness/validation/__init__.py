"""`pdharness validate`: will this submission play, and if not, exactly why."""
