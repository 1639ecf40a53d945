"""The game and its scheduling: a game between two handles, round robins and elimination,
the tournament loop, the runners that play a round's games, and the parameter table.
It opens agents through isolation's handles and knows nothing of records or printing."""
