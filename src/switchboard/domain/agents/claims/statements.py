"""Statements and clauses: questions are dropped, conditions masked, and clauses read around a match."""

from __future__ import annotations

import re

from switchboard.domain.agents.claims.lexicon import MASK

_QUESTION_START = frozenset(
    (
        "queres querés quieres quiere quieren quisieras puedo podes podés puede pueden podemos podrias "
        "preferis preferís prefieres prefiere necesitas necesitás necesita tenes tenés tienes confirmas "
        "confirmás pudiste recibiste que qué cual cuál cuando cuándo como cómo donde dónde "
        "would could can shall should do does did is are was were have has will may want wanna any what "
        "when where which who how why"
    ).split()
)
_CONDITION = re.compile(
    r"\b(?:si(?!\s*[,!])|cuando|una vez(?: que)?|apenas|en cuanto|en caso de(?: que)?|hasta que|"
    r"antes de(?: que)?|despues de(?: que)?|luego de(?: que)?|para que|siempre que|mientras|"
    r"as[ií](?=\s+(?:lo|la|los|las|te|le|les|ya)\b)|"
    r"al(?=\s+(?!lugar\b|celular\b|hogar\b|taller\b|mar\b|bar\b|titular\b|particular\b|familiar\b)\w{3,}(?:ar|er|ir)\b)|"
    r"if|once|when|whenever|as soon as|after|before|until|unless|in case|so that|provided)\b"
    r"[^,:]*"
)
_SAFE_PHRASES = re.compile(
    r"\b(?:no te preocupes|no se preocupe|no hay problema|no pasa nada|no dudes en|no dudes|sin problema|"
    r"no problem(?: at all)?|no worries|do not worry|no olvides)\b"
)

_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;\n]*")


def statements(text: str) -> list[str]:
    """The statements of a normalized reply: questions dropped, conditions masked with MASK."""
    out = []
    for m in _SENTENCE.finditer(text):
        raw = m.group()
        body = raw.rstrip(".!?;\n ")
        term = raw[len(body) :]
        if "¿" in body:
            body = body[: body.index("¿")]
        elif "?" in term:
            clauses = re.split(r"[,:]", body)
            words = body.split()
            if len(clauses) < 2 or not words or words[0] in _QUESTION_START:
                continue
            body = ",".join(clauses[:-1])
        body = body.replace("¡", " ").replace('"', " ")
        body = _SAFE_PHRASES.sub(",", body)
        body = _CONDITION.sub(f" {MASK} ", body)
        body = re.sub(r"\s+", " ", body).strip(" ,")
        if body:
            out.append(body)
    return out


def tokens(text: str) -> list[str]:
    """The words of a text (and "$")."""
    return re.findall(r"[^\W_]+|\$", text)


def clause_before(s: str, start: int) -> str:
    head = s[:start]
    cut = max(head.rfind(","), head.rfind(":"), head.rfind(MASK))
    for sep in (" pero ", " but ", " aunque ", " sino "):
        cut = max(cut, head.rfind(sep))
    return head[cut + 1 :]


def clause_after(s: str, end: int) -> str:
    tail = s[end:]
    m = re.search(rf"[,:{MASK}]|\bpero\b|\bbut\b", tail)
    return tail[: m.start()] if m else tail


def first_words(text: str, n: int) -> str:
    return " ".join(text.split()[:n])
