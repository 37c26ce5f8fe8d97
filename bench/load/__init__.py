"""The load benchmark: memex under the memex seed's load scenario, beside an S2-style pipeline."""
