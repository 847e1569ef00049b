"""Rust source as the repository's check scripts read it (scripts/code-size.py,
scripts/module-cycles.py, scripts/own-prose.py): where its comments, strings, raw strings and
char literals are, so a brace, a `use` or a sentence inside one is not taken for code. One
lexer for all three; each blanks what it must not read (same length, newlines kept).
"""
import re

_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'")
_RAW = re.compile(r'b?r(#*)"')


def _ident(ch):
    return ch.isalnum() or ch == "_"


def spans(text):
    """(kind, start, end, body_start, body_end) of each comment (`comment`, line or nested
    block), string (`str`, `b"…"` too), raw string (`raw`) and char literal (`char`), in
    order; a lifetime (`'a`) is none of them. An unclosed one runs to the end."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(("comment", i, j, i, j))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(("comment", i, j, i, j))
            i = j
        elif c in "br" and not (i and _ident(text[i - 1])) and (m := _RAW.match(text, i, i + 260)):
            close = '"' + m.group(1)
            body = m.end()
            j = text.find(close, body)
            end = n if j < 0 else j + len(close)
            out.append(("raw", i, end, body, n if j < 0 else j))
            i = end
        elif c == '"' or (c == "b" and text.startswith('b"', i) and not (i and _ident(text[i - 1]))):
            q = i + (1 if c == "b" else 0)
            j = q + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j, n)
            out.append(("str", i, min(j + 1, n), q + 1, j))
            i = j + 1
        elif c == "'" and (m := _CHAR.match(text, i, i + 12)):
            out.append(("char", i, m.end(), i + 1, m.end() - 1))
            i = m.end()
        else:
            i += 1
    return out


def _blank(chars, a, b):
    for k in range(a, b):
        if chars[k] != "\n":
            chars[k] = " "


def blank_comments(text):
    """The text with its comments blanked; literals kept whole."""
    chars = list(text)
    for kind, a, b, _, _ in spans(text):
        if kind == "comment":
            _blank(chars, a, b)
    return "".join(chars)


def blank_literals(text):
    """The text with comments and every literal (quotes included) blanked, so a brace inside
    one does not count."""
    chars = list(text)
    for _, a, b, _, _ in spans(text):
        _blank(chars, a, b)
    return "".join(chars)


def blank_bodies(text):
    """The text with comments and the contents of strings and chars blanked (the quotes
    kept), and the string literals as (start, raw body, kind): `kind` is `str` (escapes still
    in the body) or `raw`."""
    chars, lits = list(text), []
    for kind, a, b, body_a, body_b in spans(text):
        if kind == "comment":
            _blank(chars, a, b)
            continue
        _blank(chars, body_a, body_b)
        if kind in ("str", "raw"):
            lits.append((a, text[body_a:body_b], kind))
    return "".join(chars), lits


def self_test():
    src = 'let a = "x { // y"; // z {\nlet b = r#"q " }"#; /* c /* d */ e */ let c = \'{\';\nfn f<\'a>(s: &\'a str) -> u8 { b\'"\' }\n'
    assert blank_comments(src).count("{") == src.count("{") - 1, blank_comments(src)
    bl = blank_literals(src)
    assert "x" not in bl and "q" not in bl and "z" not in bl and "e */" not in bl, bl
    assert bl.count("{") == 1 and bl.count("}") == 1, bl
    assert len(bl) == len(src) and bl.count("\n") == src.count("\n")
    code, lits = blank_bodies(src)
    assert [(body, kind) for _, body, kind in lits] == [("x { // y", "str"), ('q " }', "raw")], lits
    assert code.startswith('let a = "' + " " * 8 + '";') and 'r#"     "#;' in code, code
    assert spans("let s = \"unclosed")[-1][0] == "str"
    print("rust_source self-test: ok")


if __name__ == "__main__":
    self_test()
