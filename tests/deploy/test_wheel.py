"""The wheel is the deployable: one package (plus the client), migrations included.

Built from the checkout and unpacked outside it, so nothing resolves from the source tree.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("switchboard-*.whl")
    return built


def test_the_wheel_adds_two_names_to_site_packages(wheel: Path) -> None:
    names = {name.split("/", 1)[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {name for name in names if not name.endswith(".dist-info")} == {
        "switchboard",
        "switchboard_client",
    }


def test_switchboard_migrate_runs_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    database = tmp_path / "fresh.db"
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env |= {
        "PYTHONPATH": str(site),
        "DATABASE_URL": f"sqlite+aiosqlite:///{database}",
        "SWITCHBOARD_ENV": "development",
    }
    script = (
        "import sys, switchboard\n"
        "assert switchboard.__file__.startswith(sys.argv[1]), switchboard.__file__\n"
        "from switchboard.cli import app\n"
        "sys.argv = ['switchboard', 'migrate']\n"
        "app()\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(site)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    tables = {
        row[0]
        for row in sqlite3.connect(database).execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    assert {"alembic_version", "messages", "tenants", "agent_runs"} <= tables
