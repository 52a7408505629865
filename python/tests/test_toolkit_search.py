"""grep, glob and tree (relm.toolkit.search): .gitignore honoured, caps, and the same results whether
ripgrep, git grep or pure Python does the search (ripgrep and git hidden by PATH)."""

import os
import shutil
import subprocess
import unittest
from unittest import mock

from relm.toolkit import _text, search
from relm.toolkit.search import Match, glob, grep, tree

from .support import temp_dir

FILES = {
    ".gitignore": "build/\nnode_modules\n*.log\n!keep.log\n/docs/*.tmp\nsrc/sub/ignored.py\n",
    "src/a.py": "import os\nneedle = 1\n",
    "src/sub/b.py": "def f():\n    return 'Needle two'\n",
    "src/sub/ignored.py": "needle ignored by an anchored rule\n",
    "src/sub/.gitignore": "local.txt\n",
    "src/sub/local.txt": "needle ignored by a nested .gitignore\n",
    "build/out.py": "needle in build\n",
    "node_modules/x/i.js": "needle in node_modules\n",
    ".hidden/h.txt": "needle in a hidden folder\n",
    "x.log": "needle in a log\n",
    "keep.log": "needle kept by a negation\n",
    "docs/t.tmp": "needle tmp\n",
    "docs/t.md": "needle doc\n",
    "a.txt": "needle\nneedle again\n",
    "a/z.txt": "needle\n",
    "crlf.txt": "first\r\nneedle crlf\r\n",
}


def make_tree(root, git):
    for name, text in FILES.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(text)
    with open(os.path.join(root, "bin.dat"), "wb") as f:
        f.write(b"needle\0binary")
    if git:
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", ".gitignore", "src/a.py"], cwd=root, check=True)


def without(test, *tools):
    """A PATH holding the tools on this PATH except `tools` (links in a temp folder)."""
    folder = temp_dir(test)
    for name in ("git", "rg", "sh"):
        found = shutil.which(name)
        if found and name not in tools:
            os.symlink(found, os.path.join(folder, name))
    return folder


class Backends(unittest.TestCase):
    def setUp(self):
        self.old_cwd = os.getcwd()
        self.old_path = os.environ["PATH"]
        self.addCleanup(os.chdir, self.old_cwd)
        self.addCleanup(os.environ.__setitem__, "PATH", self.old_path)

    def each(self, *args, **kwargs):
        """grep's results with each backend this machine has: {backend: [tuples]}."""
        out = {}
        paths = {"rg": self.old_path, "git grep": without(self, "rg"), "python": without(self, "rg", "git")}
        for path in paths.values():
            os.environ["PATH"] = path
            result = grep(*args, **kwargs)
            out[result.backend] = [tuple(m) for m in result]
        os.environ["PATH"] = self.old_path
        return out

    def test_gitignore_honoured_and_backends_agree(self):
        for git in (True, False):
            with self.subTest(git=git):
                root = temp_dir(self)
                make_tree(root, git)
                os.chdir(root)
                results = self.each("needle", ignore_case=True)
                expect = [
                    (".hidden/h.txt", 1, "needle in a hidden folder"),
                    ("a/z.txt", 1, "needle"),
                    ("a.txt", 1, "needle"),
                    ("a.txt", 2, "needle again"),
                    ("crlf.txt", 2, "needle crlf"),
                    ("docs/t.md", 1, "needle doc"),
                    ("keep.log", 1, "needle kept by a negation"),
                    ("src/a.py", 2, "needle = 1"),
                    ("src/sub/b.py", 2, "    return 'Needle two'"),
                ]
                if shutil.which("rg"):
                    self.assertIn("rg", results)
                self.assertIn("python", results)
                if git:
                    self.assertIn("git grep", results)
                for backend, found in results.items():
                    self.assertEqual(found, expect, backend)

    def test_an_ignored_folder_named_outright_is_searched_and_listed(self):
        # grep("x", "node_modules/pkg") said "(no matches)" (reading a dependency's source is common),
        # and glob() found nothing there, while tree() listed it: .gitignore rules above the folder
        # asked for were applied to it. Rules still apply below it, and a search of the whole tree
        # still leaves it out.
        for git in (True, False):
            with self.subTest(git=git):
                root = temp_dir(self)
                make_tree(root, git)
                with open(os.path.join(root, "node_modules", "x", "skip.log"), "w") as f:
                    f.write("needle in a log\n")  # *.log: still ignored inside
                os.chdir(root)
                inside = [("node_modules/x/i.js", 1, "needle in node_modules")]
                for path in ("node_modules", "node_modules/x"):
                    for backend, found in self.each("needle", path=path).items():
                        self.assertEqual(found, inside, (path, backend))
                self.assertEqual(self.each("needle", path="build"), {b: [("build/out.py", 1, "needle in build")] for b in self.each("needle", path="build")})
                self.assertEqual(list(glob("**/*.js", path="node_modules")), ["node_modules/x/i.js"])
                self.assertEqual(list(glob("node_modules/**/*.js")), ["node_modules/x/i.js"])
                self.assertEqual(list(glob("**/*.js")), [])
                self.assertNotIn("node_modules/x/i.js", [m.path for m in grep("needle")])

    def test_a_line_that_is_not_utf8_reads_the_same_in_every_backend(self):
        root = temp_dir(self)
        make_tree(root, True)
        with open(os.path.join(root, "latin.txt"), "wb") as f:
            f.write(b"caf\xe9 needle\n")
        os.chdir(root)
        results = self.each("needle", glob="latin.txt")
        for backend, found in results.items():
            # U+FFFD for the byte, as git grep and Python read it: no lone surrogate, which print() refuses.
            self.assertEqual(found, [("latin.txt", 1, "caf\ufffd needle")], backend)
        if shutil.which("rg"):
            self.assertIn("rg", results)

    def test_a_nul_byte_anywhere_makes_a_file_binary_in_every_backend(self):
        root = temp_dir(self)
        make_tree(root, True)
        files = {
            # Past the 8,000 bytes git grep looks at, inside the first block ripgrep reads.
            "late.txt": b"needle one\n" + b"x" * 9000 + b"\nneedle two\0\nneedle three\n",
            # Past ripgrep's first blocks: it used to report the lines before the NUL.
            "later.txt": b"needle one\n" + (b"y" * 99 + b"\n") * 5000 + b"needle two\0\nneedle three\n",
        }
        for name, data in files.items():
            with open(os.path.join(root, name), "wb") as f:
                f.write(data)
        os.chdir(root)
        results = self.each("needle", glob="*.txt")
        self.assertEqual(sorted(results), sorted(["python", "git grep"] + (["rg"] if shutil.which("rg") else [])))
        for backend, found in results.items():
            self.assertEqual([m[0] for m in found], [".hidden/h.txt", "a/z.txt", "a.txt", "a.txt", "crlf.txt"], backend)

    def test_utf16_and_byte_order_marks_read_as_ripgrep_reads_them(self):
        root = temp_dir(self)
        make_tree(root, True)
        os.mkdir(os.path.join(root, "enc"))
        files = {
            "le.txt": "\ufeffneedle le\nsecond needle\n".encode("utf-16-le"),
            "be.txt": "\ufeffneedle be\n".encode("utf-16-be"),
            "nul16.txt": "\ufeffneedle\0\n".encode("utf-16-le"),  # a NUL character: binary, decoded or not
            "bom8.txt": "\ufeffneedle at the start\n".encode("utf-8"),
        }
        for name, data in files.items():
            with open(os.path.join(root, "enc", name), "wb") as f:
                f.write(data)
        os.chdir(root)
        expect = [
            ("enc/be.txt", 1, "needle be"),
            ("enc/bom8.txt", 1, "needle at the start"),
            ("enc/le.txt", 1, "needle le"),
            ("enc/le.txt", 2, "second needle"),
        ]
        results = self.each("^needle|needle$", path="enc")
        self.assertEqual(results["python"], expect)
        if shutil.which("rg"):
            self.assertEqual(results["rg"], expect)
        # git grep (only without ripgrep) cannot decode UTF-16, and its ^ meets the UTF-8 BOM on line 1;
        # what it finds reads as the others read it.
        self.assertEqual(results["git grep"], [])
        self.assertEqual(self.each("needle at", path="enc")["git grep"], [expect[1]])

    def test_the_cr_of_a_crlf_line_is_no_part_of_it(self):
        root = temp_dir(self)
        make_tree(root, True)
        os.chdir(root)
        ends = self.each("crlf$", glob="crlf.txt")
        cr = self.each(r"crlf\s", glob="crlf.txt")
        for backend in ("rg", "python") if shutil.which("rg") else ("python",):
            self.assertEqual(ends[backend], [("crlf.txt", 2, "needle crlf")], backend)
            self.assertEqual(cr[backend], [], backend)
        # git grep (only without ripgrep) matches the \r: documented in docs/toolkit.md.
        self.assertEqual(ends["git grep"], [])
        self.assertEqual(cr["git grep"], [("crlf.txt", 2, "needle crlf")])

    def test_repository_exclude_file_honoured(self):
        root = temp_dir(self)
        make_tree(root, True)
        with open(os.path.join(root, ".git", "info", "exclude"), "a") as f:
            f.write("\n/a.txt\nsub/\n")
        os.chdir(root)
        for backend, found in self.each("needle again|Needle two", ignore_case=True).items():
            self.assertEqual(found, [], backend)
        self.assertNotIn("a.txt", glob("*.txt"))
        self.assertIn("a/z.txt", glob("**/*.txt"))
        self.assertNotIn("src/sub/b.py", glob("**/*.py"))
        self.assertNotIn("sub/", tree("src"))

    def test_subfolder_glob_case_and_caps_agree(self):
        root = temp_dir(self)
        make_tree(root, True)
        os.chdir(os.path.join(root, "src"))
        cases = [
            (("needle",), {"path": ".."}),
            (("needle",), {"path": "."}),
            (("needle",), {"path": "..", "glob": "*.py", "ignore_case": True}),
            (("needle",), {"path": "..", "glob": "src/**/*.py", "ignore_case": True}),
            (("ne+dle",), {"path": "..", "max_results": 3}),
            (("needle",), {"path": "..", "glob": "*.{py,md}"}),
            (("(?<=ne)edle",), {"path": ".."}),  # a look-behind: ripgrep refuses it, Python does it
        ]
        for args, kwargs in cases:
            with self.subTest(args=args, kwargs=kwargs):
                results = self.each(*args, **kwargs)
                values = list(results.values())
                self.assertGreater(len(values[0]), 0)
                for backend, found in results.items():
                    self.assertEqual(found, values[0], backend)
        self.assertEqual(grep("needle", path="..", glob="*.py")[0], Match("a.py", 2, "needle = 1"))


class Grep(unittest.TestCase):
    def setUp(self):
        self.root = temp_dir(self)
        make_tree(self.root, True)
        self.old_cwd = os.getcwd()
        os.chdir(self.root)
        self.addCleanup(os.chdir, self.old_cwd)

    def test_cap_and_note(self):
        with open("many.txt", "w") as f:
            f.write("hit\n" * 500)
        found = grep("hit", max_results=20)
        self.assertEqual(len(found), 20)
        self.assertIn("showing 20 of 500 matches", found.note)
        self.assertIn("[showing 20 of 500", repr(found))
        self.assertEqual(found[0], Match("many.txt", 1, "hit"))
        path, line, text = found[1]
        self.assertEqual((path, line, text), ("many.txt", 2, "hit"))

    def test_repr_is_one_line_per_match_and_capped(self):
        self.assertEqual(repr(grep("again")), "a.txt:2: needle again")
        self.assertEqual(repr(grep("nothing-like-this")), "(no matches)")
        with open("wide.txt", "w") as f:
            f.write(("hit " + "w" * 400 + "\n") * 200)
        out = grep("hit", path="wide.txt", max_results=200)
        self.assertIn("more chars]", out[0].text)
        self.assertLess(len(repr(out)), search.OUTPUT_CAP + 200)

    def test_a_glob_written_from_the_cwd_with_dot_slash_matches(self):
        # glob="./src/*.py" matched nothing: the "./" was compared with paths that have none.
        self.assertEqual(grep("needle", glob="./src/**/*.py"), grep("needle", glob="src/**/*.py"))
        self.assertGreater(len(grep("needle", glob="./src/**/*.py")), 0)
        top = grep("needle", glob="./*.txt")  # the top level only, as "*.txt" below the path
        self.assertEqual({m.path for m in top}, {"a.txt", "crlf.txt"})

    def test_single_file_and_misuse(self):
        self.assertEqual([m.line for m in grep("needle", path="a.txt")], [1, 2])
        with self.assertRaisesRegex(ValueError, "bad regex"):
            grep("(")
        with self.assertRaises(FileNotFoundError):
            grep("x", path="nope")
        with self.assertRaisesRegex(FileNotFoundError, r"pass glob='\*\.py'"):
            grep("x", path="*.py")
        with self.assertRaisesRegex(ValueError, "max_results"):
            grep("x", max_results=0)
        with self.assertRaises(TypeError):
            grep(b"x")


class GlobAndTree(unittest.TestCase):
    def setUp(self):
        self.root = temp_dir(self)
        make_tree(self.root, True)
        self.old_cwd = os.getcwd()
        os.chdir(self.root)
        self.addCleanup(os.chdir, self.old_cwd)

    def test_glob(self):
        self.assertEqual(list(glob("**/*.py")), ["src/a.py", "src/sub/b.py"])
        self.assertEqual(list(glob("*.log")), ["keep.log"])
        self.assertEqual(list(glob("src/*.py")), ["src/a.py"])
        self.assertEqual(list(glob("**/*.{md,log}")), ["docs/t.md", "keep.log"])
        self.assertEqual(list(glob("*.py", path="src")), ["src/a.py"])
        self.assertIn("src/sub", list(glob("src/*")))
        capped = glob("**/*", max_results=3)
        self.assertEqual(len(capped), 3)
        self.assertIn("showing 3 of", capped.note)
        # The standard library's functions stay reachable for code written for the module.
        self.assertIn("x.log", glob.glob("*.log"))
        with self.assertRaises(NotADirectoryError):
            glob("*", path="a.txt")

    def test_a_glob_stopped_early_does_not_give_the_count_it_stopped_at_as_the_total(self):
        # glob stops collecting past 10,000 paths (and ten times max_results): its note said "showing 5 of
        # 10001 paths" for a folder of 12,000 files, a total the model would take as the real one.
        os.mkdir("many")
        for k in range(12_000):
            open(os.path.join("many", f"f{k}.txt"), "w").close()
        capped = glob("many/*", max_results=5)
        self.assertEqual(len(capped), 5)
        self.assertIn("showing 5 of more than 10000 paths", capped.note)
        self.assertNotIn("of 10001 paths", capped.note)
        # A list counted to its end still says its total.
        self.assertIn("showing 5 of 10 paths", glob("many/f?.txt", max_results=5).note)

    def test_a_pattern_ending_in_a_slash_lists_folders_as_the_shell_does(self):
        # glob("*/") found nothing (nor did glob("src/")): no path ends with "/", where the shell and the
        # standard library list the folders, each with its "/".
        self.assertEqual(list(glob("*/")), [".hidden/", "a/", "docs/", "src/"])
        self.assertEqual(list(glob("src/")), ["src/"])
        self.assertEqual(list(glob("**/")), [".hidden/", "a/", "docs/", "src/", "src/sub/"])
        self.assertEqual(list(glob("*.log/")), [])  # files are not folders

    def test_glob_lists_symlinks_at_every_depth_without_entering_them(self):
        # glob("*.md") listed a symlinked README.md and glob("**/*.md") did not: the walk skipped links.
        os.symlink("docs/t.md", "README.md")
        os.symlink("a.py", os.path.join("src", "alias.py"))
        os.symlink(".", os.path.join("src", "loop"))  # a link to a folder is listed, never followed
        self.assertEqual(list(glob("*.md")), ["README.md"])
        self.assertEqual(list(glob("**/*.md")), ["README.md", "docs/t.md"])
        self.assertEqual(list(glob("**/*.py")), ["src/a.py", "src/alias.py", "src/sub/b.py"])
        self.assertEqual(list(glob("src/**/loop*")), ["src/loop"])

    def test_tree(self):
        out = tree(".", depth=2)
        self.assertTrue(out.startswith("./\n"))
        self.assertIn("  src/\n", out)
        self.assertIn("    sub/ (2 entries)", out)  # b.py and its .gitignore; ignored.py, local.txt left out
        for gone in ("build", "node_modules", "x.log", ".git/"):
            self.assertNotIn(gone, out)
        os.makedirs("wide")
        for i in range(120):
            open(os.path.join("wide", f"f{i:03}.txt"), "w").close()
        out = tree("wide")
        self.assertIn("[... 70 more entries]", out)
        small = tree(".", depth=3, max_entries=5)
        self.assertIn("[... cut at 5 lines", small)
        with self.assertRaises(ValueError):
            tree(".", depth=0)
        # max_entries was not checked: a str gave Python's "'<=' not supported between ..." TypeError.
        with self.assertRaisesRegex(ValueError, "max_entries must be a positive int"):
            tree(".", max_entries="10")
        with self.assertRaises(NotADirectoryError):
            tree("a.txt")


class IgnoreMatcher(unittest.TestCase):
    def test_agrees_with_git_check_ignore(self):
        if not shutil.which("git"):
            self.skipTest("git is not installed")
        root = temp_dir(self)
        rules = (
            "*.o\n/top.txt\ndir/\n**/deep/*.c\na/**/b\n!important.o\nwild?.md\n[abc]x.txt\n\\#hash\nsp\\ \n"
        )
        paths = [
            "x.o",
            "important.o",
            "top.txt",
            "sub/top.txt",
            "dir/f",
            "sub/dir/f",
            "q/deep/k.c",
            "deep/k.c",
            "deep/k.h",
            "a/b",
            "a/x/y/b",
            "wild1.md",
            "wild12.md",
            "ax.txt",
            "dx.txt",
            "#hash",
            "sp ",
            "sp",
        ]
        with open(os.path.join(root, ".gitignore"), "w") as f:
            f.write(rules)
        for p in paths:
            full = os.path.join(root, p)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            open(full, "w").close()
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        proc = subprocess.run(
            ["git", "check-ignore", "--no-index", *paths], cwd=root, capture_output=True, text=True
        )
        by_git = set(proc.stdout.splitlines())
        walked = {p for p, is_dir in search.ignore.walk(root) if not is_dir}
        mine = {p for p in paths if os.path.join(root, p) not in walked}
        self.assertEqual(mine, by_git)


if __name__ == "__main__":
    unittest.main()


class TooLarge(unittest.TestCase):
    """Python's search reads a file whole: one over the toolkit's cap (a sparse file of terabytes filled the
    kernel's memory with zeros) is refused when named, passed over in a folder."""

    def setUp(self):
        self.old_cwd, self.old_path = os.getcwd(), os.environ["PATH"]
        self.addCleanup(os.chdir, self.old_cwd)
        self.addCleanup(os.environ.__setitem__, "PATH", self.old_path)
        os.chdir(temp_dir(self))
        with open("huge.log", "wb") as f:
            f.truncate(_text.FILE_CAP + 1)
        with open("small.txt", "w") as f:
            f.write("needle\n")

    def test_a_file_over_the_cap_named_is_refused_unread(self):
        with self.assertRaisesRegex(_text.FileTooLarge, r"^huge.log is 268,435,457 bytes, more than the 268,435,456 grep\(\) read of a file: read a part"):
            grep("needle", "huge.log")

    def test_a_file_over_the_cap_in_a_folder_is_passed_over_by_python(self):
        # A cap of 10 bytes here, so that a text file over it would be found if it were read.
        with open("big.txt", "w") as f:
            f.write("needle in a file over the cap\n")
        os.environ["PATH"] = without(self, "rg", "git")
        with mock.patch.object(search, "FILE_CAP", 10, create=True):
            found = grep("needle")
        self.assertEqual((found.backend, [tuple(m) for m in found]), ("python", [("small.txt", 1, "needle")]))

