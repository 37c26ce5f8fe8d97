"""bench.startup's timing of `make dev`: a start that fails is reported as its failure."""

from __future__ import annotations

import pytest

from bench import startup
from bench.service import ServiceError


def test_a_make_dev_that_exits_is_reported_as_such(tmp_path, monkeypatch):
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "Makefile").write_text("dev:\n\texit 3\n")
    monkeypatch.setattr(startup, "ROOT", checkout)  # its `make dev` fails at once, its group gone with it
    home = tmp_path / "home"
    home.mkdir()
    with pytest.raises(ServiceError, match="exited with 2"):  # make's own status for a failed recipe
        startup.time_to_healthy(home)
