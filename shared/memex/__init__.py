"""memex: long-term memory for AI agents. The domain package of the Lambda layer."""
