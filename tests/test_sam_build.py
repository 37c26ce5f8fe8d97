"""`sam build` without a container, and what ends up in the SharedLayer.

Slow (a few minutes: it downloads the layer's wheels); marked `slow`.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, installed_tool

TEMPLATE = ROOT / "template.yaml"

# Lambda's limit on a function plus all its layers, unzipped: 250 MB = 262,144,000 bytes.
UNZIPPED_LIMIT = 250 * 1024 * 1024
MB = 1024 * 1024

pytestmark = pytest.mark.slow


def du_bytes(path: Path) -> int:
    """Apparent size in bytes, as `du -sb` reports it."""
    if shutil.which("du"):
        out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout
        return int(out.split()[0])
    total = path.lstat().st_size
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            total += (Path(dirpath) / name).lstat().st_size
    return total


def runtime_interpreter() -> Path:
    """A working interpreter of the template's runtime: `sam build` looks for one on PATH, and
    the layer is imported with it. pyenv keeps versions off PATH (its shim only runs the
    selected ones), so its versions folder is looked in too."""
    runtime = read_runtime()
    version = runtime.removeprefix("python")
    if runtime == f"python{sys.version_info[0]}.{sys.version_info[1]}":
        return Path(sys.executable)
    candidates = [shutil.which(runtime)]
    candidates += sorted(glob.glob(str(Path.home() / f".pyenv/versions/{version}*/bin/{runtime}")), reverse=True)
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == str(tuple(map(int, version.split(".")))):
            return Path(candidate)
    pytest.fail(f"template.yaml's runtime is {runtime}: sam build and this test need a Python {version} "
                f"interpreter. Install one (pyenv install {version}, or your system's {runtime} package) "
                f"and put it on PATH.")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    build_dir = tmp_path_factory.mktemp("sam") / "build"
    runtime_bin = runtime_interpreter().parent
    env = dict(os.environ, SAM_CLI_TELEMETRY="0", PYTHON=sys.executable,
               PATH=os.pathsep.join([str(runtime_bin), os.environ.get("PATH", "")]))
    command = [
        installed_tool("sam"), "build",
        "--template-file", str(TEMPLATE),
        "--build-dir", str(build_dir),
        "--no-use-container",
        "--no-cached",
    ]
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.monotonic() - started
    output = result.stdout + result.stderr
    # pip prints one line per unused local index; they say nothing about the build.
    output = "\n".join(line for line in output.splitlines() if "is neither a file nor a directory" not in line)
    print(f"\nsam build took {seconds:.0f} s (exit {result.returncode})")
    assert result.returncode == 0, f"sam build failed after {seconds:.0f} s:\n{output[-8000:]}"
    return build_dir


@pytest.fixture(scope="module")
def layer(build) -> Path:
    python = build / "SharedLayer" / "python"
    assert python.is_dir(), f"no SharedLayer/python in {sorted(p.name for p in build.iterdir())}"
    return python


def test_layer_fits_lambda_unzipped_limit(build, layer):
    layer_bytes = du_bytes(layer.parent)
    functions = {p.name: du_bytes(p) for p in build.iterdir() if p.is_dir() and p.name != "SharedLayer"}
    biggest = max(functions.values(), default=0)
    message = (
        f"SharedLayer unzipped: {layer_bytes / MB:.1f} MB ({layer_bytes} bytes); "
        f"largest function: {biggest / 1024:.1f} KB; limit {UNZIPPED_LIMIT / MB:.0f} MB"
    )
    print("\n" + message)
    assert layer_bytes + biggest < UNZIPPED_LIMIT, message


def test_layer_has_code_model_and_encoding(layer):
    for relative in (
        "memex/__init__.py",
        "memex_edge/__init__.py",
        "all_minilm_l6_v2/model.zip",
        "tiktoken_ext/data/cl100k_base.tiktoken",
    ):
        assert (layer / relative).is_file(), f"missing python/{relative}"


def test_layer_has_no_torch_boto3_hub_client_caches_or_tests(layer):
    names = {p.name.lower() for p in layer.iterdir()}
    for forbidden in ("torch", "boto3", "botocore", "s3transfer", "sentence_transformers", "nvidia",
                      "huggingface_hub", "hf_xet"):
        assert forbidden not in names, f"{forbidden} got into the layer"
        assert not any(re.match(rf"{forbidden}-[^/]*\.dist-info$", n) for n in names), f"{forbidden} dist-info"
    leftovers = [str(p.relative_to(layer)) for p in layer.rglob("*") if p.name in ("__pycache__", "tests")]
    assert not leftovers, f"left in the layer: {leftovers[:10]}"


def lambda_python(tmp_path: Path):
    """(interpreter, sys.path prefix, suffix) that mimic the Lambda runtime: the template's
    Python, /opt/python, then the runtime's own boto3 - nothing from this machine's site-packages."""
    interpreter = str(runtime_interpreter())
    runtime_dir = tmp_path / "runtime"
    runtime_dir.mkdir()
    for module in ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six"):
        source = Path(__import__(module).__file__)
        source = source.parent if source.name == "__init__.py" else source
        (runtime_dir / source.name).symlink_to(source)
    return interpreter, runtime_dir


LAMBDA_ENV = {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_LAMBDA_FUNCTION_NAME": "memex-layer-check",  # Powertools behaves as in Lambda
    "POWERTOOLS_SERVICE_NAME": "memex",
    "POWERTOOLS_METRICS_NAMESPACE": "Memex",
    "MEMEX_REQUIRE_API_KEY": "true",
    "DATABASE_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:memex-db-AbCdEf",
}


def run_in_lambda_python(interpreter: str, paths: list[Path], runtime_dir: Path, code: str, cwd: Path):
    prelude = f"import sys; sys.path[:0] = {[str(p) for p in paths]!r}; sys.path.append({str(runtime_dir)!r})\n"
    env = dict(LAMBDA_ENV, PATH=os.environ.get("PATH", ""))
    return subprocess.run([interpreter, "-S", "-c", prelude + code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_every_handler_imports_against_the_layer_alone(build, layer, tmp_path):
    """Import each built handler the way Lambda would, with only its folder and the layer."""
    interpreter, runtime_dir = lambda_python(tmp_path)
    failures = []
    for function_dir in sorted(p for p in build.iterdir() if p.is_dir() and p.name != "SharedLayer"):
        result = run_in_lambda_python(interpreter, [function_dir, layer], runtime_dir,
                                      "import app\nassert callable(app.handler), 'handler is not callable'",
                                      function_dir)
        if result.returncode != 0:
            failures.append(f"--- {function_dir.name}:\n{result.stderr.strip()[-1500:]}")
    assert not failures, "handlers that do not import against the layer:\n" + "\n".join(failures)


LAYER_WORKS_OFFLINE = """
import numpy as np
from memex.budget import count_tokens
from memex.embeddings.minilm import MiniLMEmbedder
tokens = count_tokens("I just started at Notion as a PM.")
assert tokens == 10, tokens
vectors = MiniLMEmbedder().embed(["I just started at Notion as a PM.", ""])
assert vectors.shape == (2, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
print(tokens, vectors.shape)
"""


def test_token_encoding_and_model_load_from_the_layer_offline(layer, tmp_path):
    """Tokens are counted and texts embedded with the layer alone (its numpy, its files), as in Lambda."""
    interpreter, runtime_dir = lambda_python(tmp_path)
    result = run_in_lambda_python(interpreter, [layer], runtime_dir, LAYER_WORKS_OFFLINE, tmp_path)
    assert result.returncode == 0, result.stderr.strip()[-3000:]


def read_runtime() -> str:
    text = TEMPLATE.read_text()
    match = re.search(r"^\s+Runtime:\s*(\S+)", text, re.MULTILINE)
    assert match, "no Runtime in template.yaml"
    return match.group(1)

