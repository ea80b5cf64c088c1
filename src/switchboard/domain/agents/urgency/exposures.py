"""Explicit emergencies by cause: bites, gas and fumes, toxic food, heat, eye injuries, violence, obstetric
warning signs and high fever in the elderly."""

from __future__ import annotations

from switchboard.domain.agents.urgency.lexicon import ELDERLY, PREGNANCY, TOXIC
from switchboard.domain.agents.urgency.negatives import HUMOR
from switchboard.domain.agents.urgency.patterns import EMERGENCY, Rule, rule, rx

# Symptoms of a poisoning / exposure that make the cause an emergency.
_POISONED = rx(
    r"\bmarea[a-z]*|\bmareo|\bdesma[a-z]*|\bdolor de cabeza\b|\bvomit[a-z]*|\bno (?:se )?despierta[a-z]*"
    r"|\bdormid[oa]s\b|\bconfundid[oa]s?\b|\bno reacciona[a-z]*|\binconscient[a-z]*|\bdescompuest[oa]s?\b"
    r"|\balucin[a-z]*|\bdiarrea\b|\bconvul[a-z]*|\bno (?:puede|pueden|podemos|puedo) respirar\b|\bahog[a-z]*"
    r"|\btos[a-z]*|\bardor\b|\bsudando\b|\bpalid[oa]s?\b"
)

RULES: tuple[Rule, ...] = (
    # Bites of dangerous animals: keyword strength, a bite can be history ("me mordió un perro la semana
    # pasada") or a service question ("¿atienden mordeduras de perro?"); heavy bleeding matches on its own.
    rule(
        EMERGENCY,
        "weak",
        r"\bmord[a-z]*<g3>(?:perro|perra|vibora|serpiente|culebra|arana|alacran|escorpion|murcielago|rata|"
        r"mono)\b|\b(?:perro|perra|vibora|serpiente|culebra|arana|alacran|escorpion|murcielago|rata)<g2>"
        r"(?:me|le|lo|la|nos|les) mordi[a-z]*\b(?! (?:suave|jugando|apenas|un poquito|sin querer))"
        r"|\bpic[a-z]*<g3>(?:vibora|serpiente|culebra|alacran|escorpion|"
        r"arana)\b|\bpicadura de (?:vibora|serpiente|alacran|escorpion|arana)\b|\bmano destrozada\b",
        r"\b(?:atac[a-z]*|mordi[a-z]*)<g3>(?:un |unos |el |los )?(?:perros|jauria|pitbull|dogo|"
        r"rottweiler)\b|\b(?:nos|lo|la|le|me|les) atac[a-z]* (?:un|unos|el|los) perros?\b",
    ),
    # Carbon monoxide and fumes: a heater / gas source plus symptoms.
    rule(
        EMERGENCY,
        "hist",
        r"\b(?:estufa|brasero|calefon|calentador|salamandra|caldera|chimenea|generador|anafe|hornalla"
        r"|(?:olor|escape|fuga|perdida) (?:a|de) gas)\b",
        r"\b(?:mezcl|respir|inhal|aspir|oli|huel)[a-z]*<g3>(?:"
        + TOXIC
        + r"|gas|vapor[a-z]*|humo|quimic[a-z]*"
        r"|pintura|pegamento|fumigacion|veneno)\b",
        requires=_POISONED,
    ),
    # Toxic food: wild mushrooms, plants, berries, a whole family ill at once.
    rule(
        EMERGENCY,
        "hist",
        r"\b(?:comi|comio|comimos|comieron|comiste|probo|probamos)<g3>(?:hongos|setas|callampas|bayas|frutos"
        r"|semillas|plantas?|hojas)\b"
        r"|\btodos<g2>(?:vomitando|intoxicad[oa]s|con vomitos|descompuest[oa]s|con diarrea y vomitos)\b",
        requires=_POISONED,
    ),
    # Heat stroke: confusion, fainting or a burning body after sun / heat exposure.
    rule(
        EMERGENCY,
        "hist",
        r"\bdesorientad[oa]\b|\bconfundid[oa]\b|\bdesma[a-z]*|\bno responde\b|\bno reacciona[a-z]*"
        r"|\bdelira[a-z]*|\bhirviendo\b|\bconvul[a-z]*|\bno (?:habla|tiene sentido)\b|\bincoherente",
        requires=rx(r"\b(?:al sol|bajo el sol|del sol|de calor|con el calor|por el calor|sol todo el dia)\b"),
    ),
    # Burns that blister over a large area.
    rule(
        EMERGENCY,
        "weak",
        r"\bquem[a-z]*\b<s20>ampollas\b|\bampollas\b<s20>quem[a-z]*",
        unless=rx(r"\b(?:sol|solar|playa|pileta|chiquit[a-z]*|pequen[a-z]*|un poquito|dedo|zapato[a-z]*)\b"),
    ),
    # Eye injuries: something got into or hit the eye.
    rule(
        EMERGENCY,
        "hist",
        r"\b(?:metio|entro|salto|cayo|clavo|tiro|echo|salpico|salpicaron|explot[a-z]*)<g2>(?:"
        + TOXIC
        + r"|cal|vidrio|astilla|fierro|hierro|metal|esquirla|chispa|aceite|quimic[a-z]*|clavo|alambre|cohete"
        r"|petardo|soda)<g3>ojos?\b",
        r"\b(?:clav[a-z]*|cort[a-z]*|pinch[a-z]*|perfor[a-z]*|revent[a-z]*)<g2>(?:el |un |los |en el )?ojo\b"
        r"|\bno (?:puede|puedo) abrir (?:el|los) ojos?\b<g3>(?:arde|duele|sangr[a-z]*|golpe|quem[a-z]*)"
        r"|\bsangr[a-z]*<g2>(?:del|el|por el) ojo\b|\bperdi[a-z]* (?:el )?ojo\b",
    ),
    # Violence at home: someone hit / is hitting / strangled / threatens with a weapon.
    rule(
        EMERGENCY,
        "weak",
        r"\b(?:me|la|lo|le|nos|les) (?:pego|pega|pegaba|esta pegando|golpeo|golpea|golpeaba|esta golpeando"
        r"|ahorco|ahorca|quiso ahorcar|estrangul[a-z]*|agarro a (?:golpes|trompadas|pinas|palos|patadas|"
        r"cachetadas)|dio una paliza|cago a (?:palos|trompadas|pinas|golpes)|molio a (?:palos|golpes)"
        r"|rompio la (?:cara|cabeza|nariz|boca)|abrio la (?:cabeza|ceja|cara))\b"
        r"(?! (?:un susto|el sol|la gripe|el virus|el covid|fuerte la|jugando|sin querer)\b)"
        r"|\bviolencia (?:domestica|de genero|familiar|intrafamiliar)\b"
        r"|\b(?:me|nos|la|lo) (?:quiere|quiso|amenaza|amenazo con) matar\b"
        r"|\b(?:amenaz[a-z]*|persigu[a-z]*) con (?:un |el |una )?(?:cuchillo|arma|pistola|machete|revolver)\b",
        unless=rx(r"\b(?:sol|gripe|virus|covid|susto|piojos|resfrio|jugando|sin querer)\b|" + HUMOR.pattern),
    ),
    # Obstetric warning signs: no fetal movement, waters breaking, pre-eclampsia.
    rule(
        EMERGENCY,
        "hist",
        r"\bno (?:lo |la |le )?(?:siento|noto|sentimos|senti|se siente|se mueve|se movio|patea|pateo)<g2>"
        r"(?:al |el |a mi |mi )?(?:bebe|bebito|beba)\b"
        r"|\b(?:bebe|bebito|beba)<g2>no (?:se )?(?:mueve|movio|patea|pateo|siento)\b"
        r"|\bdejo de (?:moverse|patear|sentirse)\b|\bno (?:se )?(?:mueve|patea)\b"
        r"|\b(?:perdiendo|pierdo|perdi|sale|salio|saliendo|chorrea[a-z]*|largue|larga)<g2>(?:liquido|agua|aguas)\b"
        r"|\b(?:pre ?)?eclampsia\b|\b(?:veo|ve) (?:lucecitas|puntitos|luces|estrellitas|manchitas)\b",
        requires=PREGNANCY,
    ),
    # High fever in the elderly.
    rule(
        EMERGENCY,
        "hist",
        r"\bfiebre<g2>(?:alta|altisima|muy alta|que no baja|no (?:le )?baja|de (?:39|4[0-2]))\b"
        r"|\b(?:39|4[0-2])<g1>(?:de fiebre|grados|de temperatura)\b|\b(?:volando|hirviendo|ardiendo) (?:de|en|con)"
        r" (?:fiebre|calentura)\b|\bfiebre y (?:no|esta) (?:reacciona|responde|confundid[oa]|delira[a-z]*)\b",
        requires=ELDERLY,
    ),
)
