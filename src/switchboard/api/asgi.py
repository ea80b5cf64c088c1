"""ASGI entry point for multi-process servers (`uvicorn api.asgi:app --workers N`).

Each server process imports this module on its own, so it configures its own
logging here: without it a worker process would log uvicorn's plain lines and
lose the JSON handler, the redaction and the request-id filter; and its tracing. It also freezes
its start-up heap (``switchboard.heap``), as ``switchboard api`` does in one process.
"""

from switchboard import tracing
from switchboard.api.app import create_app
from switchboard.heap import freeze_startup_heap
from switchboard.logs import configure_logging
from switchboard.settings import Settings

settings = Settings()
configure_logging(settings.log_level, settings.log_format)
tracing.configure(settings, service="switchboard-api")
app = create_app(settings)
freeze_startup_heap()
