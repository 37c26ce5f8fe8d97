"""The edge of the layer: HTTP app, SQS, AWS secrets and observability around the memex domain."""
