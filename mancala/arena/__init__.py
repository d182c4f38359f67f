"""The arena: the match runner, game records, tournaments, ratings, plots and solved sets."""
