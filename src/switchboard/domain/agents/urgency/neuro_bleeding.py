"""Stroke signs, seizures, loss of consciousness; heavy bleeding and bleeding in pregnancy."""

from __future__ import annotations

from switchboard.domain.agents.urgency.lexicon import PREGNANCY
from switchboard.domain.agents.urgency.negatives import CHRONIC, COMMUNICATION, NONHUMAN
from switchboard.domain.agents.urgency.patterns import BLEEDING, NEUROLOGICAL, Rule, rule, rx

NEUROLOGICAL_RULES: tuple[Rule, ...] = (
    rule(
        NEUROLOGICAL,
        "strong",
        r"\b(?:torc[a-z]*|tuerce|tuerza|chuec[oa]|desviad[oa]|cai[a-z]*|cay[a-z]*|cae)<g2>(?:la )?(?:boca"
        r"|cara)\b"
        r"(?! de verguenza)",
        r"\b(?:boca|cara)<g1>(?:torcid[oa]|chuec[oa]|caid[oa]|paralizad[oa]|desviad[oa]|colgad[oa])\b"
        r"|\bmitad de (?:la|su) cara\b|\bparalisis facial\b",
        r"\b(?:durm[a-z]*|duerm[a-z]*|dormid[oa]|adormec[a-z]*|paraliz[a-z]*|no (?:siente|siento|puede mover|"
        r"puedo mover|mueve|muevo)|entumec[a-z]*|hormigue[a-z]*|sin fuerza|debil[a-z]*)\b<g4>(?:medio cuerpo|"
        r"mitad del cuerpo|(?:un|el) lado del cuerpo|lado (?:izquierdo|derecho)|la mitad)\b",
        r"\b(?:medio cuerpo|mitad del cuerpo|lado del cuerpo)<g3>(?:durm[a-z]*|dormid[oa]|paraliz[a-z]*|"
        r"adormecid[oa]|no (?:lo |la )?(?:siente|siento|mueve|muevo))\b",
        r"\b(?:no (?:puedo|puede|podia|pudo)|sin poder) (?:mover|levantar|sentir)<g2>(?:brazo|pierna|mano|lado|cara|piernas"
        r"|"
        r"brazos)\b|\bno (?:siento|siente|sentia|sentimos) (?:las|los|el|la|mis|sus) (?:piernas|brazos|pierna"
        r"|brazo|"
        r"cara|lado)\b|\bperd[a-z]* (?:la )?fuerza (?:en|de)<g1>(?:brazo|pierna|mano|lado|piernas|brazos)\b",
        r"\bno (?:puede|puedo|podia|pudo) (?:ni )?hablar\b(?! (?:por|con|al|a|del|de|sobre|ingles|espanol)\b)"
        r"|\bhabl(?:a|ar|ando|aba) (?:raro|rara|trabad[oa]|arrastrad[oa]|incoherente[a-z]*|sin sentido"
        r"|cosas sin sentido)\b"
        r"|\bhabl(?:a|ar|ando) mal\b(?! de)|\bse (?:le|me) cae la baba\b"
        r"|\barrastra[a-z]* (?:las )?palabras\b|\bhabl(?:a|ar|ando|aba) arrastrando\b|\bno se le entiende\b|\bno le salen las palabras\b"
        r"|\blengua trabada\b|\bbalbuce[a-z]*",
        r"\bperd[a-z]* (?:el )?(?:conocimiento|sentido|conciencia)\b|\bsin (?:conocimiento|conciencia)\b"
        r"|\bi[nm]con?s?c?ient[a-z]*"
        r"|\bdesvaneci[a-z]*|\bdesplom[a-z]*|\bno reacciona[a-z]*|\bno vuelve en si\b"
        r"|\bno (?:se |lo |la )?(?:puedo |podemos )?desp(?:ie|e)rt[a-z]*|\bno abre los ojos\b"
        r"|\bsin (?:respuesta|reaccion)\b|\bmirada perdida\b|\b(?:esta|quedo) como id[oa]\b"
        r"|\b(?:se )?ca(?:yo|i|e|yeron|imos)<g1>(?:redond[oa]s?|como (?:un |una )?(?:saco|costal|bolsa|tabla"
        r"|piedra|tronco|muert[oa]))\b|\bespuma por la boca\b"
        r"|\bojos (?:en blanco|virados|volteados|para atras|desorbitados|idos|torcidos|para arriba)\b"
        r"|\bse (?:le|me) (?:viraron|voltearon|fueron|pusieron en blanco|torcieron) los ojos\b"
        r"|\bse puso rigid[oa]\b|\bconv?ul[sc]ionando\b|\bconv?ul[sc]iona\b"
        r"|\b(?:esta|estan) (?:teniendo|con) (?:una )?conv?ul[sc][a-z]*",
        r"\b(?:peor|el peor) dolor de cabeza\b",
    ),
    rule(NEUROLOGICAL, "strong", r"\bno (?:me |le |nos )?(?:responde|contesta)\b", unless=COMMUNICATION),
    rule(
        NEUROLOGICAL,
        "hist",
        r"\bno (?:quiere|logra|consigue|alcanza a) despertar(?:se)?\b(?! (?:para|temprano|a la|al|los)\b)"
        r"|\bno (?:puede|puedo|podia) (?:caminar|pararse|mantenerse) (?:derech[oa]|rect[oa]|sin caerse|en pie)\b"
        r"|\bperdi[a-z]* el equilibrio\b|\bcamina como borrach[oa]\b|\bse (?:va|cae) (?:para|hacia) un (?:lado|costado)\b",
    ),
    # Regional words for a sudden collapse ("le dio un patatús / soponcio / yeyo / telele", "está privado"):
    # also used figuratively ("casi me da un patatús con la factura"), so keyword-strength.
    rule(
        NEUROLOGICAL,
        "weak",
        r"\b(?:patatus|soponcio|chiripiorca|yeyo|telele|vahido|sincope|lipotimia|desvanecimiento)\b<idiom>",
        r"\b(?:esta|estaba|quedo|se quedo|se puso|cayo)(?: como| todo| toda| medio){0,2} privad[oa]\b<idiom>"
        r"|\bse (?:me |le )?privo\b<idiom>",
    ),
    rule(
        NEUROLOGICAL,
        "hist",
        r"\b(?:le|me) (?:dio|agarro|vino|paso) algo\b|\b(?:tembl|sacud|estremec|tirit|retorc|espasm)[a-z]*",
        requires=rx(
            r"\bca(?:yo|e|i)\b|\bpiso\b|\bsuelo\b|\bojos\b|\bespuma\b|\bbaba\b|\bresponde\b|\breacciona\b"
            r"|\brigid[oa]\b|\bmorad[oa]\b|\blengua\b|\bhabla\b|\bmueve\b|\bdesmay[a-z]*|\bdesplom[a-z]*"
        ),
    ),
    rule(
        NEUROLOGICAL,
        "weak",
        r"\bno (?:sabe|sabia|reconoce|recuerda|se acuerda(?: de)?) (?:ni )?(?:donde (?:esta|estaba|esta parad[oa])"
        r"|quien es|quienes somos|como se llama|su (?:propio )?nombre|que dia es|a nadie|ni a sus)\b"
        r"|\b(?:atontad[oa]|aturdid[oa]|grogui|desubicad[oa]|delira[a-z]*|dice cosas sin sentido)\b",
        unless=CHRONIC,
    ),
    rule(
        NEUROLOGICAL,
        "hist",
        r"\bse (?:me|le) (?:durmio|duerme|adormecio|adormece|entumecio|entumece|paralizo|paraliza"
        r"|esta durmiendo)"
        r"<g2>(?:la |el |media |medio |un |una )?(?:cara|brazo|pierna|mano|boca|lengua|lado|cuerpo)\b"
        r"(?!<g3>(?:de estar|por estar|sentad[oa]|cruzad[oa]|de dormir))",
        r"\bparalizad[oa]\b|\bse (?:me|le) paraliz[a-z]*",
    ),
    rule(
        NEUROLOGICAL,
        "strong",
        r"\bno se mueve\b(?! (?:de|del|mucho|bien|sol[oa]|nada de)\b)|\bperdio el habla\b"
        r"|\bse le traba la lengua\b",
        unless=NONHUMAN,
    ),
    rule(
        NEUROLOGICAL,
        "strong",
        r"\bdolor de cabeza\b|\bme duele<g2>la cabeza\b|\b(?:me|le) (?:va a )?explota[a-z]* la cabeza\b"
        r"|\bla cabeza (?:me|le) (?:va a )?explota[a-z]*",
        requires=rx(
            r"\bvomit[a-z]*|\bnunca\b|\bde golpe\b|\bde repente\b|\brigid[a-z]*|\bnuca\b|\bdesma[a-z]*"
            r"|\bno veo\b"
            r"|\bvista\b|\bconfund[a-z]*|\b(?:no soporto|me molesta) la luz\b|\bpeor\b"
        ),
    ),
    rule(
        NEUROLOGICAL,
        "weak",
        r"\bacv\b|\ba (?:\. )?c (?:\. )?v\b|\bderrame cerebral\b|\bataque cerebral\b"
        r"|\baccidente cerebro[a-z]*"
        r"|\bictus\b|\bembolia\b|\btrombosis cerebral\b",
        r"\bconv?ul[sc][a-z]*|\bataque epileptic[a-z]*|\bcrisis (?:epileptic[a-z]*|convulsiv[a-z]*)"
        r"|\bataque de epilepsia\b",
        r"\b(?:le|me|te) (?:dio|agarro|vino|esta dando|dado) (?:un )?derrame\b(?! (?:en el ojo|ocular|de |pleural))"
        r"|\b(?:le|me) (?:dio|agarro|vino|esta dando) un ataque\b(?! de (?:tos|risa|panico|ansiedad|nervios"
        r"|celos|hipo|"
        r"asma|alergia))|\b(?:perd[a-z]*|fue|sin)<g4>fuerza (?:en|de|del)<g1>(?:brazo|pierna|mano|lado"
        r"|piernas|brazos)\b"
        r"|\bdelir[a-z]*",
        r"\bde[sz]ma(?:y|ll|i)[a-z]*|\bno (?:me|nos|la|lo) reconoce\b|\bconfundid[oa]\b|\bdesorientad[oa]\b"
        r"|\bsomnolient[oa]\b",
        r"\bno veo<g2>(?:de|por|con)<g1>ojo\b|\bcieg[oa] de (?:un|el) ojo\b|\bperd[a-z]* (?:la )?(?:vista"
        r"|vision)\b"
        r"|\bperdida (?:subita |brusca )?de (?:la )?vision\b|\b(?:veo|ve|ver|veia|viendo) (?:doble|borroso)\b|\bvision doble\b|\bno veo nada\b"
        r"|\bse (?:me|le) (?:nublo|fue) la vista\b",
        r"\b(?:golpe[a-z]*|peg[a-z]*|dio|di)<g2>(?:en )?(?:la )?(?:cabeza|nuca)\b|\bgolpe (?:en"
        r"|de) la cabeza\b"
        r"|\btraumatismo (?:de craneo|craneal|encefalico)\b",
    ),
)

_NOT_A_BLEED = rx(
    r"\bencias?\b|\bcepill[a-z]*|\b(?:sac[a-z]*|extraccion|analisis|estudios?|donar|dona[a-z]*|muestras?"
    r"|laboratorio)<g2>sangre\b"
    r"|\b(?:tarjeta|bolsillo|billetera|cuenta bancaria|economia|presupuesto|sueldo|empresa|negocio)\b"
)
_HEAVY = (
    r"(?:no (?:para|paro|se detiene|se corta|deja|cesa|frena|se frena)|sin parar|hace (?:una|\d+|media|mas de una"
    r"|un par de|un buen) (?:hora|horas|rato)|coagul[a-z]*|charco|empap[a-z]*|toallas|mare(?:ad[oa]|o)|palid[oa]"
    r"|desma[a-z]*|anticoagul[a-z]*|sintrom|acenocumarol|warfarina|xarelto|apixaban|chorros?|a borbotones"
    r"|montones|litros|muchisim[oa]|demasiad[oa]|un monton)\b"
)

BLEEDING_RULES: tuple[Rule, ...] = (
    rule(
        BLEEDING,
        "strong",
        r"\bno (?:para|paraba|paro|deja|dejaba|dejo|se detiene|se corta|cesa|se frena|frena|logro parar"
        r"|puedo "
        r"parar|podemos parar|puedo detener)<g1>(?:de )?sangr[a-z]*",
        r"\bsangr[a-z]*<c5>(?:y )?(?:no (?:para|se detiene|se corta|deja|cesa|frena|se frena)|sin parar|"
        r"sin detenerse)\b",
        r"\bsangr(?:a|o|an|ando|e|aba|ado)\b<g2>(?:mucho|muchisimo|un monton|demasiado|bastante|a chorros|"
        r"a mares|a montones|abundante[a-z]*|sin control|horrible|fuerte)\b",
        r"\b(?:mucha|muchisima|demasiada|tanta|un monton de|un charco de|charco de|chorros? de|lleno de|"
        r"llena de|llenos de|cubiert[oa] de|banad[oa] en) sangre\b|\bsangre a chorros\b"
        r"|\bsangre<g2>(?:por todos lados|por todas partes|a montones|a borbotones|sin parar|un monton)\b",
        r"\bperd[a-z]*<g2>sangre\b",
        r"\b(?:vomit[a-z]*|bomit[a-z]*|tos[a-z]*|escup[a-z]*|orin[a-z]*|caca|cag[a-z]*|heces|defec[a-z]*"
        r"|materia fecal|"
        r"flema[a-z]*|esputo)<g2>(?:con )?sangre\b|\bsangre (?:en|por) (?:la|el) (?:vomito|boca|nariz|oido|"
        r"oidos|orina|materia fecal|heces|caca)\b|\bhematemesis\b|\bborra de cafe\b|\bhemoptisis\b"
        r"|\b(?:caca|heces|materia fecal|deposicion[a-z]*|popo|evacuacion[a-z]*|excremento|vomito)s?<g1>(?:negr[oa]s?"
        r"|como (?:alquitran|brea|petroleo|chapopote))\b",
        r"\b(?:sale|salia|salio|salir|saliendo|sale mucha|brota|chorrea|chorreando|corre|corria"
        r"|mana) sangre\b"
        r"|\bsangre por (?:la|toda la) (?:cara|cabeza)\b",
        r"\bdesangr[a-z]*\b(?! (?:pagando|con (?:el|la|los|las) (?:precio|cuota|gastos)|en (?:impuestos|cuotas|gastos)))",
        r"\b(?:echa|echando|echaba|bota|botando|botaba|tira|tirando|larga|largando|chorrea[a-z]*|derrama[a-z]*"
        r"|brotando|emana|emanando) (?:mucha |muchisima |tanta |harta )?sangre\b"
        r"|\bsangr[a-z]*<c5><much>\b|\b(?:harta|hartisima|tantisima|un mar de|un rio de) sangre\b",
        r"\bsangr(?:o|a|as|an|ando|aba|ado|e)\b<c5>(?:mucho|muchisim[oa]|un monton|montones|chorros?"
        r"|a chorros|"
        r"abundante[a-z]*|sin parar|empap[a-z]*|todo lleno|charco|litros|demasiad[oa]|tremend[oa]|horrible|"
        r"cantidad|por todos lados|a mares|a borbotones|no para|no se detiene|no deja)\b",
        r"\b(?:mucho|muchisimo|un monton|demasiado|abundante[a-z]*|a chorros)<g2>sangr(?:o|a|an|ando|aba"
        r"|ado)\b",
        unless=_NOT_A_BLEED,
    ),
    # Bleeding and a sign that it is heavy anywhere in the same sentence ("le sangra la nariz hace una hora
    # y toma sintrom, no para").
    rule(
        BLEEDING,
        "hist",
        r"\bsangr(?:a|o|an|ando|aba|ado|e)\b<s12>"
        + _HEAVY
        + r"|"
        + _HEAVY
        + r"<s12>sangr(?:a|o|an|ando|aba|ado|e)\b",
        unless=_NOT_A_BLEED,
    ),
    rule(
        BLEEDING,
        "hist",
        r"\bhemorr?agi[a-z]*|\bemorr?agi[a-z]*",
        r"\bsangrado[a-z]*<g2>(?:abundante|profuso|fuerte|importante|intenso|muy fuerte|que no para|enorme|"
        r"masivo)\b|\b(?:mucho|abundante|gran|bastante|fuerte|tremendo) sangrado\b",
        r"\bsangrando\b(?! (?:un poco|poquito|un poquito|apenas|poco)\b)",
        unless=_NOT_A_BLEED,
    ),
    rule(
        BLEEDING,
        "hist",
        r"\bsangr(?:a|o|an|ando|ado|ados|ar|aba|amos)\b|\bmanch(?:o|ando|ado|e)\b"
        r"|\bperdidas?\b(?! de (?:peso|tiempo|liquido|orina|memoria))"
        r"|\b(?:sale|salir|salio|saliendo|baja|bajo|bajando|tengo|hay|con|manchas? de|mancho"
        r"|manche) sangre\b",
        requires=PREGNANCY,
    ),
)
