"""relm.skillmine: cells read with tokenize and ast, chains packaged into functions people would keep."""

import inspect
import io
import json
import os
import sys
import unittest
import warnings
from contextlib import redirect_stdout

from relm.skillmine import cli
from relm.skillmine.cells import analyse_cell
from relm.skillmine.package import package

from .support import temp_dir


def key(*cells):
    """The normalised form of cells, with variables the cells bind renamed by first use (as the host does)."""
    analyses = [analyse_cell(c) for c in cells]
    binds = {n for a in analyses for n in a["binds"]}
    renamed = {}
    out = []
    for a in analyses:
        for p in a["pieces"]:
            if isinstance(p, str):
                out.append(p)
            elif p["n"] in binds:
                out.append(renamed.setdefault(p["n"], f"${len(renamed) + 1}"))
            else:
                out.append(p["n"])
        out.append("--")
    return " ".join(out)


READ = [
    'path = "a.txt"\ntext = open(path).read()',
    "words = text.split()\nprint(len(words))",
    "sorted(set(words))[:3]",
]


def packaged(cells, occurrences, varying=(), **extra):
    request = {"cells": cells, "occurrences": [{"literals": o} for o in occurrences], "varying": list(varying)}
    request.update(extra)
    out = package(request)
    if out["problem"]:
        raise AssertionError(f"{out['problem']}\n{out['code']}")
    return out


def load(code, name):
    """Runs a generated module in a fresh namespace and returns its function."""
    namespace = {}
    warnings.simplefilter("ignore", ResourceWarning)  # the chains' own open(...).read()
    exec(compile(code, f"{name}/__init__.py", "exec"), namespace)  # noqa: S102 - the test's own output
    return namespace[name]


class CellTests(unittest.TestCase):
    def test_literals_are_told_apart_from_names_comments_and_fstrings(self):
        cell = analyse_cell('x = rb"a\\"b"  # c\nif x:\n    y = """one\n# no\n"""\n    z = 1_000.5e3\nw = f"{x} {\'k\'}"')
        self.assertEqual([lit["text"] for lit in cell["literals"]], ['rb"a\\"b"', '"""one\n# no\n"""', "1_000.5e3"])
        self.assertEqual([lit["key"] for lit in cell["literals"]], ["bytes:" + repr(rb'a\"b'), "str:one\n# no\n", "float:1000500.0"])
        self.assertIn('f"{x} {\'k\'}"', cell["pieces"])  # an f-string stays as written, on every Python
        self.assertEqual(cell["free"], [])

    def test_equal_values_have_equal_keys(self):
        keys = lambda code: [lit["key"] for lit in analyse_cell(code)["literals"]]  # noqa: E731
        self.assertEqual(keys("a = 'x'"), keys('a = "x"'))
        self.assertEqual(keys("a = 0x10"), keys("a = 16"))
        self.assertNotEqual(keys("a = '1'"), keys("a = 1"))

    def test_what_a_function_cannot_hold_is_named(self):
        self.assertEqual(analyse_cell("!ls -l")["problem"], "uses an IPython magic or `!command`")
        self.assertEqual(analyse_cell("x = 1\n%timeit f(x)")["problem"], "uses an IPython magic or `!command`")
        self.assertEqual(analyse_cell("len?")["problem"], "uses `?` help")
        self.assertEqual(analyse_cell("await asyncio.sleep(1)")["problem"], "uses top-level await")
        self.assertEqual(analyse_cell("async with lock:\n    pass")["problem"], "uses top-level await")
        self.assertNotIn("problem", analyse_cell("async def f():\n    await g()"))
        self.assertRegex(analyse_cell("def f(:\n")["problem"], r"^is not valid Python \(.*line 1\)$")
        self.assertNotIn("problem", analyse_cell("x = 3 % 2\ny = x != 1"))

    def test_comments_spacing_and_literal_values_do_not_matter(self):
        self.assertEqual(key("n = 10  # ten\nprint(n*2)"), key("n=25\nprint( n * 2 )"))
        self.assertEqual(key("s = 'a.txt'"), key('s = "b.csv"'))
        self.assertNotEqual(key("s = 'a'"), key("s = 1"))

    def test_bound_variables_are_renamed_consistently_read_names_never(self):
        self.assertEqual(key("rows = load(p)", "print(len(rows))"), key("items = load(p)", "print(len(items))"))
        self.assertNotEqual(key("rows = load(p)", "print(len(rows))"), key("rows = load(p)", "print(len(other))"))
        self.assertNotEqual(key("import json\nd = json.load(f)"), key("import yaml\nd = yaml.load(f)"))
        self.assertNotEqual(key("d = x.mean()"), key("d = x.median()"))
        self.assertNotEqual(key("f(sep=',')"), key("f(end=',')"))
        # An attribute that shares a variable's name is not the variable.
        self.assertNotEqual(key("rows = 1\nx.rows"), key("items = 1\nx.rows_"))
        self.assertEqual(key("rows = 1\nx.rows"), key("items = 1\nx.rows"))
        self.assertEqual(
            key("for a in xs:\n    print(a)\n[b for b in xs]"), key("for i in xs:\n    print(i)\n[j for j in xs]")
        )
        self.assertEqual(key("with open(p) as fh:\n    t = fh.read()"), key("with open(p) as g:\n    u = g.read()"))

    def test_indentation_is_kept_as_levels(self):
        self.assertNotEqual(key("for x in xs:\n    y = x\n    print(y)"), key("for x in xs:\n    y = x\nprint(y)"))
        self.assertEqual(key("for x in xs:\n  print(x)"), key("for x in xs:\n        print(x)"))

    def test_names_read_before_they_are_bound_are_free(self):
        self.assertEqual(analyse_cell("x = x + 1")["free"], ["x"])
        self.assertEqual(analyse_cell("total += 1")["free"], ["total"])
        self.assertEqual(analyse_cell("x = 1\ny = x + len(z)")["free"], ["z"])
        # A function body runs later: a helper defined after it in the cell is fine; its parameters are its own.
        self.assertEqual(analyse_cell("def f(a):\n    return g(a) + b\ng = abs\nf(1)")["free"], ["b"])
        self.assertEqual(analyse_cell("[w for w in words if w]")["free"], ["words"])
        self.assertEqual(analyse_cell("print(f'{name}!')")["free"], ["name"])  # f-strings are read too
        cell = analyse_cell("import json as j, os.path\nfrom x import y as z\nd = j.load(os)")
        self.assertEqual(cell["free"], [])
        self.assertEqual(cell["bound"], ["d", "j", "os", "z"])
        self.assertEqual(
            cell["imports"],
            [{"names": ["j", "os"], "text": "import json as j, os.path"}, {"names": ["z"], "text": "from x import y as z"}],
        )


class PackageTests(unittest.TestCase):
    def test_the_varying_file_becomes_the_parameter_and_the_last_value_is_returned(self):
        out = packaged(READ, [['"a.txt"', "3"], ['"b.txt"', "3"]], varying=[[0]], times="2 times in 2 sessions")
        self.assertEqual(out["name"], "words_from_path")
        self.assertEqual(
            [(p["name"], p["origin"], p["role"], p["values"], p["strings"]) for p in out["parameters"]],
            [("path", "was bound to `path`", "read", ['"a.txt"', '"b.txt"'], ["a.txt", "b.txt"])],
        )
        body = out["function_source"].split('"""')[2]
        self.assertEqual(
            body,
            "\n    text = open(path).read()\n\n    words = text.split()\n    print(len(words))\n\n"
            "    return sorted(set(words))[:3]",
        )
        self.assertEqual(out["returns"], {"kind": "display", "expr": "sorted(set(words))[:3]", "show": "_r"})
        self.assertIn("Args:\n        path: was bound to `path`; recorded", out["function_source"])
        folder = temp_dir(self)
        with open(os.path.join(folder, "n.txt"), "w") as f:
            f.write("b a c a")
        with redirect_stdout(io.StringIO()) as printed:
            value = load(out["code"], out["name"])(os.path.join(folder, "n.txt"))
        self.assertEqual((value, printed.getvalue()), (["a", "b", "c"], "4\n"))

    def test_imports_go_to_the_top_and_a_printed_value_is_returned(self):
        cells = [
            "import json\nfrom collections import Counter\ncfg = json.loads(open('c.json').read())",
            "counts = Counter(cfg['words'])\nprint(counts.most_common(1)[0][0], 'wins')",
        ]
        out = packaged(cells, [["'c.json'", "'words'", "1", "0", "'wins'"]], imports=["import os"])
        code = out["code"]
        self.assertLess(code.index("import os\nimport json\nfrom collections import Counter\n"), code.index("def "))
        self.assertNotIn("    import", out["function_source"])
        self.assertIn("    return counts.most_common(1)[0][0]\n", code)
        self.assertEqual(out["returns"]["show"], "print(_r, 'wins')")
        self.assertEqual(out["returns"]["kind"], "print")

    def test_an_import_sharing_its_line_leaves_the_rest_of_the_line(self):
        out = packaged(["import os; names = os.listdir('.')", "import sys; print(len(names))"], [["'.'"]])
        self.assertEqual(out["code"].count("import os\nimport sys\n"), 1)
        self.assertTrue(out["function_source"].endswith("    names = os.listdir('.')\n\n    return len(names)"))

    def test_files_the_chain_writes_become_parameters(self):
        cells = [
            'import json\nout = "report.json"\ndata = json.load(open("in.json"))\nlen(data)',
            'rows = [r for r in data if r["ok"]]\nwith open(out, "w") as fh:\n    json.dump(rows, fh)\n'
            'open("log.txt", "a").write("done")\nprint(len(rows), "rows")',
        ]
        literals = ['"report.json"', '"in.json"', '"ok"', '"w"', '"log.txt"', '"a"', '"done"', '"rows"']
        out = packaged(cells, [literals, literals])  # nothing varies: the written files are parameters anyway
        self.assertEqual(
            [(p["name"], p["role"]) for p in out["parameters"]], [("out", "write"), ("out_path", "write")]
        )
        self.assertTrue(out["function_source"].startswith("def rows_from_out(out, out_path):"))
        body = out["function_source"].split('"""')[2]
        self.assertNotIn('"log.txt"', body)
        self.assertNotIn('out = "report.json"', body)
        self.assertIn('    open(out_path, "a").write("done")\n', body)
        self.assertIn('    data = json.load(open("in.json"))\n', body)
        self.assertEqual(
            out["files"],
            [
                {"slot": 0, "role": "write", "strings": ["report.json"] * 2},
                {"slot": 1, "role": "read", "strings": ["in.json"] * 2},
                {"slot": 4, "role": "write", "strings": ["log.txt"] * 2},
            ],
        )
        # The first cell only displayed len(data): it is left out, and its output is not expected again.
        self.assertEqual(out["quiet_cells"], [0])
        self.assertNotIn("len(data)", out["function_source"])
        folder = temp_dir(self)
        with open(os.path.join(folder, "in.json"), "w") as f:
            json.dump([{"ok": True}, {"ok": False}], f)
        here = os.getcwd()
        os.chdir(folder)
        try:
            with redirect_stdout(io.StringIO()):
                value = load(out["code"], out["name"])(os.path.join(folder, "r.json"), os.path.join(folder, "l.txt"))
        finally:
            os.chdir(here)
        self.assertEqual(value, 1)
        self.assertEqual(sorted(os.listdir(folder)), ["in.json", "l.txt", "r.json"])

    def test_writers_are_found_through_methods_paths_and_module_functions(self):
        cells = [
            'from pathlib import Path\nimport shutil\ndf.to_csv("t.csv", index=False)\nPath("notes.md").write_text(s)',
            'shutil.copy("t.csv", "backup.csv")\nwords.remove("the")\nplt.savefig(fname="p.png")',
        ]
        literals = ['"t.csv"', '"notes.md"', '"t.csv"', '"backup.csv"', '"the"', '"p.png"']
        out = packaged(cells, [literals])
        self.assertEqual(
            [(p["name"], p["slots"]) for p in out["parameters"]],
            [("out_path", [0]), ("out_path_2", [1]), ("out_path_3", [3]), ("fname", [5])],
        )
        self.assertIn('shutil.copy("t.csv", out_path_3)', out["function_source"])  # the source is read as it was
        self.assertIn('words.remove("the")', out["function_source"])  # a list's remove is no file

    def test_earlier_values_are_shown_only_when_the_cell_printed_besides(self):
        cells = [
            "data = list(range(4))\nprint('made')\nlen(data)",
            "total = sum(data)\nstats = {'total': total}\nstats",
            "total;",
        ]
        out = packaged(cells, [["4", "'made'", "'total'"]])
        self.assertIn("    _show(len(data))", out["function_source"])
        self.assertIn("def _show(value):", out["code"])
        self.assertNotIn("    stats\n", out["function_source"])
        self.assertEqual(out["quiet_cells"], [1])
        self.assertEqual(out["returns"], {"kind": "silent", "expr": "total", "show": ""})
        with redirect_stdout(io.StringIO()) as printed:
            self.assertEqual(load(out["code"], out["name"])(), 6)
        self.assertEqual(printed.getvalue(), "made\n4\n")

    def test_the_last_assignment_is_returned_and_multiline_strings_keep_their_lines(self):
        cells = ['doc = """line one\nline two"""\nprint(doc)', "n = len(doc.split())\nlines = doc.count('\\n') + n"]
        out = packaged(cells, [['"""line one\nline two"""', "'\\n'"], ['"""a\nb"""', "'\\n'"]], varying=[[0]])
        self.assertTrue(out["function_source"].startswith("def lines_from_doc(doc):"))
        self.assertIn("    lines = doc.count('\\n') + n\n    return lines", out["function_source"])
        self.assertEqual(out["returns"], {"kind": "assigned", "expr": "lines", "show": ""})
        with redirect_stdout(io.StringIO()):
            self.assertEqual(load(out["code"], out["name"])("x y\nz"), 4)

    def test_a_model_docstring_is_used_as_given_and_made_safe(self):
        out = packaged(READ, [['"a.txt"', "3"], ['"b.txt"', "3"]], varying=[[0]], docstring='Count words in path.\n\nSays """hi""" \\ ok.')
        doc = inspect.cleandoc(load(out["code"], out["name"]).__doc__)  # 3.13 cleans it when compiling
        self.assertEqual(doc, 'Count words in path.\n\nSays """hi""" \\ ok.')
        derived = packaged(READ, [['"a.txt"', "3"]], docstring_note="no model is configured", times="1 times")
        self.assertIn("This docstring was derived from the chain: no model is configured.", derived["docstring"])

    def test_names_come_from_keywords_reads_and_kinds_and_avoid_names_in_use(self):
        cells = ['rows = [l.split(sep=",") for l in open("a.csv")]\nn = len(rows)', 'print(rows[:2], n, ",2")']
        out = packaged(
            cells,
            [['","', '"a.csv"', "2", '",2"'], ['";"', '"b.csv"', "5", '";5"']],
            varying=[[0], [1], [2], [3]],
        )
        self.assertEqual(
            [(p["name"], p["origin"]) for p in out["parameters"]],
            [
                ("sep", "was passed as sep="),
                ("path", "the file the chain read"),
                ("n_2", "a number in the chain"),
                ("text", "a string in the chain"),
            ],
        )
        self.assertIn("def rows_from_sep(sep, path, n_2, text):", out["function_source"])
        self.assertIn("    return (rows[:n_2], n, text)", out["function_source"])
        self.assertEqual(out["returns"]["show"], "print(_r[0], _r[1], _r[2])")


class CliTests(unittest.TestCase):
    def run_cli(self, request):
        stdin, stdout = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = io.StringIO(json.dumps(request)), io.StringIO()
        try:
            cli.main()
            return json.loads(sys.stdout.getvalue())
        finally:
            sys.stdin, sys.stdout = stdin, stdout

    def test_cells_are_answered_in_order_and_a_bad_one_costs_no_other(self):
        answer = self.run_cli({"op": "cells", "cells": ["x = 1", "!ls", "x = 1", "(" * 300 + ")" * 300]})
        cells = answer["cells"]
        self.assertEqual(cells[0], cells[2])
        self.assertEqual(cells[1], {"problem": "uses an IPython magic or `!command`"})
        self.assertTrue("problem" in cells[3] or "error" in cells[3] or "size" in cells[3])

    def test_names_are_unique_across_a_batch(self):
        request = {"cells": READ, "occurrences": [{"literals": ['"a.txt"', "3"]}], "varying": [], "taken": ["words_from_path"]}
        answer = self.run_cli({"op": "package", "chains": [dict(request), dict(request, taken=[])]})
        self.assertEqual([c["name"] for c in answer["chains"]], ["compute_words", "compute_words_2"])
        self.assertEqual(self.run_cli({"op": "nope"}), {"error": "unknown op 'nope'"})


if __name__ == "__main__":
    unittest.main()
