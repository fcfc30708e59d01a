"""Words whose presence changes what a sentence claims: negations, restricting
qualifiers, number words and units, in the languages sheaf reads most.

The lists name differences (a dropped "not" is `negation_removed`, not just a missing
word) and stop a quote from ending right before, or starting right after, a word that
reverses or narrows it. They never make a quote verified: a difference they do not know
is still a difference.
"""

from __future__ import annotations

NEGATIONS = frozenset({
    # English
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
    "cannot", "nowhere", "non",
    # German
    "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
    "nichts", "niemand", "ohne", "weder",
    # French
    "ne", "pas", "jamais", "aucun", "aucune", "rien", "sans", "ni",
    # Spanish, Italian, Portuguese
    "nunca", "jamás", "ningún", "ninguno", "ninguna", "nada", "nadie", "sin", "tampoco",
    "mai", "nessun", "nessuno", "nessuna", "niente", "nulla", "senza", "né", "não",
    "nenhum", "nenhuma", "ninguém", "sem", "nem",
    # Dutch
    "niet", "geen", "nooit", "niets", "zonder",
    # Russian
    "не", "нет", "ни", "никогда", "без",
})

QUALIFIERS = frozenset({
    "only", "solely", "exclusively", "merely", "except", "unless", "least", "most",
    "nur", "ausschließlich", "außer", "seulement", "uniquement", "sauf", "solo", "sólo",
    "solamente", "únicamente", "excepto", "salvo", "soltanto", "tranne",
    "apenas", "somente", "exceto", "alleen", "uitsluitend", "behalve", "только", "кроме",
})
"""Words that narrow a claim: "only in women", "at most", "except"."""

CONDITIONS = frozenset({"if", "unless", "provided", "falls", "sofern", "si", "sauf"})
"""Words opening a condition the claim holds under: "works if taken early"."""

CONJUNCTIONS = frozenset({
    "but", "and", "or", "yet", "though", "although", "aber", "und", "oder", "doch",
    "mais", "et", "ou", "pero", "y", "o", "e", "ma", "mas", "en", "maar", "of", "но", "и",
    "или", "а",
})
"""Words that may stand between a claim and the negation or qualifier that limits it
("significant, but only in women")."""

NUMBER_WORDS = frozenset({
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
    "eighty", "ninety", "hundred", "thousand", "million", "billion", "trillion", "half",
    "twice", "double", "triple", "once", "dozen", "first", "second", "third",
    "eins", "zwei", "drei", "vier", "fünf", "zehn", "hundert", "tausend", "millionen",
    "un", "une", "deux", "trois", "quatre", "cinq", "dix", "cent", "mille",
    "dos", "tres", "cuatro", "cinco", "diez", "cien", "mil", "uno", "una",
})

UNITS = frozenset({
    "%", "percent", "per", "pct", "percentage", "prozent", "pourcent", "por", "ciento",
    "mg", "g", "kg", "µg", "μg", "mcg", "ng", "t", "ml", "l", "dl", "µl", "μl", "km", "m",
    "cm", "mm", "µm", "μm", "nm", "mi", "ft", "in", "s", "ms", "µs", "ns", "min", "h",
    "hr", "hrs", "°c", "°f", "°", "k", "mmhg", "mol", "mmol", "µmol", "μmol", "nmol",
    "hz", "khz", "mhz", "ghz", "kb", "mb", "gb", "tb", "w", "kw", "mw", "gw", "kwh", "v",
    "mv", "kv", "a", "ma", "j", "kj", "cal", "kcal", "pa", "kpa", "mpa", "bar",
    "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week",
    "weeks", "month", "months", "year", "years", "decade", "decades", "century",
    "metre", "metres", "meter", "meters", "kilometre", "kilometres", "kilometer",
    "kilometers", "mile", "miles", "foot", "feet", "inch", "inches", "gram", "grams",
    "kilogram", "kilograms", "milligram", "milligrams", "pound", "pounds", "ounce",
    "ounces", "litre", "litres", "liter", "liters", "tonne", "tonnes", "ton", "tons",
    "dollar", "dollars", "euro", "euros", "usd", "eur", "gbp", "$", "€", "£", "¥",
    "volt", "volts", "watt", "watts", "degree", "degrees", "celsius", "fahrenheit",
    "kelvin", "jahre", "jahren", "tage", "tagen", "stunden", "ans", "années", "jours",
    "heures", "años", "días", "horas",
})


def is_negation(word: str) -> bool:
    """A word that negates: `not`, `didn't`, `n'a`, `kein`, `jamais`, ..."""
    lowered = word.lower()
    return lowered in NEGATIONS or lowered.endswith("n't") or (
        lowered.startswith("n'") and len(lowered) > 2)


def is_qualifier(word: str) -> bool:
    return word.lower() in QUALIFIERS


def is_number(word: str) -> bool:
    return any(c.isdigit() for c in word) or word.lower() in NUMBER_WORDS


def is_unit(word: str) -> bool:
    return word.lower() in UNITS


def limits_a_claim(word: str) -> bool:
    """A negation, qualifier or condition: a quote must not stop right before it."""
    return is_negation(word) or is_qualifier(word) or word.lower() in CONDITIONS


def is_conjunction(word: str) -> bool:
    return word.lower() in CONJUNCTIONS
