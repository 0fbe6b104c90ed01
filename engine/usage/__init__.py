"""Usage and cost across sessions: value types, aggregation, and reading the indexes it aggregates."""
