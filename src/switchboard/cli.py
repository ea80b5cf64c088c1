"""The `switchboard` command (CONTRACTS 1).

Every process reads its configuration from the environment (settings.py). The
`admin` subcommands (cli_admin.py) mirror the operator provisioning endpoints
and work directly on the database, so an operator can provision before any API runs.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import tempfile

import typer
import uvicorn

from switchboard.cli_admin import admin
from switchboard.cli_settings import DEV_ENV_FILE, cli_settings, use_dev_secrets
from switchboard.logs import configure_logging
from switchboard.settings import Settings

app = typer.Typer(help="Switchboard: multi-tenant messaging with an AI-agents runtime.", no_args_is_help=True)
app.add_typer(admin, name="admin")

__all__ = ["DEV_ENV_FILE", "app", "use_dev_secrets"]


@app.command()
def dev(
    api_port: int = 8000,
    simulator_port: int = 8100,
    temporal_port: int = 7233,
    temporal_ui_port: int = 8233,
    verbose: bool = typer.Option(
        False,
        "--verbose",
        "-v",
        help="log every request, send, inbound payload and tool call (LOG_LEVEL=DEBUG), and the migrations",
    ),
    summary_every: float = typer.Option(
        60.0, help="seconds between the summary lines of what the services did (0: none)", min=0
    ),
) -> None:
    """Run everything on embedded defaults (Temporal dev server, SQLite, API, worker, simulator).

    Quiet by default: the banner, then warnings and errors as they happen and one summary line a minute.
    """
    from switchboard.devstack import ensure_dev_env, run_dev

    ensure_dev_env()
    if verbose:
        os.environ["LOG_LEVEL"] = "DEBUG"
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    status = asyncio.run(
        run_dev(
            api_port=api_port,
            sim_port=simulator_port,
            temporal_port=temporal_port,
            temporal_ui_port=temporal_ui_port,
            verbose=verbose,
            summary_every=summary_every,
        )
    )
    raise typer.Exit(status)


@app.command()
def api(host: str = "127.0.0.1", port: int = 8000, workers: int = 1) -> None:
    """Run the HTTP API."""
    settings = cli_settings()
    if workers > 1:
        # Before anything imports prometheus_client: every worker process counts into files of one
        # directory, and /metrics in any of them sums them all (switchboard/metrics.py).
        # (The name is prometheus_client's; importing switchboard.metrics for it would import that too early.)
        if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
            directory = tempfile.mkdtemp(prefix="switchboard-metrics-")
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
            atexit.register(shutil.rmtree, directory, ignore_errors=True)
        from switchboard.api.worker_sockets import serve

        # One listening socket per process, so the kernel spreads connections over them (api/worker_sockets.py).
        serve("switchboard.api.asgi:app", host=host, port=port, workers=workers)
        return
    from switchboard import tracing
    from switchboard.api.app import create_app
    from switchboard.heap import freeze_startup_heap

    tracing.configure(settings, service="switchboard-api")
    served = create_app(settings)
    freeze_startup_heap()
    uvicorn.run(served, host=host, port=port, log_level="warning")


@app.command()
def worker() -> None:
    """Run a Temporal worker (same as `python -m switchboard.worker`); SIGTERM or Ctrl-C stops it cleanly."""
    from switchboard.worker import run_or_exit

    run_or_exit(cli_settings())


@app.command()
def simulator(host: str = "127.0.0.1", port: int = 8100) -> None:
    """Run the channel simulator (a Cloud API subset for development and tests)."""
    from switchboard.simulator.app import SimulatorConfig, create_simulator_app

    settings = cli_settings()
    config = SimulatorConfig(
        app_secret=settings.channel_app_secret, webhook_url=settings.simulator_webhook_url
    )
    uvicorn.run(create_simulator_app(config), host=host, port=port, log_level="warning")


@app.command()
def migrate() -> None:
    """Apply database migrations up to the newest revision."""
    from switchboard.store.migrate import upgrade_to_head

    upgrade_to_head(cli_settings().database_url)
    typer.echo("database is at the newest revision")


if __name__ == "__main__":
    app()
