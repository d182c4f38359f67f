"""The arena: the match runner, openings, game records, results, tournaments, ratings, plots,
solved sets, the measure against perfect play and the speed benchmarks."""
