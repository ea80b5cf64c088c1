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
    metrics,
    notifications,
    phone_numbers,
    templates,
    usernames,
    webhook_deliveries,
    webhooks,
)
from switchboard.api.routers.agents import catalog_routers as agent_catalog_routers


def all_routers() -> list[APIRouter]:
    """The routers in registration order."""
    return [
        health.router,
        metrics.router,
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
        webhook_deliveries.router,
        *agent_catalog_routers(),
        agent_threads.router,
        agent_runs.router,
        *portal_routers(),
    ]


# The routers whose requests are most of the traffic: inbound payloads, then sends.
_HOT = (channel_webhook.router, messages.router)


def serving_order(routers: list[APIRouter]) -> list[APIRouter]:
    """The routers in the order a request is matched against them: the hot ones first.

    Starlette tries the routes in order, and FastAPI matches an included router's routes once to
    pick it and once more to serve; a send matched after the admin and customer routers spent a
    few per cent of its API CPU finding its handler. Reordering is safe because no route shadows
    another (tests/api/test_route_order.py); /openapi.json keeps ``all_routers``' order.
    """
    return [*(r for r in _HOT if r in routers), *(r for r in routers if r not in _HOT)]
