"""Signals only looked for when the message is about a child (fever, lethargy, ingestion, falls)."""

from __future__ import annotations

from switchboard.domain.agents.urgency.lexicon import NEWBORN, PILLS
from switchboard.domain.agents.urgency.patterns import CHILD_SYMPTOM, Rule, rule, rx

RULES: tuple[Rule, ...] = (
    rule(
        CHILD_SYMPTOM,
        "hist",
        r"\b(?:tiene|tienen|tengo|esta con|anda con|sigue con|amanecio con|se desperto con|volvio con"
        r"|vino con|"
        r"levanto|levanta|volando de|volando en|volando con|ardiendo en|ardiendo de|empezo con|le (?:subio"
        r"|sube|"
        r"agarro|dio|volvio)|le esta subiendo|con mucha|con)<g2>(?:fiebre|fievre|calentura|temperatura"
        r"|febril)\b"
        r"(?! amarilla)",
        r"\b(?:fiebre|calentura|temperatura)<g2>(?:alta|altisima|muy alta|que no baja|no (?:le )?baja|"
        r"(?:de |en |a )?(?:3[89]|4[0-2]|10[1-6]))\b",
        r"\b(?:3[89]|4[0-2]|10[1-6])<g1>(?:de fiebre|grados|de temperatura|y medio|f|fahrenheit)\b",
        r"\b(?:tiene|esta con|con|levanto|marca|marco|dio) (?:3[89]|4[0-2])\b",
        r"\bfebril\b|\bmuy calient[ea]\b|\bardiendo\b|\bhirviendo en fiebre\b",
        child_only=True,
        before_veto=rx(r"\b(?:si|cuando|cada vez que|siempre que)(?: [a-z]+){0,3} ?$"),
    ),
    rule(
        CHILD_SYMPTOM,
        "hist",
        r"\bfiebre\b(?! amarilla)",
        r"\b(?:esta|se puso|se pone|se esta poniendo) (?:muy |re )?amarill[oa]\b|\bno quiere (?:comer|tomar"
        r"|mamar)\b"
        r"|\bduerme todo el (?:dia|tiempo)\b|\bno (?:se )?prende (?:a|al) (?:la teta|el pecho)\b",
        child_only=True,
        requires=NEWBORN,
    ),
    rule(
        CHILD_SYMPTOM,
        "weak",
        r"\bconv?ul[sc][a-z]*|\bataque\b(?! de (?:tos|risa|panico|ansiedad|celos|hipo|nervios))"
        r"|\btemblando\b|\bse puso rigid[oa]",
        r"\b(?:decaid[a-z]*|aletargad[a-z]*|letargic[a-z]*|flojit[a-z]*|muy floj[oa]|sin fuerzas?|"
        r"muy apagad[oa]|apagadit[oa]|muy dormid[a-z]*|somnolient[a-z]*|adormilad[a-z]*|adormecid[oa]|"
        r"hipotonic[a-z]*|blandit[oa]|chichon enorme)\b",
        child_only=True,
    ),
    rule(
        CHILD_SYMPTOM,
        "hist",
        r"\bno (?:se |lo |la )?(?:puedo |podemos )?desp(?:ie|e)rt[a-z]*|\bno (?:se )?quiere despertar\b"
        r"|\bno reacciona[a-z]*|\bno responde\b|\bcomo id[oa]\b|\bno (?:me|nos) mira\b|\bno abre los ojos\b"
        r"|\bno se mueve\b|\bllanto inconsolable\b",
        r"\bdeshidrat[a-z]*|\bno (?:moja|mojo|ha mojado)<g1>panal[a-z]*|\bno (?:hace|hizo) (?:pis|pipi)\b"
        r"|\b(?:llora )?sin lagrimas\b|\bvomita todo\b|\bno (?:para|deja) de vomitar\b"
        r"|\bvomit[a-z]* (?:sin parar|todo)\b|\bfontanela hundida\b|\bojos hundidos\b",
        r"\bvomit[a-z]* (?:verde|negro|con sangre|bilis)\b|\bpanza (?:muy )?(?:hinchada|dura|distendida)\b",
        r"\bpetequi[a-z]*|\bmanch[a-z]* (?:rojas|violetas|moradas)<g3>no (?:se van|desaparecen|se borran)\b",
        r"\bse (?:[a-z]+ )?(?:cayo|cae|golpeo|pego|dio)<g5>(?:cabeza|nuca|craneo|frente)\b"
        r"|\bgolpe<g2>(?:cabeza|nuca|frente)\b",
        r"\bca(?:y|id)(?:o|eron)<g3>(?:de|del|desde|por)<g2>(?:cama|cuna|cambiador|escaleras?|silla|tobogan"
        r"|hamaca|"
        r"balcon|ventana|techo|mesa|sillon|altura|brazos|cochecito|carrito|trampolin|arbol|caballo|"
        r"bici[a-z]*|moto|terraza|upa|cama elastica|litera|cucheta|mueble|ropero|andador|escalon|muro"
        r"|pared|camarote|columpio|resbaladilla|tobogan)\b",
        child_only=True,
    ),
    # After a fall or a blow, the red flags of a head injury in a child.
    rule(
        CHILD_SYMPTOM,
        "hist",
        r"\b(?:se )?(?:ca(?:yo|e|yeron)|golpeo|golpe[a-z]*|pego|dio)\b<c5>(?:vomit[a-z]*|con (?:mucho )?sueno"
        r"|somnolient[oa]|no (?:para|deja) de dormir|muy dormid[oa]|se duerme|no reacciona[a-z]*|rar[oa]|"
        r"desmay[a-z]*|le sale (?:sangre|liquido) (?:por|de) (?:la nariz|el oido|los oidos))\b",
        child_only=True,
    ),
    rule(
        CHILD_SYMPTOM,
        "hist",
        r"\bse (?:[a-z]+ )?trag(?:o|a|aron|ado)\b(?!<g2>(?:chicle|semilla|carozo|pasta de dientes|mocos"
        r"|agua))",
        r"\b(?:se )?(?:comio|(?:metio|puso|llevo)(?: en| a) la boca|chupo)<g2>(?:pastill[a-z]*|remedio[a-z]*|pila[a-z]*|moneda[a-z]*|iman[a-z]*|boton[a-z]*"
        r"|bolita[a-z]*|"
        r"bateria[a-z]*|tornillo[a-z]*|clavo[a-z]*|aro[s]?|arete[a-z]*)\b",
        r"\b(?:se )?(?:tomo|trago|comio|bebio|chupo|tomaron"
        r"|comieron)<g3>(?<!el )(?<!la )(?<!su )(?<!las )(?<!sus )"
        r"(?:pastill[a-z]*|remedio[a-z]*|medicament[a-z]*|jarabe[a-z]*|pildor[a-z]*|comprimid[a-z]*|alcohol|"
        r"vino|cerveza|pila[a-z]*|gotas|medicacion|medicina[a-z]*)\b",
        r"\b(?:tomo|trago|comio|bebio|chupo|tomaron|comieron|agarro)<g3>(?:pastill[a-z]*|remedio[a-z]*"
        r"|medicament[a-z]*|jarabe[a-z]*|pildor[a-z]*|comprimid[a-z]*|gotas|medicacion) (?:de|del) (?:la |el |mi |su |"
        r"los |las )?(?:abuel[a-z]*|mama|papa|madre|padre|tia|tio|vecin[oa]|herman[oa]|adult[oa]s?|mayores|otro)\b",
        child_only=True,
    ),
    rule(
        CHILD_SYMPTOM,
        "strong",
        r"\b(?:se )?(?:tomo|trago|comio|bebio|tomaron)<c5>(?:entero|entera|un frasco|toda la caja"
        r"|todo el frasco|"
        r"todas|todos)\b(?! (?:los|las) (?:dias|noches|mananas|tardes|semanas))",
        child_only=True,
        requires=PILLS,
    ),
)
