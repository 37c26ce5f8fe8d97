"""The wheel `pip install .` builds (what a user installing memex without a checkout gets) holds every
package and every file the code reads at run time: packages are found, not listed, so a new one
cannot be left out."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

from tests.conftest import ROOT

# What the build reads. Copied, so that the build's own folders (build/, *.egg-info) stay out of the
# checkout and a build/lib left by an earlier build cannot put in a file the sources no longer give.
SOURCES = ("pyproject.toml", "shared", "infra", "functions")
# Shipped under shared/ for the Lambda layer's build, not read by the code.
LAYER_BUILD_FILES = {"shared/Makefile", "shared/requirements.txt"}


def source_files(folder: str, pattern: str = "*") -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).rglob(pattern)
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def built_wheel(tmp_path) -> set[str]:
    source = tmp_path / "source"
    source.mkdir()
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=ignored)
        else:
            shutil.copy2(ROOT / name, source / name)
    # Offline: the venv's own setuptools builds it, and nothing is fetched.
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                             "--quiet", "-w", str(tmp_path / "dist"), str(source)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    [wheel] = (tmp_path / "dist").glob("memex-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_holds_every_package_and_the_files_they_read(tmp_path):
    in_wheel = built_wheel(tmp_path)
    # memex and memex_edge whole: every module, and the data they read (the SQL migrations).
    shared = {path.removeprefix("shared/") for path in source_files("shared") - LAYER_BUILD_FILES}
    # The `memex` command and the handlers it runs locally: their modules.
    root = source_files("infra", "*.py") | source_files("functions", "*.py")
    assert {"memex/extraction/offline/rules/__init__.py", "memex/consolidation/__init__.py",
            "memex/db/migrations/0001_init.sql", "functions/ingest/app.py", "infra/cli.py"} <= shared | root
    assert sorted((shared | root) - in_wheel) == []
    # Nothing else: not the tests, the benchmarks, or shared/ as a package of its own.
    top = {path.split("/")[0] for path in in_wheel}
    assert {name for name in top if not name.endswith(".dist-info")} == {"memex", "memex_edge", "infra", "functions"}
