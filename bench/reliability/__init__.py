"""The reliability campaign (`make reliability`): fuzzing, faults, concurrency, isolation and an
erasure audit, run against the real local runtime over HTTP."""
