"""Office Math (OMML, the `m:` elements of DOCX and PPTX) written as LaTeX.

Each OMML structure has a LaTeX counterpart: fractions, scripts, radicals, n-ary
operators, delimiters, functions, accents, bars, limits, matrices and equation arrays.
Characters with a LaTeX command (Greek letters, operators, arrows) are written as the
command, LaTeX's special characters are escaped, and upright multi-letter runs become
`\\mathrm`. An element sheaf does not know contributes its text, so no equation is
ever rendered as nothing.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MAX_DEPTH = 64

_SYMBOLS = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\epsilon",
    "ϵ": r"\epsilon", "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ϑ": r"\vartheta",
    "ι": r"\iota", "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi",
    "π": r"\pi", "ϖ": r"\varpi", "ρ": r"\rho", "σ": r"\sigma", "ς": r"\varsigma",
    "τ": r"\tau", "υ": r"\upsilon", "φ": r"\phi", "ϕ": r"\phi", "χ": r"\chi",
    "ψ": r"\psi", "ω": r"\omega", "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta",
    "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi", "Σ": r"\Sigma", "Υ": r"\Upsilon",
    "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega", "±": r"\pm", "∓": r"\mp", "×": r"\times",
    "÷": r"\div", "·": r"\cdot", "⋅": r"\cdot", "∗": r"\ast", "≤": r"\leq", "≥": r"\geq",
    "≠": r"\neq", "≈": r"\approx", "≡": r"\equiv", "∼": r"\sim", "≃": r"\simeq",
    "∝": r"\propto", "∞": r"\infty", "∂": r"\partial", "∇": r"\nabla", "∈": r"\in",
    "∉": r"\notin", "⊂": r"\subset", "⊆": r"\subseteq", "⊃": r"\supset", "⊇": r"\supseteq",
    "∪": r"\cup", "∩": r"\cap", "∅": r"\emptyset", "∀": r"\forall", "∃": r"\exists",
    "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee", "→": r"\rightarrow", "←": r"\leftarrow",
    "↔": r"\leftrightarrow", "⇒": r"\Rightarrow", "⇐": r"\Leftarrow",
    "⇔": r"\Leftrightarrow", "↦": r"\mapsto", "…": r"\ldots", "⋯": r"\cdots",
    "⋮": r"\vdots", "⋱": r"\ddots", "°": r"^{\circ}", "′": r"'", "″": r"''", "ℏ": r"\hbar",
    "ℓ": r"\ell", "ℝ": r"\mathbb{R}", "ℕ": r"\mathbb{N}", "ℤ": r"\mathbb{Z}",
    "ℚ": r"\mathbb{Q}", "ℂ": r"\mathbb{C}", "√": r"\surd", "∑": r"\sum", "∏": r"\prod",
    "∫": r"\int", "∬": r"\iint", "∭": r"\iiint", "∮": r"\oint", "⊕": r"\oplus",
    "⊗": r"\otimes", "⟨": r"\langle", "⟩": r"\rangle", "‖": r"\|", "−": "-",
    "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor", "⌋": r"\rfloor",
}
_ESCAPED = {"{": r"\{", "}": r"\}", "%": r"\%", "#": r"\#", "&": r"\&", "$": r"\$",
            "_": r"\_", "\\": r"\backslash", "^": r"\hat{}", "~": r"\sim"}
_FUNCTIONS = frozenset({"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos",
                        "arctan", "sinh", "cosh", "tanh", "coth", "log", "ln", "lg", "exp",
                        "lim", "max", "min", "sup", "inf", "det", "dim", "ker", "deg",
                        "gcd", "arg", "Pr", "limsup", "liminf"})
_ACCENTS = {"\u0302": r"\hat", "\u0303": r"\tilde", "\u0304": r"\bar", "\u0305": r"\bar",
            "\u0307": r"\dot", "\u0308": r"\ddot", "\u20d7": r"\vec", "\u0301": r"\acute",
            "\u0300": r"\grave", "\u0306": r"\breve", "\u030c": r"\check"}
_DELIMITERS = {"(": "(", ")": ")", "[": "[", "]": "]", "{": r"\{", "}": r"\}",
               "|": "|", "‖": r"\|", "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle",
               "〉": r"\rangle", "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor",
               "⌋": r"\rfloor", "": "."}


def omml_latex(element: Element) -> str:
    """The LaTeX of an `m:oMath` (or any OMML element), without `$` delimiters."""
    return " ".join(_latex(element, 0).split())


def _latex(element: Element, depth: int) -> str:
    if depth > _MAX_DEPTH:
        return _text_of(element)
    tag = element.tag
    if not tag.startswith(M):
        if tag == W + "t":
            return _escape(element.text or "")
        return "".join(_latex(child, depth + 1) for child in element)
    local = tag[len(M):]
    handler = _HANDLERS.get(local)
    if handler is not None:
        return handler(element, depth + 1)
    if local.endswith("Pr"):
        return ""  # properties: fonts, sizes, alignment
    return "".join(_latex(child, depth + 1) for child in element)


def _part(element: Element, name: str, depth: int) -> str:
    child = element.find(M + name)
    return _latex(child, depth) if child is not None else ""


def _property(element: Element, pr: str, name: str) -> str | None:
    found = element.find(f"{M}{pr}/{M}{name}")
    if found is None:
        return None
    return found.get(M + "val", "")


def _run(element: Element, depth: int) -> str:
    texts = [t.text or "" for t in element if t.tag in (M + "t", W + "t")]
    text = "".join(texts)
    plain = _property(element, "rPr", "sty") == "p" or element.find(f"{M}rPr/{M}nor") \
        is not None
    if plain and len(text.strip()) > 1 and text.strip().isalpha():
        word = text.strip()
        return f"\\{word} " if word in _FUNCTIONS else f"\\mathrm{{{word}}}"
    return _escape(text)


def _escape(text: str) -> str:
    out = []
    for char in text:
        if char in _SYMBOLS:
            out.append(_SYMBOLS[char] + (" " if _SYMBOLS[char][-1].isalpha() else ""))
        elif char in _ESCAPED:
            out.append(_ESCAPED[char])
        elif char == "\u00a0":
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def _fraction(element: Element, depth: int) -> str:
    num, den = _part(element, "num", depth), _part(element, "den", depth)
    kind = _property(element, "fPr", "type")
    if kind == "lin":
        return f"{num}/{den}"
    if kind == "noBar":
        return f"\\genfrac{{}}{{}}{{0pt}}{{}}{{{num}}}{{{den}}}"
    return f"\\frac{{{num}}}{{{den}}}"


def _superscript(element: Element, depth: int) -> str:
    return f"{{{_part(element, 'e', depth)}}}^{{{_part(element, 'sup', depth)}}}"


def _subscript(element: Element, depth: int) -> str:
    return f"{{{_part(element, 'e', depth)}}}_{{{_part(element, 'sub', depth)}}}"


def _sub_superscript(element: Element, depth: int) -> str:
    return (f"{{{_part(element, 'e', depth)}}}_{{{_part(element, 'sub', depth)}}}"
            f"^{{{_part(element, 'sup', depth)}}}")


def _prescript(element: Element, depth: int) -> str:
    return (f"{{}}_{{{_part(element, 'sub', depth)}}}^{{{_part(element, 'sup', depth)}}}"
            f"{{{_part(element, 'e', depth)}}}")


def _radical(element: Element, depth: int) -> str:
    degree = _part(element, "deg", depth)
    body = _part(element, "e", depth)
    hidden = _property(element, "radPr", "degHide") in ("1", "on", "true", "")
    return f"\\sqrt[{degree}]{{{body}}}" if degree and not hidden else f"\\sqrt{{{body}}}"


def _nary(element: Element, depth: int) -> str:
    symbol = _property(element, "naryPr", "chr") or "∫"
    command = _SYMBOLS.get(symbol, _escape(symbol)).strip()
    lower = "" if _property(element, "naryPr", "subHide") in ("1", "on", "true") \
        else _part(element, "sub", depth)
    upper = "" if _property(element, "naryPr", "supHide") in ("1", "on", "true") \
        else _part(element, "sup", depth)
    out = command
    if lower:
        out += f"_{{{lower}}}"
    if upper:
        out += f"^{{{upper}}}"
    return out + f"{{{_part(element, 'e', depth)}}}"


def _delimiter(element: Element, depth: int) -> str:
    begin = _property(element, "dPr", "begChr")
    end = _property(element, "dPr", "endChr")
    separator = _property(element, "dPr", "sepChr")
    opening = _DELIMITERS.get("(" if begin is None else begin, _escape(begin or ""))
    closing = _DELIMITERS.get(")" if end is None else end, _escape(end or ""))
    joiner = _escape("|" if separator is None else separator)
    parts = [_latex(e, depth) for e in element.findall(M + "e")]
    return f"\\left{opening}{joiner.join(parts)}\\right{closing}"


def _function(element: Element, depth: int) -> str:
    name_element = element.find(M + "fName")
    name = _text_of(name_element).strip() if name_element is not None else ""
    body = _part(element, "e", depth)
    if name in _FUNCTIONS:
        return f"\\{name}{{{body}}}"
    rendered = _latex(name_element, depth) if name_element is not None else ""
    return f"{rendered}{{{body}}}"


def _accent(element: Element, depth: int) -> str:
    symbol = _property(element, "accPr", "chr")
    command = _ACCENTS.get("\u0302" if symbol is None else symbol, r"\hat")
    return f"{command}{{{_part(element, 'e', depth)}}}"


def _bar(element: Element, depth: int) -> str:
    position = _property(element, "barPr", "pos") or "bot"
    command = r"\overline" if position == "top" else r"\underline"
    return f"{command}{{{_part(element, 'e', depth)}}}"


def _group_character(element: Element, depth: int) -> str:
    position = _property(element, "groupChrPr", "pos") or "bot"
    command = r"\overbrace" if position == "top" else r"\underbrace"
    return f"{command}{{{_part(element, 'e', depth)}}}"


def _lower_limit(element: Element, depth: int) -> str:
    base, limit = _part(element, "e", depth), _part(element, "lim", depth)
    if base.strip().startswith("\\") and base.strip()[1:] in _FUNCTIONS:
        return f"{base.strip()}_{{{limit}}}"
    return f"\\underset{{{limit}}}{{{base}}}"


def _upper_limit(element: Element, depth: int) -> str:
    return f"\\overset{{{_part(element, 'lim', depth)}}}{{{_part(element, 'e', depth)}}}"


def _matrix(element: Element, depth: int) -> str:
    rows = [" & ".join(_latex(e, depth) for e in row.findall(M + "e"))
            for row in element.findall(M + "mr")]
    return "\\begin{matrix}" + " \\\\ ".join(rows) + "\\end{matrix}"


def _equation_array(element: Element, depth: int) -> str:
    rows = [_latex(e, depth) for e in element.findall(M + "e")]
    return "\\begin{array}{l}" + " \\\\ ".join(rows) + "\\end{array}"


def _text_of(element: Element) -> str:
    return "".join(t.text or "" for t in element.iter() if t.tag in (M + "t", W + "t"))


_HANDLERS = {
    "r": _run, "f": _fraction, "sSup": _superscript, "sSub": _subscript,
    "sSubSup": _sub_superscript, "sPre": _prescript, "rad": _radical, "nary": _nary,
    "d": _delimiter, "func": _function, "acc": _accent, "bar": _bar,
    "groupChr": _group_character, "limLow": _lower_limit, "limUpp": _upper_limit,
    "m": _matrix, "eqArr": _equation_array,
}
