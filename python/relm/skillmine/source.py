"""One cell's source read by `tokenize` and `ast`: its tokens (an f-string as one token, on every Python),
its literals in order, and offsets that both agree on (tokenize counts characters, ast counts UTF-8 bytes).
"""

import ast
import io
import re
import tokenize

_SKIPPED = {tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


class Token:
    """A token with absolute character offsets into the cell's source."""

    __slots__ = ("kind", "text", "start", "end", "line", "level")

    def __init__(self, kind, text, start, end, line, level):
        self.kind = kind  # "name", "number", "string", "fstring", "op", "comment", "newline"
        self.text = text
        self.start = start
        self.end = end
        self.line = line
        self.level = level  # indentation level of its logical line

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.start})"


class Source:
    """A cell's code (newlines normalised to \\n), its tokens and its syntax tree."""

    def __init__(self, code):
        self.code = code.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = self.code.split("\n")
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line) + 1)
        # Parsed first: its SyntaxError says more than tokenize's errors.
        self.tree = ast.parse(self.code)
        self.tokens = self._tokenize()

    def offset(self, line, col):
        """Absolute offset of a tokenize position (1-based line, column in characters)."""
        return self.starts[line - 1] + col

    def node_start(self, node):
        return self.offset(node.lineno, self._chars(node.lineno, node.col_offset))

    def node_end(self, node):
        return self.offset(node.end_lineno, self._chars(node.end_lineno, node.end_col_offset))

    def segment(self, node):
        return self.code[self.node_start(node) : self.node_end(node)]

    def _chars(self, line, byte_col):
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def _tokenize(self):
        out = []
        level = 0
        fstring = 0  # depth of nested f-strings being joined into one token (3.12+)
        first = None
        readline = io.StringIO(self.code).readline
        for t in tokenize.generate_tokens(readline):
            if t.type == tokenize.INDENT:
                level += 1
            elif t.type == tokenize.DEDENT:
                level -= 1
            if _FSTRING_START is not None and t.type == _FSTRING_START:
                if fstring == 0:
                    first = t
                fstring += 1
                continue
            if fstring:
                if t.type == _FSTRING_END:
                    fstring -= 1
                    if fstring == 0:
                        start = self.offset(*first.start)
                        end = self.offset(*t.end)
                        out.append(
                            Token("fstring", self.code[start:end], start, end, first.start[0], level)
                        )
                continue
            if t.type in _SKIPPED:
                continue
            start = self.offset(*t.start)
            end = self.offset(*t.end)
            kind = _kind(t)
            out.append(Token(kind, t.string, start, end, t.start[0], level))
        return out

    def literals(self):
        """The literal tokens a parameter can replace: numbers and strings that are not f-strings."""
        return [t for t in self.tokens if t.kind in ("number", "string")]

    def code_tokens(self):
        return [t for t in self.tokens if t.kind not in ("comment", "newline")]


_KINDS = {tokenize.NAME: "name", tokenize.NUMBER: "number", tokenize.COMMENT: "comment", tokenize.NEWLINE: "newline"}


def _kind(t):
    if t.type == tokenize.STRING:
        return "fstring" if "f" in string_prefix(t.string) else "string"
    return _KINDS.get(t.type, "op")


def string_prefix(text):
    """The letters before a string literal's quote, in lower case ("rb" of rb'...')."""
    return re.match(r"[^'\"]*", text).group().lower()


def literal_key(text):
    """A literal's value in a form equal for equal Python values ('a' and "a", 0x10 and 16)."""
    quote = text[:1]
    if quote in ("'", '"') and "\\" not in text and not text.startswith(quote * 3):
        return "str:" + text[1:-1]  # the common case, without parsing
    if text.isdigit():
        return f"int:{int(text)}"
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return "src:" + text
    if isinstance(value, bool):
        return "src:" + text
    if isinstance(value, int):
        return f"int:{value}"
    if isinstance(value, float):
        return f"float:{value!r}"
    if isinstance(value, str):
        return "str:" + value
    if isinstance(value, bytes):
        return "bytes:" + repr(value)
    return f"num:{value!r}"


def literal_string(text):
    """The str a literal's source text denotes, or None (a number, bytes, or not a literal)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None
