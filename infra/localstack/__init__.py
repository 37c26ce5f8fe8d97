"""LocalStack run in-process (its own Python 3.13 virtualenv, no Docker): start, bootstrap, serve."""
