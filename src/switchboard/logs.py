"""Structured (JSON) logging for every process.

Log records carry ids (tenant, message, run, workflow, request) as fields:
those a call passes in ``extra``; those bound to the current context with
``bound_log_fields`` (the API binds the request id and, once the caller is
authenticated, the tenant id); and, inside Temporal, the workflow id, run id
and type and the activity type of the workflow or activity that logs.
``ContextFilter`` adds the bound and Temporal ones; it sits on the process's
handler, so records of every library get them too. The formatter masks
anything that looks like one of our secrets (API keys, webhook secrets, bearer
tokens, model-provider keys, credential headers) in case one ever reaches a
message, a field or a traceback by mistake.

Two formats, one set of fields: JSON lines (``LOG_FORMAT=json``, production's
default, for a log pipeline) and one readable line per record (``text``, which
``switchboard dev`` uses). ``LOG_LEVEL`` sets our own loggers' level; the
libraries' stay at INFO or above, so ``LOG_LEVEL=DEBUG`` brings back our
per-request and per-item lines without the libraries' wire chatter. Expected
failures (an upstream answering 5xx, a model provider's 429) are logged by us as
one line with their code and attempt, and raised to Temporal as BENIGN so the
SDK logs no traceback for them: a traceback means a bug.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import IO

from temporalio import activity, workflow

# The activities blank the exact provider keys and WABA tokens out of every error
# (domain.redaction); these shapes are the second net for a line that escaped them:
# model-provider keys (sk-..., sk-ant-..., sk-proj-..., AIza...) and credential headers
# quoted as text (x-api-key, x-goog-api-key, api-key).
_SECRET_PATTERNS = re.compile(
    r"(gsk_(?:live|test)_[A-Za-z0-9_-]{6})[A-Za-z0-9_-]*|(whsec_)[A-Za-z0-9_-]+"
    r"|((?:Bearer|Basic) )[A-Za-z0-9._~+/=-]+|(eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9._-]+|(EAA)[A-Za-z0-9]{16,}"
    r"|(sk-(?:ant-|proj-)?)[A-Za-z0-9_-]{16,}|(AIza)[A-Za-z0-9_-]{30,}"
    r"|((?i:x-goog-api-key|x-api-key|api-key)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]+"
)
_STANDARD = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}
# Per request or task, not per process: a ContextVar follows asyncio tasks and
# the threads Starlette and Temporal run sync code in.
_bound: ContextVar[tuple[Mapping[str, object], ...]] = ContextVar("switchboard_log_fields", default=())


@contextmanager
def bound_log_fields(fields: Mapping[str, object]) -> Iterator[None]:
    """Add ``fields`` to every record logged in this context (inner bindings win); read lazily."""
    token = _bound.set((*_bound.get(), fields))
    try:
        yield
    finally:
        _bound.reset(token)


def _temporal_fields() -> dict[str, object]:
    if activity.in_activity():
        info = activity.info()
        return {
            "workflow_id": info.workflow_id,
            "workflow_run_id": info.workflow_run_id,
            "workflow_type": info.workflow_type,
            "activity_type": info.activity_type,
            "activity_attempt": info.attempt,
        }
    if workflow.in_workflow():
        winfo = workflow.info()
        return {
            "workflow_id": winfo.workflow_id,
            "workflow_run_id": winfo.run_id,
            "workflow_type": winfo.workflow_type,
        }
    return {}


class ContextFilter(logging.Filter):
    """Adds the context's bound fields and the Temporal ids to a record; a call's own ``extra`` wins."""

    def filter(self, record: logging.LogRecord) -> bool:
        fields: dict[str, object] = {}
        for bound in _bound.get():
            fields.update(bound)
        fields.update(_temporal_fields())
        for key, value in fields.items():
            if value is not None and key not in record.__dict__:
                setattr(record, key, value)
        return True


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
        payload: dict[str, object] = {
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


# Fields a reader at a terminal does not need on every line: they are in the JSON form.
_TEXT_OMITTED = frozenset({"workflow_run_id", "workflow_type", "activity_type", "taskName"})


class TextFormatter(logging.Formatter):
    """One readable line per record: time, level, message, then the fields as ``name=value``."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        fields = " ".join(
            f"{key}={_redact_value(value)}"
            for key, value in vars(record).items()
            if key not in _STANDARD and key not in _TEXT_OMITTED and not key.startswith("_")
        )
        line = f"{when} {record.levelname:<7} {redact(record.getMessage())}"
        if fields:
            line += "  " + fields
        if record.exc_info:
            line += "\n" + redact(self.formatException(record.exc_info))
        return line


LOG_FORMATS = {"json": JsonFormatter, "text": TextFormatter}


def json_handler(stream: IO[str] | None = None, *, fmt: str = "json") -> logging.Handler:
    """A handler writing one redacted line per record (JSON, or ``text``), with the context's ids added."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(LOG_FORMATS[fmt]())
    handler.addFilter(ContextFilter())
    return handler


def configure_logging(level: str = "INFO", fmt: str = "json") -> None:
    """Send lines to stderr: ours at ``level``, the libraries' at INFO or above (``level`` if higher)."""
    handler = json_handler(fmt=fmt)
    ours = logging.getLevelName(level.upper())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(max(ours, logging.INFO))
    logging.getLogger("switchboard").setLevel(ours)
    for noisy in ("httpx", "httpcore", "uvicorn.access", "aiosqlite", "temporalio.activity"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
