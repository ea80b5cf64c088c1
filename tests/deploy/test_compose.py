"""The deployment files describe the production shape and parse."""

from __future__ import annotations

import json
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
    "GRAFANA_ADMIN_PASSWORD": "g",
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


def test_prometheus_scrapes_the_api_and_every_worker_and_grafana_shows_the_dashboard():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    scrape = yaml.safe_load((ROOT / "deploy/prometheus/prometheus.yml").read_text())["scrape_configs"]
    jobs = {job["job_name"]: job for job in scrape}
    assert jobs["switchboard-api"]["static_configs"][0]["targets"] == ["api:8000"]
    workers = jobs["switchboard-worker"]["dns_sd_configs"][0]
    # Every scaled worker's listener, reachable on the compose network.
    assert (workers["names"], workers["port"]) == (["worker"], 9101)
    assert services["worker"]["environment"]["WORKER_METRICS_HOST"] == "0.0.0.0"
    assert (
        "./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro"
        in services["prometheus"]["volumes"]
    )
    grafana = services["grafana"]
    assert "./deploy/grafana/provisioning:/etc/grafana/provisioning:ro" in grafana["volumes"]
    assert "./deploy/grafana/dashboards:/var/lib/grafana/dashboards:ro" in grafana["volumes"]
    provider = yaml.safe_load((ROOT / "deploy/grafana/provisioning/dashboards/switchboard.yml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    (source,) = yaml.safe_load((ROOT / "deploy/grafana/provisioning/datasources/prometheus.yml").read_text())[
        "datasources"
    ]
    assert source["url"] == "http://prometheus:9090"
    dashboard = json.loads((ROOT / "deploy/grafana/dashboards/switchboard.json").read_text())
    uids = {t["datasource"]["uid"] for p in dashboard["panels"] for t in p.get("targets", [])}
    assert uids == {source["uid"]}
    # Traces go to Jaeger's OTLP/HTTP port unless the operator points them elsewhere (or empties it).
    assert (
        services["api"]["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"]
        == "${OTEL_EXPORTER_OTLP_ENDPOINT-http://jaeger:4318}"
    )


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
