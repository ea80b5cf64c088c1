"""The deployment files describe the production shape and parse."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
ENV = {
    **os.environ,
    "POSTGRES_PASSWORD": "pw",
    "SWITCHBOARD_ADMIN_KEY": "a" * 32,
    "SWITCHBOARD_SECRETS_KEY": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
    "CHANNEL_APP_SECRET": "s",
    "CHANNEL_VERIFY_TOKEN": "v",
}


def test_compose_has_the_production_services():
    spec = yaml.safe_load(COMPOSE.read_text())
    services = spec["services"]
    assert {"postgres", "temporal", "temporal-ui", "migrate", "api", "worker"} <= set(services)
    assert services["migrate"]["command"] == ["migrate"]
    assert services["worker"]["command"] == ["worker"]
    # Workers scale with --scale: no fixed container name or host port.
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    assert services["api"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["api"]["environment"]["SWITCHBOARD_ENV"] == "production"
    # The agent workflows' search attributes are registered before any worker starts them.
    setup = " ".join(services["temporal-setup"]["command"])
    assert "SwitchboardTenantId" in setup and "SwitchboardThreadId" in setup
    assert services["worker"]["depends_on"]["temporal-setup"]["condition"] == "service_completed_successfully"


def _compose_command() -> list[str] | None:
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_docker_compose_config_accepts_the_file():
    command = _compose_command()
    if command is None:
        pytest.skip("no docker compose CLI on this machine")
    result = subprocess.run(
        [*command, "-f", str(COMPOSE), "config", "--quiet"], capture_output=True, text=True, env=ENV, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr


def test_dockerfile_runs_the_switchboard_command():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["switchboard"]' in dockerfile
    # The image installs the package's wheel at the versions requirements.lock pins, like make dev/test.
    assert "pip install -c /tmp/requirements.lock /tmp/wheels/*.whl" in dockerfile
    # One copy of the code: the runtime stage copies the wheel, never the source tree.
    runtime_stage = dockerfile.rsplit("\nFROM ", 1)[1]
    copies = [line for line in runtime_stage.splitlines() if line.startswith("COPY")]
    assert copies and all("src" not in line and " . ." not in line for line in copies), copies


def test_the_lock_pins_every_declared_dependency():
    """Each requirement in pyproject.toml (extras included) has an exact pin in requirements.lock."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + project["optional-dependencies"]["dev"]
    pinned = {
        re.split(r"[=;\s]", line, maxsplit=1)[0].lower().replace("_", "-")
        for line in (ROOT / "requirements.lock").read_text().splitlines()
        if "==" in line and not line.startswith("#")
    }
    names = {re.split(r"[\[<>=!~;\s]", req, maxsplit=1)[0].lower().replace("_", "-") for req in declared}
    assert names and names <= pinned, sorted(names - pinned)
