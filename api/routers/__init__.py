"""Every router of the API. Add one line per router; the app factory includes them all."""

from __future__ import annotations

from fastapi import APIRouter

from api.routers import admin, customers, health, messages, phone_numbers


def all_routers() -> list[APIRouter]:
    """The routers in registration order."""
    return [
        health.router,
        admin.router,
        customers.router,
        phone_numbers.router,
        messages.router,
    ]
