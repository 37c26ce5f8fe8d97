"""The slice of the Lambda context object that handlers and Powertools read."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field


@dataclass
class LocalLambdaContext:
    function_name: str
    memory_limit_in_mb: int = 1024
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    log_group_name: str = "local"
    log_stream_name: str = "local"

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000
