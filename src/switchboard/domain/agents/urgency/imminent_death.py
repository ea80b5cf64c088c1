"""Someone dying now: literal "se está muriendo", agony, no pulse, stopped breathing."""

from __future__ import annotations

from switchboard.domain.agents.urgency.negatives import NONHUMAN
from switchboard.domain.agents.urgency.patterns import DEATH, Rule, rule, rx

RULES: tuple[Rule, ...] = (
    rule(
        DEATH,
        "strong",
        r"\b(?:esta|estoy|estas|estan|estamos|sigue) muriendo(?:se|me|nos)?\b<idiom>",
        r"\bmuriendo(?:se|me|nos)\b<idiom>",
        r"\bse (?:nos|me|le|les) (?:esta )?(?:va|yendo)\b<idiom>(?! (?:la|el|los|las|a|al|de|en|con)\b)",
        r"\bse (?:nos|me|le|les) (?:esta )?(?:muere|murio)\b<idiom>",
        r"\bse muere\b<idiom>",
        r"\b(?:esta|estoy|estan) (?:por|a punto de) morir(?:se|me)?\b<idiom>",
        r"\b(?:siento|creo|pienso|parece|senti|sentia)(?: que)? me (?:muero|voy a morir"
        r"|estoy muriendo)\b<idiom>",
        r"(?<!\bsi )\bme voy a morir\b<idiom>(?! si\b)",
        r"\b(?:esta|sigue|lo veo|la veo|se puso|se pone|quedo|estan)(?: muy| re| super| bien| tan){0,3} "
        r"(?:grave|gravisim[oa])\b|\bgravisim[oa]\b|\bestado (?:critico|grave)\b",
        r"\bagoniz[a-z]*|\bagonia\b|\bagonic[oa]\b|\b(?:esta|entro|cayo|quedo) en coma\b|\bno pasa de (?:hoy"
        r"|esta noche)\b|\ben las ultimas\b(?! (?:semanas|dias|horas|meses|veces|\d))"
        r"|\bal borde de la muerte\b|\b(?:pocas|unas|contadas) (?:horas|dias) de vida\b"
        r"|\ble quedan (?:pocas )?horas\b|\bentre la vida y la muerte\b|\bno pasa (?:de )?(?:la"
        r"|esta) noche\b",
        r"\b(?:ultim[oa]s|ultimo) (?:bocanadas?|suspiros?|respiros?|alientos?|estertores)\b|\bestertor[a-z]*"
        r"|\bse (?:nos|me|le) fue\b(?=<c5>(?:no respira|sin pulso|no tiene pulso|no reacciona|no responde))",
        r"\bsin signos vitales\b|\bno tiene signos vitales\b|\bsin pulso\b"
        r"|\bno (?:tiene|le (?:siento|encuentro|encontramos|sentimos)|se le siente) (?:el )?pulso\b"
        r"|\bno le late el corazon\b|\bse (?:le|me) (?:para|paro|detuvo|detiene) el corazon\b"
        r"|\b(?:no (?:le )?(?:siento|encuentro|tiene|hay)|sin) latidos\b|\bdejo de (?:respirar|latir)\b"
        r"|\bpar[oa] de respirar\b",
        r"\bse (?:nos |me )?(?:esta )?apagando\b|\bse (?:nos |me )?(?:esta )?poniendo fri[oa]\b",
        r"\b(?:creo|parece)(?: que)?<g3>(?:se )?(?:murio|esta muert[oa])\b",
        unless=NONHUMAN,
    ),
    rule(DEATH, "health", r"(?<!\bsi )\bme muero\b<idiom>", unless=NONHUMAN),
    rule(
        DEATH,
        "strong",
        r"\bse (?:nos |me )?(?:esta|estan) yendo\b",
        requires=rx(
            r"\b<respir>|\bgrave\b|\bpulso\b|\bpaliativ[a-z]*|\bno responde\b|\bmuy mal\b|\bagoni[a-z]*"
            r"|\bmurie[a-z]*"
        ),
        unless=NONHUMAN,
    ),
)
