"""Every router of the API. Add one line per router; the app factory includes them all."""

from __future__ import annotations

from fastapi import APIRouter

from switchboard.api.portal import routers as portal_routers
from switchboard.api.routers import (
    admin,
    agent_runs,
    agent_threads,
    channel_webhook,
    customers,
    health,
    inbox,
    inbox_reply,
    media,
    messages,
    notifications,
    phone_numbers,
    templates,
    usernames,
    webhooks,
)
from switchboard.api.routers.agents import catalog_routers as agent_catalog_routers


def all_routers() -> list[APIRouter]:
    """The routers in registration order."""
    return [
        health.router,
        admin.router,
        customers.router,
        phone_numbers.router,
        media.router,
        messages.router,
        templates.router,
        usernames.router,
        channel_webhook.router,
        inbox.router,
        inbox_reply.router,
        notifications.router,
        webhooks.router,
        *agent_catalog_routers(),
        agent_threads.router,
        agent_runs.router,
        *portal_routers(),
    ]
