"""Search at a million memories (`python -m bench.scale`; see __main__.py)."""
