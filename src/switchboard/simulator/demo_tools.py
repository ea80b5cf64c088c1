"""Demo tool endpoints for development: a tiny appointments API that agent tools can call offline.

``switchboard dev`` serves these next to the channel simulator so the agent walkthrough in
docs/agents.md works without any outside service. Point a binding's ``base_url`` at
``http://127.0.0.1:8100/_demo-tools``. Nothing is stored, and the same request always gets the
same answer:

- ``GET /_demo-tools/slots?date=YYYY-MM-DD``: the free times of that day (every day has the same
  times); a date that is not ``YYYY-MM-DD`` is a 400.
- ``POST /_demo-tools/bookings`` with ``{"date", "time", ...}``: 201 with a booking whose id is
  derived from the body. The time ``13:00`` is always taken: 409 ``slot_taken``, the business error
  a tool declares under ``errors.negocio``.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

PREFIX = "/_demo-tools"
SLOT_TIMES = ("09:00", "10:30", "13:00", "16:00")
TAKEN_TIME = "13:00"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

router = APIRouter(prefix=PREFIX, tags=["demo tools (development only)"])


@router.get("/slots")
async def slots(date: str = "") -> JSONResponse:
    """The free appointment times of a date (the same every day, 13:00 excepted)."""
    if not _DATE.match(date):
        return JSONResponse({"error": "bad_date", "message": "date must be YYYY-MM-DD"}, status_code=400)
    free = [time for time in SLOT_TIMES if time != TAKEN_TIME]
    return JSONResponse({"data": {"date": date, "slots": free}})


@router.post("/bookings")
async def bookings(request: Request) -> JSONResponse:
    """Book a date and time: 201 with the booking, or 409 ``slot_taken`` for 13:00."""
    try:
        body: Any = json.loads(await request.body() or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict) or not body.get("date") or not body.get("time"):
        return JSONResponse(
            {"error": "bad_request", "message": "send a JSON object with date and time"}, status_code=400
        )
    if body["time"] == TAKEN_TIME:
        return JSONResponse(
            {"error": "slot_taken", "message": f"{TAKEN_TIME} is taken on {body['date']}"}, status_code=409
        )
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()
    booking = {"id": f"bk_{digest[:12]}", **body}
    return JSONResponse({"data": {"booking": booking}}, status_code=201)
