"""Shared vocabularies: acute markers, symptom words, children, pregnancy, pills and toxic products."""

from __future__ import annotations

import re

from switchboard.domain.agents.urgency.patterns import rx

NOW = rx(
    r"\b(?:ahora mismo|en este momento|ya mismo|ahorita|recien|de repente|de golpe|hace un rato|"
    r"hace un ratito|hace (?:\d+|unos|un par de|media|una|pocos) (?:minutos?|min|horas?|hora)|otra vez|"
    r"de nuevo|nuevamente|ayuda|ayudenme|ayudame|socorro|auxilio|vengan|veni|vente|rapido|anoche|"
    r"esta manana|esta teniendo|estan teniendo|le esta dando|me esta dando|se esta poniendo)\b"
)

HEALTH = rx(
    r"\b(?:dolor[a-z]*|duel[ea][a-z]*|fiebre|calentura|sangr[a-z]*|<respir>|aire|<pecho>|de[sz]?ma(?:y|ll"
    r"|i)[a-z]*|"
    r"vomit[a-z]*|cayo|caida|golpe[a-z]*|herid[a-z]*|accidente|mordi[a-z]*|quem[a-z]*|hinch[a-z]*|"
    r"alergi[a-z]*|conv?ul[sc][a-z]*|reacciona|inconscient[a-z]*|marea[a-z]*|mareo|fatal|grave|muriendo|"
    r"ahog[a-z]*|infart[a-z]*|acv|palid[oa]|morad[oa]|temblando|herida|fractur[a-z]*|quebr[a-z]*|"
    r"intoxi[cq][a-z]*|envenen[a-z]*|hemorr?agi[a-z]*|convulsion[a-z]*|asma|desvaneci[a-z]*|"
    r"embarazad[a-z]*|parto|contracciones|presion en)\b"
    r"|\b(?:muy|re|bien|super|tan|demasiado|mega|pesimo|horrible|malisimo) mal\b|\bmalisim[oa]\b"
    r"|\bno (?:puede|puedo|pudo) (?:moverse|levantarse|caminar|hablar|respirar|pararse)\b"
)
CHILD = rx(
    r"\b(?:bebe|bebes|bebit[oa]s?|beba|bebas|nen[ea]s?|nenit[oa]s?|nin[oa]s?|ninit[oa]s?|hij[oa]s?|"
    r"hijit[oa]s?|crios?|crias?|chamac[oa]s?|chamaquit[oa]s?|pibes?|pibas?|pibit[oa]s?|chiquit[oa]s?|"
    r"chiquilin[a-z]*|pequen[oa]|peque|guagua|recien nacid[oa]s?|lactante|criatura|niet[oa]s?|"
    r"nietit[oa]s?|sobrinit[oa]s?|escuincle|morrit[oa]s?|chavit[oa]s?|mij[oa]|chaval[a-z]*|chiquill[oa]s?|"
    r"huerquit[oa]s?|guris?|gurisa|gurisit[oa]s?|chilpayate|bebecit[oa]|chamo|chama|chamit[oa]s?|"
    r"carajit[oa]s?|cipot[ea]s?|patoj[oa]s?|pelait[oa]s?|pelaos|wawa|wawit[oa]|guaguit[oa]|cabro chico|"
    r"carajill[oa]s?|chavalo|chavala|chavalit[oa]s?|cabros chicos|cabrit[oa]s chic[oa]s|nin[oa] chiquit[oa]|baby|babies|toddler|my (?:son|daughter|kid|boy"
    r"|girl)|kids?)\b"
)
ELDERLY = rx(
    r"\b(?:abuel[a-z]*|ancian[oa]s?|viejit[oa]s?|adult[oa] mayor|tata|nona|nono|abuelit[a-z]*|"
    r"(?:de|tiene) (?:[7-9]\d|1[01]\d) anos)\b"
)
_AGED = re.compile(r"(?: [a-z]+)?(?: de| tiene)? \d+ (?:dias|semanas|mes|meses|ano|anos)\b")
# "mi hijo de 30", "mi hija tiene 25 años"; not "mi hijo tiene 40 (de fiebre)", a temperature.
ADULT_CHILD = re.compile(r"\bhij[oa]s?(?: [a-z]+)?(?: de (\d+)| tiene (\d+) anos| (\d+) anos)\b")
PREGNANCY = rx(
    r"\bembara[zs][a-z]*|\bsemanas de (?:embarazo|gestacion)|\b(?:estoy|esta|tengo) de \d+ (?:semanas|meses)\b"
    r"|\btengo \d+ semanas\b|\b(?:de|en|trabajo de) parto\b|\bdando a luz\b"
    r"|\b(?:en la|de) semana \d+\b|\bsemana \d+ de\b"
    r"|\bgestacion\b|\bgestante\b"
)
NEWBORN = rx(
    r"\b(?:de|tiene|con|nacio hace) (?:\d+|un|una|dos|tres|cuatro|cinco|seis) (?:dias|semanas)\b"
    r"|\brecien nacid[oa]"
    r"|\b(?:de|tiene) (?:1|un) mes\b"
)
PILLS = rx(
    r"\b(?:pastill[a-z]*|pildor[a-z]*|comprimid[a-z]*|capsul[a-z]*|remedio[a-z]*|medicament[a-z]*|blister|"
    r"frasco|clonazepam|rivotril|alplax|alprazolam|paracetamol|ibuprofeno|tafirol|aspirina[a-z]*|"
    r"diazepam|lorazepam|insulina|jarabe|antidepresiv[a-z]*|somnifer[a-z]*|pastis|ansioliti[a-z]*)\b"
)
TOXIC = (
    r"(?:lavandina|cloro|lejia|detergente|veneno|raticida|insecticida|matarratas|mata ratas|kerosen[a-z]*|"
    r"nafta|gasolina|thinner|aguarras|soda caustica|destapa[a-z]*|limpiador[a-z]*|acido|anticongelante|"
    r"suavizante|amoniaco|plaguicida|herbicida|fertilizante|pinesol|desinfectante|naftalina|soda|"
    r"quitaesmalte|acetona|lejia)"
)


def has_child(norm: str) -> bool:
    """Whether the normalized message is about a child (an adult son / daughter or a pregnancy is not)."""
    pregnancy = bool(PREGNANCY.search(norm))
    for match in CHILD.finditer(norm):
        word = match.group(0)
        if word.startswith("beb") and pregnancy and not _AGED.match(norm, match.end()):
            continue  # the baby of a pregnancy message is the fetus: an obstetric, not a child, emergency
        if word.startswith("hij"):
            if pregnancy:
                continue
            age = ADULT_CHILD.match(norm, match.start())
            if (
                age
                and not re.match(r"\s*(?:mes|meses|dias|semanas)\b", norm[age.end() :])
                and int(age.group(1) or age.group(2) or age.group(3)) >= 18
            ):
                continue
        return True
    return False
