"""One Powertools Logger, Tracer and Metrics setup shared by every function."""

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger(service="memex")
tracer = Tracer(service="memex")
metrics = Metrics(namespace="Memex", service="memex")
