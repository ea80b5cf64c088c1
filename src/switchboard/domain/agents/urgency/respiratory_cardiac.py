"""Chest pain and heart signs; breathing difficulty, choking, cyanosis."""

from __future__ import annotations

from switchboard.domain.agents.urgency.negatives import HUMOR
from switchboard.domain.agents.urgency.patterns import CARDIAC, RESPIRATORY, Rule, rule, rx

_BEAT = (
    r"(?:rapid[a-z]*|fuert[a-z]*|rar[a-z]*|a mil|a full|loc[oa]|acelerad[a-z]*|descontrolad[a-z]*|"
    r"desbocad[a-z]*|dur[oa]|durisim[oa]|fortisimo|muchisimo|a toda|como (?:un )?(?:caballo|tambor|loco)|lent[a-z]*"
    r"|despac[a-z]*|debil[a-z]*|salteado|irregular)\b"
)

_CHEST_FEEL = (
    r"(?:dolor[a-z]*|duel[ea][a-z]*|doliendo|aprieta[a-z]*|apretad[oa]|apretando|presion|opresion|punzadas?"
    r"|puntadas?|pinchazos?|peso|pesadez|ardor|quema[a-z]*|molestia|estruj[a-z]*|aplast[a-z]*|tension|clavad[oa])\b"
)

CARDIAC_RULES: tuple[Rule, ...] = (
    rule(
        CARDIAC,
        "strong",
        r"\bduel[ea]\b<g3>(?:el |en el |del |al )?<pecho>\b",
        r"\b<pecho>\b<g2>(?:me |le |te )?duel[ea]\b",
        r"\bduel[ea]n?\b<g4>(?:y|e) (?:tambien )?(?:el |en el |del |al )?<pecho>\b",
        r"\b(?:puntadas?|pinchazos?|punzadas?|presion|opresion|peso|piedra|elefante|aprieta|aprietan|apretado"
        r"|"
        r"apretazon|tension|estrujan|estruja)\b<g4>(?:en|sobre|del|al|el|de|mi)<g1><pecho>\b",
        r"\b(?:puntada|pinchazo|punzada|dolor|duele|opresion)<g3>(?:al lado del |en el |del )corazon\b",
        r"\b(?:siento|sentia|siente|dando|agarrando|pasando|da|dio|agarro|vino)<g2>algo<g2>(?:en"
        r"|al) (?:el )?<pecho>\b"
        r"|\b(?:me|le|te) (?:oprime|pesa|aprieta|estruja|pincha|punza|arde mucho|quema mucho) el <pecho>\b",
        r"\b(?<!tomar )(?<!dar )(?<!tomar el )(?<!dar el )<pecho>\b<g4>(?:apret[a-z]*|oprim[a-z]*"
        r"|estruj[a-z]*|aplast[a-z]*|"
        r"punzad[a-z]*|pinch[a-z]*|opresion|presion|dolor[a-z]*|duel[ea][a-z]*)",
        r"\bcorazon<g3>(?:explot[a-z]*|estall[a-z]*|sale del <pecho>)\b",
        r"\b(?:falla|fallando|fallo) (?:el|del|su) corazon\b|\bcorazon (?:le |me )?(?:falla|esta fallando"
        r"|debil)\b",
        r"\b<pecho> (?:apretado|oprimido|pesado)\b|\bopresion (?:toracica|precordial)\b",
        r"\b(?:agarr[a-z]*|tom[a-z]*|toc[a-z]*|apret[a-z]*) el <pecho>\b|\bqueja[a-z]* del <pecho>\b",
        r"\bcorazon(?: [a-z]+){0,2} (?:a mil|acelerad[a-z]*|desbocad[a-z]*|descontrolad[a-z]*|"
        r"se (?:me|le) (?:sale|quiere salir))\b",
        r"\bcorazon<g3>(?:late|latiendo|palpita[a-z]*|va|anda|bombea|golpea)<g2>" + _BEAT,
        r"\b(?:late|lata|laten|latiendo|palpita[a-z]*|bombea|golpea)<g2>" + _BEAT + r"<g3>corazon\b",
        r"\b(?:me|le|te) duele (?:el|mi|su) corazon\b(?! (?:de|cuando|que|por|ver|al|saber|pensar|escuchar|con|lo|tanto|esto|eso|como)\b)"
        r"|\bdolor (?:en el|del|al) corazon\b(?! (?:de|cuando|que|por|ver|al)\b)",
        r"\b(?:[1-3]\d|1[4-9]\d|2\d\d) (?:pulsaciones|latidos|ppm|lpm|de pulso)\b",
        r"\b(?:pulsaciones|pulso|frecuencia(?: cardiaca)?|latidos)(?: [a-z]+){0,2} (?:1[4-9]\d|2\d\d"
        r"|[1-3]\d)\b",
        r"\b(?:duel[ea]|dolor|hormigue[a-z]*|adormec[a-z]*|entumec[a-z]*|entumid[a-z]*|corre|irradia[a-z]*|"
        r"baja|va)\b<g4>(?:el |al |la |por el |por la |hacia el )?brazo izq[a-z]*",
        unless=rx(r"\bvacuna[a-z]*\b"),
    ),
    rule(
        CARDIAC,
        "strong",
        r"\b(?:duel[ea]|dolor|hormigue[a-z]*|adormec[a-z]*|corre|irradia[a-z]*|va)\b<g4>(?:la "
        r"|a la )?mandibula\b",
        requires=rx(r"\bbrazo\b|\b<pecho>\b|\bsudor|\bsudando"),
    ),
    # The chest and a pain / pressure word anywhere in the same sentence: keyword strength.
    rule(
        CARDIAC,
        "weak",
        r"\b<pecho>\b<s12>" + _CHEST_FEEL + r"|" + _CHEST_FEEL + r"<s12><pecho>\b",
        unless=rx(
            r"\b(?:lunar|mancha|granito|grano|tatuaje|piel|teta|amamant[a-z]*|lactancia|mastitis|pezon[a-z]*"
            r"|pechos|pollo|tos|tosiendo|toser|tosi)\b"
        ),
    ),
    # The heart pausing or skipping, with a faint / dizzy / chest sign.
    rule(
        CARDIAC,
        "hist",
        r"\bcorazon<g5>(?:se (?:le|me) )?(?:para|paraba|paro|detiene|saltea|salta|frena|falla)\b",
        requires=rx(r"\bmare[a-z]*|\bdesma[a-z]*|\b<pecho>\b|\baire\b|\bvista\b|\bnegro\b|\bcae\b|\bcayo\b"),
    ),
    # The heart squeezed / pricked: figurative too ("se me estruja el corazón"), so only with a bodily sign.
    rule(
        CARDIAC,
        "hist",
        r"\b(?:apret|oprim|estruj|aplast|pinch|punz)[a-z]*<g3>(?:el |mi |su )?corazon\b"
        r"(?! (?:de|cuando|que|por|ver|al|saber|pensar|escuchar)\b)",
        requires=rx(
            r"\bmare[a-z]*|\bsud[a-z]*|\bbrazo\b|\baire\b|\b<respir>|\bdesma[a-z]*|\bdolor\b|\bduele\b|\b<pecho>\b"
            r"|\bpalpit[a-z]*|\bvomit[a-z]*|\bpalid[oa]\b|\bfri[oa]\b"
        ),
    ),
    rule(
        CARDIAC,
        "hist",
        r"\bsudor frio\b|\bsudando frio\b|\b(?:palid[oa]|gris)<c5>(?:fri[oa]|sudando|sudad[oa]"
        r"|transpirando)\b",
        r"\bdolor[a-z]*<g2>(?:en|de|del|al|sobre)<g3><pecho>\b",
        r"\bdolor (?:toracico|precordial|opresivo)\b",
    ),
    rule(
        CARDIAC,
        "weak",
        r"\b(?:ardor|arde|quema|molestia|angustia)\b<g3>(?:en|sobre|del|al|el)<g1><pecho>\b",
        r"\binfart[a-z]*|\binfrat[a-z]*|\bataque (?:al|del|de) corazon\b|\bataque cardiac[a-z]*"
        r"|\bparo (?:cardiac[a-z]*|cardio[a-z]*|del corazon)|\b(?:dio|agarro|vino|dando|teniendo"
        r"|tuvo) un paro\b|\bsindrome coronario\b|\bangina de <pecho>"
        r"|\bangina inestable\b",
        r"\binsuficiencia cardiaca\b|\btaquicardi[a-z]*|\bpalpitacion[a-z]*|\barritmi[a-z]*"
        r"|\bse saltea[a-z]* latidos\b|\bfibrilacion\b",
        unless=HUMOR,  # "qué infarto de buena la doctora jaja"
    ),
)

_DISTRESS = (
    r"(?:muy |re |super )?(?:rapid[a-z]*|agitad[oa]|acelerad[oa]|entrecortad[oa]|ronquera|ronca|silb[a-z]*|pito"
    r"|ruido[a-z]*|hervidero|boca abierta|azul[a-z]*|morad[a-z]*|hundi[a-z]*|jadea[a-z]*|desesperad[oa]"
    r"|dificultad|esfuerzo|trabajosa|fatigad[oa]|no (?:puede|puedo) hablar|no le alcanza|asfixi[a-z]*|ahog[a-z]*"
    r"|cort[ai]ta|muy corta|superficial|sin poder acostarse|no (?:puede|puedo) acostarse|sentad[oa] para respirar"
    r"|fe[oa]|feisim[oa]|horrible|horrendo|espantoso|fatal|rarisim[oa]|muy mal)\b"
)

RESPIRATORY_RULES: tuple[Rule, ...] = (
    rule(
        RESPIRATORY,
        "strong",
        r"\bno (?:puedo|puede|podes|pueden|podia|podemos|pudo|logra|logro|consigo|consigue)(?: [a-z]+){0,2}? "
        r"<respir>\b(?! (?:bien )?por la nariz)",
        r"\b(?:no|apenas|casi no) (?:me |le |te )?(?:respira|respiro|respiras|respiran|respiraba)\b"
        r"(?! (?:bien )?por la nariz)",
        r"\b<respir><g2>(?:muy |re |super |bastante |demasiado )?(?:mal|rapid[a-z]*|agitad[a-z]*|"
        r"entrecortad[a-z]*|rar[a-z]*|fatal|poquito|lent[oa]|lentisimo|peor|cada vez peor|ruidoso"
        r"|como (?:un )?(?:pescado|pez|perrito)|"
        r"con (?:mucha |mucho |muchisima |muchisimo |tanto |tanta )?(?:dificultad|esfuerzo|ruido|silbido|trabajo"
        r"|problemas|fatiga|ahogo))\b",
        r"\bse (?:le|me) hunde (?:la panza|el pecho|las costillas|la barriga)\b|\bboque(?:a|ando)\b",
        r"\bno (?:me |le |te |nos |lo |la )?(?:deja|dejan|dejaba|permite) <respir>|"
        r"\b(?:me|le|te|nos|les) (?:esta )?(?:cuesta|costando|costo|costaba)<g2><respir>"
        r"|\bdificultad(?:es)? (?:para|al) <respir>"
        r"|\b(?:dificultad|insuficiencia|crisis|falla|paro|distres) respiratori[oa]\b|\bdisnea\b|\bdificil <respir>",
        r"\bno (?:me |le |te |nos )?(?:entra|pasa|llega|alcanza|viene|sale)(?:ra|ba)?<g2>(?:el |de |del )?(?:aire"
        r"|oxigeno|nada)\b"
        r"|\bse (?:me|le|te|nos) (?:fue|va|iba|corta|corto|acaba|acabo|escapa|escapo) (?:el aire|la respiracion)\b",
        r"\b(?:pito|pitido|silbido|chillido|hervidero|ronquido|gorgoteo|ruido|ruidito|silbidito)s?<g2>"
        r"(?:en el |del |de )?<pecho>\b"
        r"|\b(?:silba|chilla|hierve|ronca|suena) (?:el|su|mi) <pecho>\b",
        r"\b(?:no (?:puedo|puede|podes|pueden|logro|logra|consigo|consigue)|(?:me|le|te) cuesta(?: mucho)?) "
        r"(?:tomar|agarrar|jalar|meter|sacar) (?:el )?aire\b",
        r"\basfixi[a-z]*|\batragant[a-z]*|\bse (?:me |le )?ator(?:o|ado|ada)\b|\batorad[oa]\b"
        r"|\btrabad[oa] en la garganta\b|\batascad[oa] en la garganta\b",
        r"\b(?:labios|boca|cara|unas|dedos|piel)<g4>(?:azul[a-z]*|morad[a-z]*|amoratad[a-z]*|violet[a-z]*"
        r"|gris[a-z]*|cianotic[a-z]*)\b",
        r"\b(?:inhalador|puff|paf|salbutamol|ventolin|nebuliz[a-z]*)\b<g5>no (?:le |me )?(?:hace|hizo"
        r"|funciona|"
        r"sirve|sirvio|ayuda|alcanza)\b",
        r"\bno (?:le |me )?(?:hace|hizo) (?:nada|efecto)<g3>(?:inhalador|puff|paf|salbutamol|ventolin"
        r"|nebuliz[a-z]*)",
        r"\b<pecho> cerrado\b|\bse (?:me|le) cierra el <pecho>\b|\bsilb[a-z]* (?:al|cuando) <respir>"
        r"|\bsilbido[a-z]* (?:en el <pecho>|al <respir>)",
        r"\bsatur[a-z]*(?: [a-z]+){0,3} (?:[5-8]\d|9[01])\b|\boxigeno (?:en|de|a|al) (?:[5-8]\d|9[01])\b",
        r"\bhund[a-z]* (?:las )?costillas\b|\btiraje\b|\baleteo nasal\b|\bestridor\b|\bjade[a-z]+",
    ),
    rule(
        RESPIRATORY,
        "strong",
        r"\bah?og(?:o|a|as|an|ando|andose|andome|andote|ado|ada|aba|ue|arse|arme)\b"
        r"(?! (?:en|de|con|por) (?:(?:este|esta|tanto|tanta|el|la|los|las|tantos|tantas) )?(?:papeles|deudas|"
        r"trabajo|tramites|calor|gastos|cuentas|humo de cigarrillo|problemas|lagrimas))"
        r"(?! en un vaso de agua| de (?:la )?(?:risa|verguenza|emocion|calor)\b)",
        unless=HUMOR,
    ),
    rule(
        RESPIRATORY,
        "weak",
        r"\bsin aire\b(?! (?:de tanto|de la risa|de risa|acondicionado))|\bsin (?:poder )?<respir>",
        unless=HUMOR,
    ),
    rule(
        RESPIRATORY,
        "strong",
        r"\bfalta(?:ba)?<g2>(?:de )?(?:el )?aire\b(?! acondicionado)",
        unless=rx(
            r"\bcuando (?:sub|camin|corr|hag|hac|entren|hablo mucho|me agito)[a-z]*\b|\bhace (?:meses|anos"
            r"|mucho tiempo)\b"
        ),
    ),
    # Breathing and a sign of distress anywhere in the same sentence ("respira como con ronquera, muy
    # rápido", "respirando con la boca abierta, muy agitada").
    rule(
        RESPIRATORY,
        "hist",
        r"\b(?:respira|respiran|respirando|respiraba|respiracion)\b<s12>"
        + _DISTRESS
        + r"|"
        + _DISTRESS
        + r"<s12>(?:respira|respiran|respirando|respiraba|respiracion)\b",
        unless=rx(r"\brespira(?:r)? hondo\b|\bpor la nariz\b|\b(?:respira|respirando) (?:bien|normal)\b"),
    ),
    rule(
        RESPIRATORY,
        "hist",
        r"\basma\b<g2>(?:fuert[a-z]*|terrible|horrible|sever[oa]|grave|muy mal)\b"
        r"|\basm[a-z]*<s12>(?:(?:ya )?no (?:puede )?habla|no le (?:hace|sirve)|se ahoga|morad[oa]|azul)\b",
    ),
    rule(
        RESPIRATORY,
        "hist",
        r"\bse (?:le|me|te) (?:fue|va|fueron) (?:algo |la comida |el agua |un pedazo )?por el otro (?:lado|camino)\b",
    ),
    rule(
        RESPIRATORY,
        "hist",
        r"\b(?:me|le|te|nos) (?:dio|da|agarro|entro|vino|esta dando) (?:una )?fatiga\b",
        requires=rx(r"\baire\b|\b<respir>|\b<pecho>\b|\bahog[a-z]*"),
    ),
    rule(
        RESPIRATORY,
        "hist",
        r"\b(?:ataque|crisis|broncoespasmo|episodio)<g1>(?:de )?asm[a-z]*|\bbroncoespasmo\b"
        r"|\bcrisis asmatica\b",
    ),
    rule(
        RESPIRATORY,
        "strong",
        r"\b(?:se (?:puso|pone|esta poniendo|le puso|le pone|quedo)|esta|quedo|se le estan poniendo"
        r"|se le esta poniendo)(?: (?:todo|toda|re|muy|como|medio|bien|super)){0,2} (?:azul|azulad[oa]|azulit[oa]"
        r"|morad[oa]|moradit[oa]|amoratad[oa]|violeta|cianotic[oa])\b",
        unless=rx(
            r"\b(?:moreton[a-z]*|hematoma|machuc[a-z]*|martill[a-z]*|dedo|una|rodilla|ojo|pie|golpe)\b"
        ),
    ),
)
