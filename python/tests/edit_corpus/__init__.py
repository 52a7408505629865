"""The edit corpus (issue 15): files, an edit() call on each, and the file or the refusal it must give.

Each case: `name`, `file` (the bytes before; None: no file), `old`, `new`, optional `count`, and either
`expect` (the bytes after) or `refuse` (the exception's type name and words its message must contain;
the file must then be unchanged). python/tests/test_toolkit_files.py runs them all.
"""

HUGE = b"".join(b"row %d: value = %d\n" % (i, i * 7) for i in range(200_000))  # ~4.5 MB

CASES = [
    # ---- unique matches ----
    dict(name="unique word", file=b"hello world\n", old="world", new="there", expect=b"hello there\n"),
    dict(name="unique multi-line", file=b"a\nb\nc\nd\n", old="b\nc\n", new="B\nC\n", expect=b"a\nB\nC\nd\n"),
    dict(
        name="delete a block",
        file=b"keep\ndrop me\nkeep too\n",
        old="drop me\n",
        new="",
        expect=b"keep\nkeep too\n",
    ),
    dict(
        name="insert lines",
        file=b"def f():\n    return 1\n",
        old="def f():\n",
        new="def f():\n    x = 0\n",
        expect=b"def f():\n    x = 0\n    return 1\n",
    ),
    dict(name="first line", file=b"first\nsecond\n", old="first", new="1st", expect=b"1st\nsecond\n"),
    dict(name="last line without newline", file=b"one\ntwo", old="two", new="2", expect=b"one\n2"),
    dict(name="whole file", file=b"only\n", old="only\n", new="changed\n", expect=b"changed\n"),
    dict(
        name="regex characters are literal",
        file=b"x = a.b(*args)[0]\n",
        old="a.b(*args)[0]",
        new="c",
        expect=b"x = c\n",
    ),
    dict(
        name="backslashes",
        file=b'path = "C:\\\\temp"\n',
        old='"C:\\\\temp"',
        new='"D:\\\\tmp"',
        expect=b'path = "D:\\\\tmp"\n',
    ),
    dict(
        name="new contains old", file=b"x = 1\n", old="x = 1", new="x = 1 + x = 1", expect=b"x = 1 + x = 1\n"
    ),
    dict(
        name="indentation kept",
        file=b"class A:\n    def f(self):\n        pass\n",
        old="        pass\n",
        new="        return 42\n",
        expect=b"class A:\n    def f(self):\n        return 42\n",
    ),
    # ---- missing ----
    dict(
        name="missing text", file=b"alpha\nbeta\n", old="gamma", new="x", refuse=("EditError", ["not found"])
    ),
    dict(
        name="missing with closest line",
        file=b"def compute_total(items):\n    return sum(items)\n",
        old="def compute_totals(items):",
        new="x",
        refuse=("EditError", ["closest is line 1", "compute_total(items)"]),
    ),
    dict(name="case differs", file=b"Hello\n", old="hello", new="x", refuse=("EditError", ["not found"])),
    dict(name="missing in empty file", file=b"", old="x", new="y", refuse=("EditError", ["not found"])),
    dict(
        name="no such file",
        file=None,
        old="x",
        new="y",
        refuse=("FileNotFoundError", ["no such file", "write()"]),
    ),
    dict(
        name="spaces for tabs",
        file=b"def f():\n\treturn 1\n",
        old="    return 1",
        new="    return 2",
        refuse=("EditError", ["whitespace", "line 2", "tabs"]),
    ),
    dict(
        name="tabs for spaces",
        file=b"def f():\n    return 1\n",
        old="\treturn 1",
        new="\treturn 2",
        refuse=("EditError", ["whitespace", "spaces"]),
    ),
    dict(
        name="wrong indentation depth",
        file=b"if x:\n        y()\n",
        old="if x:\n    y()",
        new="z",
        refuse=("EditError", ["whitespace", "indentation 8 vs 4"]),
    ),
    dict(
        name="trailing spaces in file",
        file=b"a = 1   \nb = 2\n",
        old="a = 1\nb = 2",
        new="c",
        refuse=("EditError", ["whitespace", "trailing"]),
    ),
    dict(
        name="LF old in mixed file with CRLF there",
        file=b"a\nb\r\nc\r\n",
        old="b\nc",
        new="x",
        refuse=("EditError", ["CRLF", "\\r\\n"]),
    ),
    # ---- ambiguous ----
    dict(
        name="two matches",
        file=b"x = 1\ny = 2\nx = 1\n",
        old="x = 1",
        new="x = 3",
        refuse=("EditError", ["2 times", "lines 1, 3", "count=2"]),
    ),
    dict(
        name="three matches count 2",
        file=b"a\na\na\n",
        old="a",
        new="b",
        count=2,
        refuse=("EditError", ["3 times", "lines 1, 2, 3"]),
    ),
    dict(name="count allows all", file=b"a\nb\na\n", old="a", new="c", count=2, expect=b"c\nb\nc\n"),
    dict(name="count above matches", file=b"a\nb\na\n", old="a", new="c", count=5, expect=b"c\nb\nc\n"),
    dict(
        name="many matches named",
        file=b"t\n" * 30,
        old="t",
        new="u",
        refuse=("EditError", ["30 times", "and 10 more"]),
    ),
    dict(
        name="disambiguated by context",
        file=b"def a():\n    return 0\ndef b():\n    return 0\n",
        old="def b():\n    return 0",
        new="def b():\n    return 1",
        expect=b"def a():\n    return 0\ndef b():\n    return 1\n",
    ),
    # ---- misuse ----
    dict(name="empty old", file=b"a\n", old="", new="x", refuse=("ValueError", ["old is empty"])),
    dict(name="old equals new", file=b"a\n", old="a", new="a", refuse=("ValueError", ["same"])),
    dict(
        name="count zero",
        file=b"a\n",
        old="a",
        new="b",
        count=0,
        refuse=("ValueError", ["count must be a positive int"]),
    ),
    dict(name="bytes old", file=b"a\n", old=b"a", new="b", refuse=("TypeError", ["old must be a str"])),
    dict(name="binary file", file=b"\x00\x01\x02abc", old="abc", new="x", refuse=("ValueError", ["binary"])),
    # ---- CRLF ----
    dict(
        name="CRLF file, LF old",
        file=b"one\r\ntwo\r\nthree\r\n",
        old="two\nthree",
        new="2\n3",
        expect=b"one\r\n2\r\n3\r\n",
    ),
    dict(
        name="CRLF file, CRLF old",
        file=b"one\r\ntwo\r\n",
        old="one\r\ntwo",
        new="1\r\n2",
        expect=b"1\r\n2\r\n",
    ),
    dict(
        name="CRLF file, inserted lines get CRLF",
        file=b"a\r\nb\r\n",
        old="a\n",
        new="a\nnew\n",
        expect=b"a\r\nnew\r\nb\r\n",
    ),
    dict(name="CRLF file without final newline", file=b"a\r\nb", old="b", new="c", expect=b"a\r\nc"),
    dict(name="LF file, CRLF old", file=b"a\nb\nc\n", old="a\r\nb", new="x\r\ny", expect=b"x\ny\nc\n"),
    dict(name="lone CR kept", file=b"a\rb\nc\n", old="c", new="d", expect=b"a\rb\nd\n"),
    # ---- encodings ----
    dict(name="latin-1 file", file=b"caf\xe9 cr\xe8me\n", old="café", new="cafe", expect=b"cafe cr\xe8me\n"),
    dict(
        name="latin-1 file, new accent", file=b"na\xefve\n", old="naïve", new="déjà", expect=b"d\xe9j\xe0\n"
    ),
    dict(
        name="latin-1 file refuses an emoji",
        file=b"caf\xe9\n",
        old="café",
        new="café ☕",
        refuse=("ValueError", ["latin-1", "cannot hold"]),
    ),
    dict(
        name="UTF-8 with a stray byte",
        file="héllo\n".encode() + b"bad:\xff\n",
        old="héllo",
        new="hello",
        expect=b"hello\nbad:\xff\n",
    ),
    dict(
        name="UTF-8 BOM kept",
        file=b"\xef\xbb\xbfname = 1\n",
        old="name = 1",
        new="name = 2",
        expect=b"\xef\xbb\xbfname = 2\n",
    ),
    dict(
        name="UTF-16 with BOM",
        file=b"\xff\xfe" + "a = 1\r\n".encode("utf-16-le"),
        old="a = 1",
        new="a = 2",
        expect=b"\xff\xfe" + "a = 2\r\n".encode("utf-16-le"),
    ),
    # ---- unicode ----
    dict(
        name="unicode text",
        file="größe = 3 # 大小\n".encode(),
        old="# 大小",
        new="# size",
        expect="größe = 3 # size\n".encode(),
    ),
    dict(
        name="emoji",
        file="status = '✅'\n".encode(),
        old="'✅'",
        new="'❌'",
        expect="status = '❌'\n".encode(),
    ),
    dict(
        name="combining characters are exact",
        file="e\u0301\n".encode(),
        old="\u00e9",
        new="x",
        refuse=("EditError", ["not found"]),
    ),
    dict(
        name="RTL text", file="שלום עולם\n".encode(), old="עולם", new="world", expect="שלום world\n".encode()
    ),
    # ---- trailing newline ----
    dict(name="trailing newline kept", file=b"a\nb\n", old="b", new="c", expect=b"a\nc\n"),
    dict(name="no trailing newline kept", file=b"a\nb", old="a", new="z", expect=b"z\nb"),
    dict(name="add a trailing newline", file=b"a\nb", old="b", new="b\n", expect=b"a\nb\n"),
    dict(name="remove the trailing newline", file=b"a\nb\n", old="b\n", new="b", expect=b"a\nb"),
    dict(name="blank lines at the end", file=b"a\n\n\n", old="a\n\n", new="a\n", expect=b"a\n\n"),
    # ---- tabs ----
    dict(
        name="tab-indented edit",
        file=b"func f() {\n\treturn 1\n}\n",
        old="\treturn 1",
        new="\treturn 2",
        expect=b"func f() {\n\treturn 2\n}\n",
    ),
    dict(
        name="Makefile recipe tabs",
        file=b"all:\n\tcc -o x x.c\n",
        old="\tcc -o x x.c",
        new="\tcc -O2 -o x x.c",
        expect=b"all:\n\tcc -O2 -o x x.c\n",
    ),
    dict(name="tabs inside a line", file=b"a\tb\tc\n", old="b\tc", new="B\tC", expect=b"a\tB\tC\n"),
    # ---- huge files ----
    dict(
        name="huge file unique",
        file=HUGE,
        old="row 123456: value = 864192\n",
        new="row 123456: changed\n",
        expect=HUGE.replace(b"row 123456: value = 864192\n", b"row 123456: changed\n"),
    ),
    dict(
        name="huge file ambiguous",
        file=HUGE,
        old="value = 14",
        new="x",
        refuse=("EditError", ["times", "more than count=1"]),
    ),
    dict(
        name="huge file missing", file=HUGE, old="row 999999:", new="x", refuse=("EditError", ["not found"])
    ),
    dict(
        name="huge single line",
        file=b"x" * 1_000_000 + b"NEEDLE" + b"y" * 1_000_000 + b"\n",
        old="NEEDLE",
        new="pin",
        expect=b"x" * 1_000_000 + b"pin" + b"y" * 1_000_000 + b"\n",
    ),
]
