"""`switchboard api` as a process of its own, for tests of what only a real server process shows."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any


def api_env(settings: Any) -> dict[str, str]:
    """The environment that runs the API on this test's database and Temporal server."""
    return {
        **os.environ,
        "DATABASE_URL": settings.database_url,
        "TEMPORAL_ADDRESS": settings.temporal_address,
        "SWITCHBOARD_ADMIN_KEY": settings.switchboard_admin_key,
        "SWITCHBOARD_SECRETS_KEY": settings.switchboard_secrets_key,
        "SWITCHBOARD_ENV": "test",
        "LOG_LEVEL": "WARNING",
    }


def spawn_api(settings: Any, port: int, *, workers: int = 1) -> subprocess.Popen[bytes]:
    """`switchboard api` on 127.0.0.1:``port`` with ``workers`` processes, its output discarded."""
    command = [sys.executable, "-m", "switchboard.cli", "api", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.Popen(
        [*command, "--workers", str(workers)],
        env=api_env(settings),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
