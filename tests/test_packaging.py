"""The wheel `pip install .` builds (what a user installing memex without a checkout gets) holds every
package and every file the code reads at run time: packages are found, not listed, so a new one
cannot be left out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT

# What the build reads. Copied, so that the build's own folders (build/, *.egg-info) stay out of the
# checkout and a build/lib left by an earlier build cannot put in a file the sources no longer give.
SOURCES = ("pyproject.toml", "template.yaml", "shared", "infra", "functions")
# Shipped under shared/ for the Lambda layer's build, not read by the code.
LAYER_BUILD_FILES = {"shared/Makefile", "shared/requirements.txt"}
# Read at run time outside shared/: infra.template's link to the repository's template.yaml.
INFRA_DATA = {"infra/template.yaml"}

# Run from the unpacked wheel: where each package is imported from, and what it reads there.
READS = """
import json
from functions.sweep import app
from infra import template
from memex.db import migrations
print(json.dumps({"files": [app.__file__, template.__file__, migrations.__file__],
                  "migrations": len(migrations._migration_files()), "sweep_timeout": template.function_timeout("sweep")}))
"""


def source_files(folder: str, pattern: str = "*") -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob(pattern)
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, symlinks=True, ignore=ignored)
        else:
            shutil.copy2(ROOT / name, source / name)
    # Offline: the venv's own setuptools builds it, and nothing is fetched; it must be one pyproject.toml's
    # build-system accepts (pip checks none without isolation unless asked), so that what is tested here is
    # a build that `pip install .` in isolation may also do.
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                             "--check-build-dependencies", "--quiet", "-w", str(work / "dist"), str(source)],
                            cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    [built] = (work / "dist").glob("memex-*.whl")
    return built


def test_the_wheel_holds_every_package_and_the_files_they_read(wheel):
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = set(archive.namelist())
    # memex and memex_edge whole: every module, and the data they read (the SQL migrations).
    shared = {path.removeprefix("shared/") for path in source_files("shared") - LAYER_BUILD_FILES}
    # The `memex` command and the handlers its local runtime runs: their modules, and the template.
    root = source_files("infra", "*.py") | source_files("functions", "*.py") | INFRA_DATA
    assert {"memex/extraction/offline/rules/__init__.py", "memex/consolidation/__init__.py",
            "memex/db/migrations/0001_init.sql", "functions/ingest/app.py", "infra/cli.py"} <= shared | root
    assert sorted((shared | root) - in_wheel) == []
    # Nothing else: not the tests, the benchmarks, or shared/ as a package of its own.
    top = {path.split("/")[0] for path in in_wheel}
    assert {name for name in top if not name.endswith(".dist-info")} == {"memex", "memex_edge", "infra", "functions"}


def test_the_unpacked_wheel_reads_its_migrations_and_template_without_a_checkout(wheel, tmp_path):
    """Imported from the wheel's files alone (a folder that is not the checkout, first on the path),
    the code finds what it reads: the template through the link's content, the migrations."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    result = subprocess.run([sys.executable, "-c", READS], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    read = json.loads(result.stdout)
    assert all(file.startswith(str(tmp_path / "site")) for file in read["files"]), read["files"]
    assert read["migrations"] == len(list((ROOT / "shared/memex/db/migrations").glob("*.sql")))
    assert read["sweep_timeout"] > 0
    # the template itself, not a link's text (extractall makes no link: the member's bytes are the file's)
    assert (tmp_path / "site/infra/template.yaml").read_bytes() == (ROOT / "template.yaml").read_bytes()


def link_as_text() -> str:
    """infra/template.yaml's link as git writes it where it makes no links (core.symlinks=false, the default on
    Windows): a file holding its target's path. Read when a test asks, from the link or from such a file, so
    that this module is collected on a checkout of either kind."""
    link = ROOT / "infra/template.yaml"
    return os.readlink(link) if link.is_symlink() else link.read_text()


READS_TEMPLATE = "from infra import template; print(template.function_timeout('sweep'))"


def test_a_checkout_without_links_reads_the_root_template(tmp_path):
    shutil.copy2(ROOT / "template.yaml", tmp_path / "template.yaml")
    shutil.copytree(ROOT / "infra", tmp_path / "infra", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "template.yaml"))
    (tmp_path / "infra/template.yaml").write_text(link_as_text())
    result = subprocess.run([sys.executable, "-c", READS_TEMPLATE], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert int(result.stdout) > 0


def test_a_package_holding_the_link_as_text_says_so(wheel, tmp_path):
    """A wheel built from such a checkout carries the link's text, not the template: reading it says what
    happened, not a parser's TypeError."""
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "site")
    (tmp_path / "site/infra/template.yaml").write_text(link_as_text())
    result = subprocess.run([sys.executable, "-c", READS_TEMPLATE], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(tmp_path / "site")}, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0
    assert f"holds the path {link_as_text()!r}, not the template" in result.stderr
