"""ASGI entry point for multi-process servers (`uvicorn api.asgi:app --workers N`).

Each server process imports this module on its own, so it configures its own
logging here: without it a worker process would log uvicorn's plain lines and
lose the JSON handler, the redaction and the request-id filter.
"""

from switchboard.api.app import create_app
from switchboard.logs import configure_logging
from switchboard.settings import Settings

settings = Settings()
configure_logging(settings.log_level)
app = create_app(settings)
