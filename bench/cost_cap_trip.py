"""Where a 1 USD thread cap trips, for every model of the built-in rate cards (goal: at 0.95 USD or more).

A thread of growing history calls its model until the cost breaker blocks the
next call: each turn the customer writes, the model asks a tool (a slot
search), the tool answers JSON, the model replies in text; nothing is ever
reset and nothing is cached, so every call is larger than the last. Each call
is estimated and decided by the service's own code (activities.agents.
cost_estimate, domain.agents.cost, with the thread's recent calls as
store.agents.budget.recent_calls reads them), and billed with usage that a
provider's tokenizer would report: characters per token as measured on such
conversations with cl100k, o200k and Anthropic's tokenizer (Anthropic's for
anthropic, o200k's for openai and google, cl100k's for mistral), a per-call
jitter of +-10 %, Anthropic's 346-token tool-use preamble. Printed for each
model: the spend at which the cap tripped, the calls made, the largest call,
and where the previous rule (the whole request at 2 characters a token at the
dearest input price, plus max_tokens) tripped on the same thread.

Run: .venv/bin/python bench/cost_cap_trip.py
Pure computation: no server, no network; well under a second.
"""

from __future__ import annotations

import json
import random
import sys
import zlib
from decimal import ROUND_CEILING, Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import record_results

from switchboard.activities.agents.cost_estimate import estimate_call, prompt_size
from switchboard.activities.llm.rate_cards import load_rate_cards
from switchboard.domain.agents.cost import check_caps
from switchboard.domain.pricing import RateCard, cost_usd
from switchboard.models.llm import (
    AssistantMessage,
    LlmMessage,
    LlmRequest,
    LlmTool,
    LlmToolCall,
    LlmUsage,
    ToolResultMessage,
    UserMessage,
)
from switchboard.store.agents.budget import RECENT_CALLS, ThreadCalls

CAP = Decimal("1")
GOAL = Decimal("0.95")
MAX_TOKENS = 1024
# Characters per token (prose, JSON) a provider's tokenizer gives on this kind of conversation.
TOKENIZER = {
    "anthropic": (3.23, 2.85),
    "openai": (3.88, 3.05),
    "google": (3.88, 3.05),
    "mistral": (3.40, 3.00),
}
PREAMBLE = {"anthropic": 346, "openai": 24, "google": 24, "mistral": 24}

SYSTEM = (
    "Sos el asistente de la Clínica San Martín. Atendés por WhatsApp a pacientes que quieren pedir, "
    "cambiar o cancelar turnos. Respondé siempre en español rioplatense, con frases cortas y amables. "
    "Nunca des diagnósticos médicos ni recomendaciones de medicamentos; si alguien describe síntomas "
    "graves, pedile que llame al 107 o vaya a la guardia. Los turnos se dan de lunes a viernes de 8 a 20 "
    "y los sábados de 9 a 13. Para reservar necesitás el nombre completo, el DNI, la especialidad y una "
    "fecha preferida. Confirmá los datos antes de reservar. "
) * 3
TOOLS = [
    LlmTool(
        name="buscar_turnos",
        description="Busca turnos disponibles por especialidad, profesional y fecha.",
        parameters={
            "type": "object",
            "properties": {
                "especialidad": {
                    "type": "string",
                    "enum": ["clinica_medica", "cardiologia", "pediatria", "dermatologia"],
                },
                "profesional": {"type": "string", "description": "Nombre del profesional, opcional"},
                "fecha": {"type": "string", "format": "date", "description": "Fecha preferida (AAAA-MM-DD)"},
            },
            "required": ["especialidad", "fecha"],
        },
    ),
    LlmTool(
        name="reservar_turno",
        description="Reserva un turno para el paciente.",
        parameters={
            "type": "object",
            "properties": {
                "slot_id": {"type": "string"},
                "nombre": {"type": "string"},
                "dni": {"type": "string"},
            },
            "required": ["slot_id", "nombre", "dni"],
        },
    ),
]
USER_SAYS = [
    "Hola, quería saber si tienen turno con la doctora Pérez para la semana que viene, a la mañana.",
    "¿Y el jueves a la tarde? Trabajo hasta las 14.",
    "perfecto, gracias!! una consulta, el estacionamiento es gratis?",
    "Necesito cambiar el turno del martes, me surgió un viaje. ¿Hay algo el viernes?",
]
REPLY = (
    "Tengo estos horarios con la Dra. Pérez: martes 2 de diciembre a las 9:00 o a las 10:30, y miércoles 3 "
    "a las 8:45. ¿Cuál te queda mejor? Recordá traer tu DNI y la credencial de la obra social."
)


def _slots(turn: int) -> str:
    rows = [
        {
            "id": f"slot_{turn}_{n}",
            "start": f"2026-12-0{1 + n}T{9 + n}:00:00-03:00",
            "doctor": "Dra. Ana Pérez",
            "specialty": "clinica_medica",
            "available": True,
        }
        for n in range(4)
    ]
    return json.dumps({"data": rows}, ensure_ascii=False)


class Tokenizer:
    """Usage as the provider would report it, with a deterministic jitter per call."""

    def __init__(self, provider: str, seed: int) -> None:
        self.prose, self.json = TOKENIZER[provider]
        self.preamble = PREAMBLE[provider]
        self.random = random.Random(seed)

    def prompt_tokens(self, request: LlmRequest) -> int:
        size = prompt_size(request)
        tokens = size.prose_chars / self.prose + size.json_chars / self.json + 3 * size.messages
        tokens += self.preamble if size.tools else 0
        return int(tokens * self.random.uniform(0.9, 1.1))

    def output_tokens(self, text: str) -> int:
        return int(len(text) / self.prose * self.random.uniform(0.9, 1.1)) + 1


def _previous_rule(request: LlmRequest, card: RateCard) -> Decimal:
    chars = len(request.model_dump_json())
    tokens = -(-chars // 2)
    prices = card.prices_for(tokens)
    total = tokens * max(prices.input, prices.cache_write) + request.max_tokens * prices.output
    return (total / Decimal(1_000_000)).quantize(Decimal("1e-10"), rounding=ROUND_CEILING)


def run_thread(card: RateCard) -> dict[str, Any]:
    """Call until the breaker blocks; the spend at the trip under the new and the previous rule."""
    tokenizer = Tokenizer(card.provider, seed=zlib.crc32(card.model.encode()))
    history: list[LlmMessage] = []
    steps: list[dict[str, Any]] = []  # newest last, as recent_calls sees the thread's calls
    spent = Decimal(0)
    previous_trip: Decimal | None = None
    largest = Decimal(0)
    calls = 0
    turn = 0
    while True:
        turn += 1
        history.append(UserMessage(text=USER_SAYS[turn % len(USER_SAYS)]))
        for answer in ("tool", "text"):
            request = LlmRequest(
                model=card.model, system=SYSTEM, messages=list(history), tools=TOOLS, max_tokens=MAX_TOKENS
            )
            recent = ThreadCalls(
                outputs=[step["output"] for step in reversed(steps)][:RECENT_CALLS],
                last_prompt=(steps[-1]["reported"], steps[-1]["estimated"]) if steps else None,
            )
            estimate = estimate_call(request, card, recent)
            if previous_trip is None and spent + _previous_rule(request, card) > CAP:
                previous_trip = spent
            big = Decimal(10**6)
            decision = check_caps(
                estimate=estimate.usd,
                thread_spent=spent,
                thread_reserved=Decimal(0),
                thread_cap=CAP,
                day_spent=Decimal(0),
                day_reserved=Decimal(0),
                day_cap=big,
                month_spent=Decimal(0),
                month_reserved=Decimal(0),
                month_cap=big,
            )
            if not decision.allowed:
                return {
                    "trip_usd": spent,
                    "previous_rule_trip_usd": previous_trip if previous_trip is not None else spent,
                    "calls": calls,
                    "largest_call_usd": largest,
                    "last_estimate_usd": estimate.usd,
                }
            prompt = tokenizer.prompt_tokens(request)
            if answer == "tool":
                call = LlmToolCall(id=f"call_{turn}", name="buscar_turnos", arguments={"fecha": "2026-12-02"})
                output = 30 + tokenizer.output_tokens("")
                history += [
                    AssistantMessage(tool_calls=[call]),
                    ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content=_slots(turn)),
                ]
            else:
                output = tokenizer.output_tokens(REPLY)
                history.append(AssistantMessage(text=REPLY))
            cost = cost_usd(LlmUsage(input_tokens=prompt, output_tokens=output), card)
            spent += cost
            largest = max(largest, cost)
            calls += 1
            steps.append(
                {"output": output, "reported": prompt, "estimated": estimate.uncalibrated_prompt_tokens}
            )


def main() -> None:
    book = load_rate_cards(None)
    results: dict[str, Any] = {}
    print(
        f"Every rate-card row; a {CAP} USD thread cap, a thread of growing history, max_tokens {MAX_TOKENS}; goal: trips at >= {GOAL}"
    )
    print(
        f"{'rate card (model@effective_from)':<44} {'trips at':>9} {'calls':>6} {'largest call':>13} {'previous rule':>14}  goal"
    )
    worst = CAP
    cards = [card for p in book.providers for m in book.models_for(p) for card in book.rows_for(p, m)]
    for card in cards:
        provider, model = card.provider, f"{card.model}@{card.effective_from.date()}"
        figures = run_thread(card)
        worst = min(worst, figures["trip_usd"])
        met = "met" if figures["trip_usd"] >= GOAL else "NOT met"
        print(
            f"{provider + '/' + model:<44} {figures['trip_usd']:9.4f} {figures['calls']:6d} "
            f"{figures['largest_call_usd']:13.4f} {figures['previous_rule_trip_usd']:14.4f}  {met}"
        )
        results[f"{provider}/{model}"] = {key: str(round(value, 6)) for key, value in figures.items()}
    print(f"lowest trip: {worst:.4f} USD ({'every goal met' if worst >= GOAL else 'goal NOT met'})")
    record_results("cost_cap_trip", results)


if __name__ == "__main__":
    main()
