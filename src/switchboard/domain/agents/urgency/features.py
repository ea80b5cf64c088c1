"""The features the learned urgency classifier reads: word and character n-grams of a folded text.

One function serves both sides: the training script hands it to scikit-learn as the vectorizer's
analyzer, and the shipped model scores with it at run time, so the two cannot drift apart. The folding
is language-neutral on purpose (no Spanish abbreviation table): the classifier reads Spanish, English
and Portuguese, and character n-grams already bridge misspellings, missing accents and words run
together. Pure: stdlib only.
"""

from __future__ import annotations

import re
import unicodedata

# A letter typed three or more times for emphasis ("ayudaaaa", "helpppp") counts as two.
_REPEATS = re.compile(r"(\w)\1{2,}")
_NOT_WORD = re.compile(r"[^\w]+")
# Character n-grams of these lengths, taken inside each word padded with spaces.
CHAR_SIZES = (3, 4, 5)


def fold(text: str) -> str:
    """Casefolded, accents stripped, emphasis repeats shortened, anything but letters and digits a space."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_NOT_WORD.sub(" ", _REPEATS.sub(r"\1\1", plain)).replace("_", " ").split())


def features(text: str) -> list[str]:
    """The text's features: ``w:`` words, ``b:`` word pairs, ``c:`` character n-grams within words."""
    words = fold(text).split()
    found = [f"w:{w}" for w in words]
    found += [f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)]
    for word in words:
        padded = f" {word} "
        for size in CHAR_SIZES:
            found += [f"c:{padded[i : i + size]}" for i in range(len(padded) - size + 1)]
    return found
