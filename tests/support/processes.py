"""`switchboard` processes of their own, for tests of what only a real process shows."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any


def service_env(settings: Any) -> dict[str, str]:
    """The environment a `switchboard` process reads (CONTRACTS 2), mirroring the test's settings."""
    return {
        **os.environ,
        "SWITCHBOARD_ENV": "test",
        "DATABASE_URL": settings.database_url,
        "TEMPORAL_ADDRESS": settings.temporal_address,
        "TEMPORAL_NAMESPACE": settings.temporal_namespace,
        "TEMPORAL_TASK_QUEUE": settings.temporal_task_queue,
        "SWITCHBOARD_ADMIN_KEY": settings.switchboard_admin_key,
        "SWITCHBOARD_SECRETS_KEY": settings.switchboard_secrets_key,
        "CHANNEL_API_BASE_URL": settings.channel_api_base_url,
        "CHANNEL_API_VERSION": settings.channel_api_version,
        "CHANNEL_APP_SECRET": settings.channel_app_secret,
        "CHANNEL_VERIFY_TOKEN": settings.channel_verify_token,
        "TOOL_EGRESS_ALLOW_PRIVATE": "true",
        "LOG_LEVEL": "WARNING",
    }


def spawn_api(settings: Any, port: int, *, workers: int = 1) -> subprocess.Popen[bytes]:
    """`switchboard api` on 127.0.0.1:``port`` with ``workers`` processes, its output discarded."""
    command = [sys.executable, "-m", "switchboard.cli", "api", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.Popen(
        [*command, "--workers", str(workers)],
        env=service_env(settings),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
