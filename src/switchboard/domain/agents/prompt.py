"""Prompt assembly: the loop's system prompt and the router's classifier prompt.

The spec splits a binding's configuration by reader: ``reglas`` is read by the
model, so it is rendered into the system prompt, one markdown section per key
in the order the tenant wrote them (the keys are the section titles). The
version's own ``system_prompt`` comes first because it is the agent's identity;
the binding's rules specialise it; the intent the router detected comes last,
closest to the conversation, because it is about this turn only.

The router is a cheap model asked to name one intent of the version's
``routing.intents``. Cheap models ramble, quote, capitalise or answer in JSON
however they are told, so ``parse_intent`` accepts any answer in which exactly
one known name can be found, and falls back to ``catch_all`` otherwise: a wrong
intent would send the customer down the wrong path, while ``catch_all`` is the
spec's place for "not sure".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

CATCH_ALL = "catch_all"
INTENT_SECTION_TITLE = "Intención detectada"


def _title(key: Any) -> str:
    # A newline in a tenant's key would end the heading and leak the rest into the body.
    return " ".join(str(key).split())


def _json(value: Any, *, indent: int | None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)


def _bullet(item: Any) -> str:
    text = item if isinstance(item, str) else _json(item, indent=None)
    # Continuation lines are indented so a multi-line item stays inside its bullet.
    return "- " + text.strip().replace("\n", "\n  ")


def render_value(value: Any) -> str:
    """A reglas value as markdown: strings as is, lists as bullets, anything else as indented JSON."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list | tuple):
        return "\n".join(_bullet(item) for item in value)
    return _json(value, indent=2)


def _section(title: str, body: str) -> str:
    return f"## {title}\n{body}".rstrip()


def system_prompt(base: str, reglas: Mapping[str, Any], *, intent: str | None = None) -> str:
    """The version's system prompt, then one ``## <key>`` section per reglas key, then the detected intent."""
    parts = [base.strip()] if base and base.strip() else []
    parts.extend(_section(_title(key), render_value(value)) for key, value in reglas.items())
    if intent is not None and intent.strip():
        parts.append(_section(INTENT_SECTION_TITLE, intent.strip()))
    return "\n\n".join(parts)


def intent_names(intents: Sequence[Mapping[str, Any]]) -> list[str]:
    """The declared intent names in order, without blanks or duplicates, ending with ``catch_all``."""
    names: list[str] = []
    seen: set[str] = set()
    for intent in intents:
        name = intent.get("name") if isinstance(intent, Mapping) else None
        if not isinstance(name, str) or not name.strip():
            continue
        name = name.strip()
        if name.casefold() in seen or name.casefold() == CATCH_ALL:
            continue
        seen.add(name.casefold())
        names.append(name)
    return [*names, CATCH_ALL]


def _intent_block(intent: Mapping[str, Any]) -> str:
    lines = [f"- {str(intent['name']).strip()}"]
    description = intent.get("description")
    if isinstance(description, str) and description.strip():
        lines.append(f"  Description: {' '.join(description.split())}")
    examples = intent.get("examples")
    if isinstance(examples, list | tuple):
        shown = [" ".join(str(e).split()) for e in examples if str(e).strip()]
        if shown:
            lines.append("  Examples:")
            lines.extend(f'    - "{example}"' for example in shown)
    return "\n".join(lines)


def router_prompt(intents: Sequence[Mapping[str, Any]]) -> str:
    """The system prompt of the classifier that names one intent (or ``catch_all``) for a customer message."""
    declared = {name.casefold() for name in intent_names(intents)[:-1]}
    blocks: list[str] = []
    for intent in intents:
        if not isinstance(intent, Mapping):
            continue
        name = intent.get("name")
        if isinstance(name, str) and name.strip().casefold() in declared:
            declared.discard(name.strip().casefold())
            blocks.append(_intent_block(intent))
    blocks.append(
        f"- {CATCH_ALL}\n  Description: the message fits none of the intents above, or you are not sure."
    )
    return "\n".join(
        [
            "You classify one customer message of a WhatsApp conversation into exactly one intent.",
            "The message may be in Spanish or another language; the intent names stay as written.",
            "",
            "Intents:",
            "\n".join(blocks),
            "",
            "Answer with ONLY the intent name, exactly as written above: no quotes, no punctuation,",
            f"no explanation. If no intent clearly fits, answer {CATCH_ALL}.",
        ]
    )


def _normalise(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip()).casefold()


_STRIP = " \t\r\n\"'`«»“”‘’.,;:!?¡¿()[]{}*-"


def _from_json(text: str) -> str | None:
    candidates = [text]
    match = re.search(r"\{.*\}", text, flags=re.DOTALL)
    if match:
        candidates.append(match.group(0))
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, str):
            return value
        if isinstance(value, Mapping):
            for key in ("intent", "name", "intencion", "intención", "label"):
                if isinstance(value.get(key), str):
                    return str(value[key])
    return None


def _exact(text: str, by_key: Mapping[str, str]) -> str | None:
    return by_key.get(_normalise(text.strip(_STRIP)))


def parse_intent(answer: str | None, intents: Sequence[Mapping[str, Any]]) -> str:
    """The declared intent named in a router answer, or ``catch_all`` when none or several are found."""
    if answer is None or not answer.strip():
        return CATCH_ALL
    names = intent_names(intents)
    by_key = {_normalise(name): name for name in names}
    text = re.sub(r"^```\w*\s*|\s*```$", "", answer.strip())
    found = _exact(text, by_key)
    if found is not None:
        return found
    from_json = _from_json(text)
    if from_json is not None:
        found = _exact(from_json, by_key)
        if found is not None:
            return found
        text = from_json
    # Longest names first, so a name inside another ("turno" in "pedir turno") is not counted twice.
    ordered = sorted(names, key=len, reverse=True)
    pattern = re.compile(
        r"(?<![\w])(?:" + "|".join(f"({re.escape(n)})" for n in ordered) + r")(?![\w])", flags=re.IGNORECASE
    )
    hits = {ordered[m.lastindex - 1] for m in pattern.finditer(text) if m.lastindex}
    if len(hits) == 1:
        return hits.pop()
    return CATCH_ALL
