"""Normalizing a reply: case, accents, symbols, contractions, chat abbreviations and typo repair."""

from __future__ import annotations

import re
import unicodedata

from switchboard.domain.agents.claims.english import EN_TABLE
from switchboard.domain.agents.claims.spanish import ES_FORMS

# Canonical forms that typo repair may restore.
_CANONICAL = frozenset(
    [w for cat in ("p1s", "p3s", "part") for w in ES_FORMS[cat] if len(w) >= 5] + list(EN_TABLE)
)
_KNOWN = frozenset(w for forms in ES_FORMS.values() for w in forms) | frozenset(EN_TABLE)
_PROTECTED = frozenset(
    (
        "estado cuidado abogado abogada helado pasado pasada pesado pesada privado privada cansado cansada "
        "feriado pedido pedidos sentido partido vestido ruido apellido contenido querido querida ocupado "
        "ocupada cerrado cerrada llamado llamada entrada salida comida bebida medida jornada mirada llegada "
        "parada agotado agotada agotados agotadas pegado pegada separada combinado atendido atendida "
        "looked cooked hooked needed wanted checked skipped slipped shopped stopped worked booster "
        "charted chained deserved reversed conformed mercado mercados sabado sabados secado secados salado parado "
        "parados"
    ).split()
)
# Portuguese 1sg/3sg preterite endings as Portuguese-influenced Spanish writes them.
_PORTUGUESE_PRETERITE = (("ei", "é"), ("ou", "ó"))
_FUZZY_ENDINGS = ("ados", "adas", "idos", "idas", "ado", "ada", "ido", "ida", "é", "í", "ó", "ed")

_ABBREVIATIONS = {
    "q": "que",
    "k": "que",
    "x": "por",
    "xq": "porque",
    "pq": "porque",
    "porq": "porque",
    "tmb": "tambien",
    "tb": "tambien",
    "ud": "usted",
    "uds": "ustedes",
    "bn": "bien",
    "msj": "mensaje",
    "dsp": "despues",
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "appt": "appointment",
    "appts": "appointments",
    "pmt": "payment",
    "pymt": "payment",
    "acct": "account",
    "t": "te",
    "ive": "i have",
    "weve": "we have",
    "youve": "you have",
    "youre": "you are",
    "im": "i am",
    "dont": "do not",
    "didnt": "did not",
    "couldnt": "could not",
    "wasnt": "was not",
    "werent": "were not",
    "hasnt": "has not",
    "havent": "have not",
    "isnt": "is not",
    "arent": "are not",
    "cant": "can not",
    "shouldnt": "should not",
    "wouldnt": "would not",
    "doesnt": "does not",
    "thats": "that is",
}
_CONTRACTIONS = [
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"\b(\w+)'ve\b"), r"\1 have"),
    (re.compile(r"\b(\w+)'re\b"), r"\1 are"),
    (re.compile(r"\b(\w+)'ll\b"), r"\1 will"),
    (re.compile(r"\b(\w+)'d\b"), r"\1 would"),
    (re.compile(r"\b(\w+)'s been\b"), r"\1 has been"),
    (
        re.compile(
            r"\b(it|that|everything|all|this|there|here|what|who|he|she|payment|appointment|booking|order|"
            r"reservation|table|refund|account)'s\b"
        ),
        r"\1 is",
    ),
    (re.compile(r"'s\b"), ""),
]
_TITLES = re.compile(r"\b(dr|dra|sr|sra|srta|lic|av|nro|st|mr|mrs|ms|etc|aprox|tel)\.")
_ALLOWED = re.compile(r"[^\w\s.,;:!?¿¡'$%/@+\-]")


def _fold_word(m: re.Match[str]) -> str:
    word = m.group()
    last = word[-1]
    stripped = "".join(c for c in unicodedata.normalize("NFD", word[:-1]) if not unicodedata.combining(c))
    if last in "áéíóú":
        return stripped + last
    return stripped + "".join(c for c in unicodedata.normalize("NFD", last) if not unicodedata.combining(c))


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance (edits and adjacent swaps)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def _repair(word: str) -> str:
    if word in _KNOWN or word in _PROTECTED:
        return word
    for pt_ending, es_ending in _PORTUGUESE_PRETERITE:  # "cancelei" -> "cancelé", "mandou" -> "mandó"
        if word.endswith(pt_ending) and word[: -len(pt_ending)] + es_ending in _KNOWN:
            return word[: -len(pt_ending)] + es_ending
    if len(word) < 6:
        return word
    if word.endswith("ao") and word[:-2] + "ado" in _KNOWN:
        return word[:-2] + "ado"
    ending = next((e for e in _FUZZY_ENDINGS if word.endswith(e)), None)
    if ending is None or (ending == "ed" and len(word) < 7):
        return word
    best: list[str] = []
    for cand in _CANONICAL:
        if cand[0] != word[0] or not cand.endswith(ending) or abs(len(cand) - len(word)) > 1:
            continue
        if _osa(word, cand) == 1:
            best.append(cand)
    return best[0] if len(best) == 1 else word


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFC", text).lower()
    text = re.sub(r"[’‘`´]", "'", text)
    text = re.sub(r"\w+", _fold_word, text)
    text = re.sub(r"\bn[º°o]\.?\s*(?=\d)", "nro ", text)
    text = text.replace("#", " nro ")
    text = re.sub(r"\b([ap])\.\s?m\.", r"\1m", text)
    text = _TITLES.sub(r"\1", text)
    text = re.sub(r"(?<=\d)[.:,](?=\d)", "_", text)
    text = _ALLOWED.sub(" , ", text)
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    text = text.replace("'", " ")

    def word(m: re.Match[str]) -> str:
        w = m.group()
        return _ABBREVIATIONS.get(w) or _repair(w)

    text = re.sub(r"[^\W\d_]+", word, text)
    text = re.sub(r"\b(you|we|they)\s+r\b", r"\1 are", text)
    return re.sub(r"[ \t]+", " ", text)
