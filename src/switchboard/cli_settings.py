"""Settings for the `switchboard` command's processes, with `switchboard dev`'s generated secrets outside production."""

from __future__ import annotations

import os
from pathlib import Path

from switchboard.logs import configure_logging
from switchboard.settings import Settings

DEV_ENV_FILE = Path(".switchboard") / "env"


def use_dev_secrets(env_file: Path = DEV_ENV_FILE) -> None:
    """Outside production, take variables still unset from the file `switchboard dev` generated.

    So `switchboard admin create-waba` next to `make dev` seals tokens with the same secrets key as
    the running service. The environment wins; production never reads the file.
    """
    # Settings reads the environment case-insensitively; so do these checks.
    present = {key.upper(): value for key, value in os.environ.items()}
    if present.get("SWITCHBOARD_ENV", "").strip().lower() == "production" or not env_file.is_file():
        return
    for line in env_file.read_text().splitlines():
        name, sep, value = line.partition("=")
        if sep and not line.startswith("#") and name.strip().upper() not in present:
            os.environ[name.strip()] = value


def cli_settings() -> Settings:
    """The settings a CLI command runs with (development secrets filled in, logging configured)."""
    use_dev_secrets()
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    return settings
