"""bench.year: one user, a year of daily conversations, through the local runtime."""
