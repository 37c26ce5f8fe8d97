"""What is not the app: the local runtime, the CLI, LocalStack bootstrap and deploy helpers."""
