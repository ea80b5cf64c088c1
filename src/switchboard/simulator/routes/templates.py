"""``/{waba_id}/message_templates``: create, list and delete templates."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request

from switchboard.simulator.graph_errors import invalid_parameter, missing_parameter, unknown_object
from switchboard.simulator.routes.common import Poster, State, Token, json_body
from switchboard.simulator.templates import auto_review, create_template, list_templates

router = APIRouter()


@router.post("/{version}/{waba_id}/message_templates")
async def post_template(
    waba_id: str, request: Request, state: State, poster: Poster, _token: Token
) -> dict[str, Any]:
    """Create a template; it starts PENDING (see ``template_review_ms`` and ``/_sim/templates``)."""
    template = create_template(state, waba_id, await json_body(request))
    if state.config.template_review_ms is not None:
        state.spawn(auto_review(state, poster, template, state.config.template_review_ms))
    return {"id": template.id, "status": template.status, "category": template.category}


@router.get("/{version}/{waba_id}/message_templates")
async def get_templates(
    version: str, waba_id: str, request: Request, state: State, _token: Token
) -> dict[str, Any]:
    """List a WABA's templates with Graph filters (status, category, language, name) and cursor paging."""
    next_base = f"{str(request.base_url).rstrip('/')}/{version}/{waba_id}/message_templates"
    return list_templates(state, waba_id, dict(request.query_params), next_base=next_base)


@router.delete("/{version}/{waba_id}/message_templates")
async def delete_templates(waba_id: str, request: Request, state: State, _token: Token) -> dict[str, Any]:
    """Delete by name (all languages), by name and hsm_id (one), or by hsm_ids (bulk)."""
    params = request.query_params
    owned = {t.id: t for t in state.templates.values() if t.waba_id == waba_id}
    if params.get("hsm_ids"):
        try:
            ids = {str(i) for i in json.loads(params["hsm_ids"])}
        except (json.JSONDecodeError, TypeError) as exc:
            raise invalid_parameter("hsm_ids must be a JSON array of template ids.") from exc
        doomed = [t for t in owned.values() if t.id in ids]
    elif params.get("name"):
        doomed = [t for t in owned.values() if t.name == params["name"]]
        if params.get("hsm_id"):
            doomed = [t for t in doomed if t.id == params["hsm_id"]]
    else:
        raise missing_parameter("name")
    if not doomed:
        raise unknown_object(params.get("hsm_id") or params.get("name") or params["hsm_ids"], method="delete")
    for template in doomed:
        del state.templates[template.id]
    return {"success": True}
