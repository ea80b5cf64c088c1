"""Structured (JSON) logging for every process.

Log records carry ids (tenant, message, run, workflow, request) as fields. A
filter masks anything that looks like one of our secrets (API keys, webhook
secrets, bearer tokens) in case one ever reaches a message by mistake.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime

_SECRET_PATTERNS = re.compile(
    r"(gsk_(?:live|test)_[A-Za-z0-9_-]{6})[A-Za-z0-9_-]*|(whsec_)[A-Za-z0-9_-]+"
    r"|((?:Bearer|Basic) )[A-Za-z0-9._~+/=-]+|(eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9._-]+|(EAA)[A-Za-z0-9]{16,}"
)
_STANDARD = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


def redact(text: str) -> str:
    """Mask secrets in free text."""
    return _SECRET_PATTERNS.sub(lambda m: next(g for g in m.groups() if g) + "***", text)


def _redact_value(value: object) -> object:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redact_value(v) for v in value]
    return value


class JsonFormatter(logging.Formatter):
    """One JSON object per line with the record's extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                payload[key] = _redact_value(value)
        if record.exc_info:
            payload["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(payload, default=str)


def configure_logging(level: str = "INFO") -> None:
    """Send JSON lines to stderr at ``level``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("httpx", "httpcore", "uvicorn.access", "aiosqlite", "temporalio.activity"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
