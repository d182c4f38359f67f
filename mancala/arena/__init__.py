"""The arena: the match runner, openings, game records, results, tournaments, ratings, plots
and solved sets."""
