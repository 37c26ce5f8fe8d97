"""The embedded default: the Lambda functions and their queues, run in one local process."""
