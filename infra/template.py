"""template.yaml read as CloudFormation reads it, and the queue attributes it declares, so that
every local copy of the queues (moto, LocalStack) is made as the stack makes them; and each
function's Timeout, which a local run of it counts its time left down from."""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import yaml

# A link to the repository's template.yaml (where sam reads it), so that the package carries it: an
# installed memex has no checkout around it, and its local runtime reads queues and timeouts here.
TEMPLATE = Path(__file__).with_name("template.yaml")
# Properties of AWS::SQS::Queue that are SQS attributes under the same name. QueueName and
# RedrivePolicy are resolved by whoever creates the queue (they hold !Sub and !GetAtt).
_ATTRIBUTES = ("FifoQueue", "ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit",
               "VisibilityTimeout", "MessageRetentionPeriod", "SqsManagedSseEnabled", "DelaySeconds",
               "MaximumMessageSize", "ReceiveMessageWaitTimeSeconds")


class CfnLoader(yaml.SafeLoader):
    """SafeLoader that reads CloudFormation short forms (!Ref, !GetAtt, !Sub, ...) as the
    long-form dicts CloudFormation itself would see."""


def _short_form(loader: CfnLoader, suffix: str, node: yaml.Node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix in ("Ref", "Condition"):  # the two long forms without the Fn:: prefix
        return {suffix: value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


CfnLoader.add_multi_constructor("!", _short_form)


# Lambda's Timeout for a function that names none, in its own properties or the template's Globals.
LAMBDA_DEFAULT_TIMEOUT = 3


@functools.cache
def _parsed() -> dict:
    parsed = yaml.load(TEMPLATE.read_text(), Loader=CfnLoader)
    if isinstance(parsed, str):
        # Where git makes no links (core.symlinks=false, Windows' default) the link is a file holding its
        # target's path: followed here. A package built from such a checkout carries that path, no template.
        target = TEMPLATE.parent / parsed
        if not target.is_file():
            raise FileNotFoundError(f"{TEMPLATE} holds the path {parsed!r}, not the template: a link git checked "
                                    f"out as a file, and {target.resolve()} is not there. Build memex from a "
                                    "checkout made with links (git config core.symlinks true), or copy "
                                    "template.yaml over it")
        parsed = yaml.load(target.read_text(), Loader=CfnLoader)
    return parsed


def load() -> dict:
    """The template, parsed once a process; a copy of its own for each caller, which may change it
    (localstack.stack replaces the code locations)."""
    return copy.deepcopy(_parsed())


def _attribute(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def queue_attributes(logical_id: str) -> tuple[dict[str, str], str | None, int | None]:
    """(SQS attributes, logical id of its dead-letter queue or None, maxReceiveCount or None) of
    one AWS::SQS::Queue of the template."""
    template = _parsed()
    properties = template["Resources"][logical_id].get("Properties", {})
    attributes = {name: _attribute(properties[name]) for name in _ATTRIBUTES if name in properties}
    redrive = properties.get("RedrivePolicy")
    if redrive is None:
        return attributes, None, None
    count = redrive["maxReceiveCount"]
    if isinstance(count, dict):  # !FindInMap [Map, Key, Name]
        map_name, key, name = count["Fn::FindInMap"]
        count = template["Mappings"][map_name][key][name]
    return attributes, redrive["deadLetterTargetArn"]["Fn::GetAtt"][0], int(count)


def function_timeout(folder: str) -> int:
    """The Timeout, in seconds, of the template's function whose code is functions/<folder>/ (its own,
    else the Globals')."""
    template = _parsed()
    defaults = template.get("Globals", {}).get("Function", {})
    found = [{**defaults, **resource.get("Properties", {})} for resource in template["Resources"].values()
             if resource["Type"] == "AWS::Serverless::Function"
             and resource.get("Properties", {}).get("CodeUri", "").rstrip("/") == f"functions/{folder}"]
    if len(found) != 1:
        raise LookupError(f"template.yaml has {len(found)} functions whose code is functions/{folder}/")
    return int(found[0].get("Timeout", LAMBDA_DEFAULT_TIMEOUT))
