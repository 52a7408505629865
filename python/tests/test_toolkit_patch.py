"""The toolkit's apply_patch (relm.toolkit.patch): unified and apply-patch formats, refusals that leave
every file as it was."""

import os

from relm.toolkit import patch
from relm.toolkit.patch import PatchError, apply_patch

from .support import InDir

THREE = {
    "a.py": b"def a():\n    return 1\n",
    "b.py": b"def b():\n    return 2\n",
    "c.py": b"def c():\n    return 3\n",
}

GOOD_UNIFIED = """diff --git a/a.py b/a.py
--- a/a.py
+++ b/a.py
@@ -1,2 +1,2 @@
 def a():
-    return 1
+    return 10
diff --git a/b.py b/b.py
--- a/b.py
+++ b/b.py
@@ -1,2 +1,3 @@
 def b():
-    return 2
+    x = 20
+    return x
"""


class ApplyPatch(InDir):
    def setUp(self):
        super().setUp()
        for name, data in THREE.items():
            self.put(name, data)

    def unchanged(self):
        for name, data in THREE.items():
            self.assertEqual(self.get(name), data, name)
        self.assertEqual(
            sorted(n for n in os.listdir(".") if not n.startswith("__")), ["a.py", "b.py", "c.py"]
        )

    def test_three_files_one_bad_hunk_changes_nothing(self):
        bad = (
            GOOD_UNIFIED
            + """--- a/c.py
+++ b/c.py
@@ -1,2 +1,2 @@
 def c():
-    return 4
+    return 30
"""
        )
        with self.assertRaises(PatchError) as caught:
            apply_patch(bad)
        self.assertIn("c.py: hunk 1 of 1 does not apply", str(caught.exception))
        self.assertIn("nothing was changed", str(caught.exception))
        self.unchanged()

    def test_codex_format_with_one_bad_hunk_changes_nothing(self):
        bad = """*** Begin Patch
*** Update File: a.py
@@ def a():
-    return 1
+    return 10
*** Add File: new/d.py
+def d():
+    return 4
*** Update File: b.py
@@
-    return 99
+    return 20
*** End Patch"""
        with self.assertRaisesRegex(PatchError, "b.py: hunk 1 of 1 does not apply"):
            apply_patch(bad)
        self.unchanged()
        self.assertFalse(os.path.exists("new"))

    def test_unified_applies(self):
        out = apply_patch(GOOD_UNIFIED)
        self.assertIn("M a.py (+1 -1)", out)
        self.assertEqual(self.get("a.py"), b"def a():\n    return 10\n")
        self.assertEqual(self.get("b.py"), b"def b():\n    x = 20\n    return x\n")
        self.assertEqual(self.get("c.py"), THREE["c.py"])

    def test_unified_add_delete_rename_without_prefixes_and_wrong_counts(self):
        text = """--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
--- a/c.py
+++ /dev/null
@@ -1,2 +0,0 @@
-def c():
-    return 3
diff --git a/b.py b/moved/b2.py
similarity index 100%
rename from b.py
rename to moved/b2.py
--- a.py
+++ a.py
@@ -1,9 +1,9 @@
 def a():
-    return 1
+    return 11
"""
        out = apply_patch(text)
        self.assertEqual(self.get("new.txt"), b"hello\nworld\n")
        self.assertFalse(os.path.exists("c.py"))
        self.assertFalse(os.path.exists("b.py"))
        self.assertEqual(self.get("moved/b2.py"), THREE["b.py"])
        self.assertEqual(self.get("a.py"), b"def a():\n    return 11\n")
        for line in ("A new.txt", "D c.py", "R b.py -> moved/b2.py", "M a.py"):
            self.assertIn(line, out)

    def test_git_diff_of_empty_files_created_and_deleted(self):
        # What `git diff` prints for an empty file added or removed: a header without ---/+++ or hunks.
        # They were skipped in silence (and the summary named only the other files).
        self.put("empty_gone.txt", b"")
        self.put("not empty.txt", b"x\n")
        text = """diff --git a/empty_gone.txt b/empty_gone.txt
deleted file mode 100644
index e69de29..0000000
diff --git a/pkg/__init__.py b/pkg/__init__.py
new file mode 100644
index 0000000..e69de29
diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"
new file mode 100644
index 0000000..e69de29
diff --git a/a.py b/a.py
--- a/a.py
+++ b/a.py
@@ -1,2 +1,2 @@
 def a():
-    return 1
+    return 10
diff --git a/new one.py b/new one.py
new file mode 100644
index 0000000..e69de29
"""
        out = apply_patch(text)
        self.assertFalse(os.path.exists("empty_gone.txt"))
        for name in ("pkg/__init__.py", "café.py", "new one.py"):
            self.assertEqual(self.get(name), b"", name)
        self.assertEqual(self.get("a.py"), b"def a():\n    return 10\n")
        for line in ("D empty_gone.txt", "A pkg/__init__.py", "A café.py", "A new one.py", "M a.py"):
            self.assertIn(line, out)
        # Like git apply: a file that is not empty is not deleted by the diff of an empty one.
        with self.assertRaisesRegex(PatchError, "not empty.txt: the diff deletes an empty file"):
            apply_patch("diff --git a/not empty.txt b/not empty.txt\ndeleted file mode 100644\nindex e69de29..0000000\n")
        self.assertEqual(self.get("not empty.txt"), b"x\n")

    def test_a_moved_file_keeps_its_mode(self):
        # A script moved by a patch lost its executable bit: the new path was made with the default mode.
        self.put("run.sh", b"#!/bin/sh\necho hi\n")
        os.chmod("run.sh", 0o750)
        apply_patch("*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo ho\n*** End Patch")
        self.assertEqual(os.stat("bin/run.sh").st_mode & 0o7777, 0o750)
        apply_patch("diff --git a/bin/run.sh b/run2.sh\nsimilarity index 100%\nrename from bin/run.sh\nrename to run2.sh\n")
        self.assertEqual(os.stat("run2.sh").st_mode & 0o7777, 0o750)
        self.assertEqual(self.get("run2.sh"), b"#!/bin/sh\necho ho\n")

    def test_git_quoted_names(self):
        # What `git diff` writes for names with non-ASCII or special characters (core.quotePath).
        self.put("café.txt", b"one\n")
        self.put("tab\tname.txt", b"x\n")
        self.put("old é.txt", b"r\n")
        apply_patch(
            'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251.txt"\n'
            "index 5626abf..f719efd 100644\n"
            '--- "a/caf\\303\\251.txt"\n+++ "b/caf\\303\\251.txt"\n@@ -1 +1 @@\n-one\n+two\n'
            'diff --git "a/tab\\tname.txt" "b/tab\\tname.txt"\n'
            '--- "a/tab\\tname.txt"\n+++ "b/tab\\tname.txt"\n@@ -1 +1 @@\n-x\n+y\n'
            'diff --git "a/old \\303\\251.txt" "b/new \\303\\251.txt"\nsimilarity index 100%\n'
            'rename from "old \\303\\251.txt"\nrename to "new \\303\\251.txt"\n'
        )
        self.assertEqual(self.get("café.txt"), b"two\n")
        self.assertEqual(self.get("tab\tname.txt"), b"y\n")
        self.assertEqual(self.get("new é.txt"), b"r\n")
        self.assertFalse(os.path.exists("old é.txt"))

    def test_codex_format_all_operations(self):
        self.put("crlf.txt", b"one\r\ntwo\r\nthree\r\n")
        out = apply_patch("""*** Begin Patch
*** Add File: docs/notes.md
+# Notes
+
+text
*** Delete File: c.py
*** Update File: a.py
*** Move to: lib/a.py
@@ def a():
-    return 1
+    return 100
*** Update File: crlf.txt
@@
 one
-two
+TWO
 three
*** End of File
*** End Patch
""")
        self.assertEqual(self.get("docs/notes.md"), b"# Notes\n\ntext\n")
        self.assertFalse(os.path.exists("c.py") or os.path.exists("a.py"))
        self.assertEqual(self.get("lib/a.py"), b"def a():\n    return 100\n")
        self.assertEqual(self.get("crlf.txt"), b"one\r\nTWO\r\nthree\r\n")
        self.assertIn("R a.py -> lib/a.py", out)

    def test_a_file_the_patch_creates_keeps_the_patch_s_crlf_line_endings(self):
        # As git apply does: the added lines are written as the patch has them. Files that exist keep their
        # own endings, whatever the patch's (crlf.txt stays CRLF, a.py stays LF).
        self.put("crlf.txt", b"one\r\ntwo\r\n")
        unified = (
            "--- /dev/null\n+++ b/win.txt\n@@ -0,0 +1,2 @@\n+first\n+second\n"
            "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def a():\n-    return 1\n+    return 10\n"
            "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
        )
        apply_patch(unified.replace("\n", "\r\n"))
        self.assertEqual(self.get("win.txt"), b"first\r\nsecond\r\n")
        self.assertEqual(self.get("a.py"), b"def a():\n    return 10\n")
        self.assertEqual(self.get("crlf.txt"), b"one\r\nTWO\r\n")
        codex = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+\n+text\n*** End Patch\n"
        apply_patch(codex.replace("\n", "\r\n"))
        self.assertEqual(self.get("notes.md"), b"# Notes\r\n\r\ntext\r\n")
        # A patch with LF lines still creates LF files.
        apply_patch("*** Begin Patch\n*** Add File: unix.txt\n+a\n+b\n*** End Patch\n")
        self.assertEqual(self.get("unix.txt"), b"a\nb\n")

    def test_codex_anchors_in_turn(self):
        self.put(
            "k.py",
            b"class A:\n    def f(self):\n        return 0\n\n\nclass B:\n    def f(self):\n        return 0\n",
        )
        apply_patch(
            "*** Begin Patch\n*** Update File: k.py\n@@ class B:\n@@     def f(self):\n-        return 0\n+        return 2\n*** End Patch"
        )
        self.assertEqual(
            self.get("k.py").decode().split("return"),
            ["class A:\n    def f(self):\n        ", " 0\n\n\nclass B:\n    def f(self):\n        ", " 2\n"],
        )
        with self.assertRaisesRegex(PatchError, "the line after @@ \\('class C:'\\) is not in the file"):
            apply_patch(
                "*** Begin Patch\n*** Update File: k.py\n@@ class C:\n-        return 0\n+        return 3\n*** End Patch"
            )

    def test_context_found_despite_trailing_whitespace_and_offset(self):
        self.put("a.py", b"# header\n\n\ndef a():   \n    return 1\n")
        apply_patch("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def a():\n-    return 1\n+    return 2\n")
        self.assertEqual(self.get("a.py"), b"# header\n\n\ndef a():   \n    return 2\n")

    def test_hunk_counts_keep_lines_that_look_like_headers(self):
        # Removing "-- old" and adding "++ new" shows as "--- old" / "+++ new": the counts say they are
        # hunk lines, not a new file's header.
        self.put("q.sql", b"select 1;\n-- old\nselect 2;\n")
        apply_patch("--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n select 1;\n--- old\n+++ new\n select 2;\n")
        self.assertEqual(self.get("q.sql"), b"select 1;\n++ new\nselect 2;\n")

    def test_format_patch_signature_and_short_counts(self):
        mail = (
            "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n---\n a.py | 2 +-\n\n"
            "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def a():\n-    return 1\n+    return 5\n"
            "-- \n2.39.5\n"
        )
        apply_patch(mail)
        self.assertEqual(self.get("a.py"), b"def a():\n    return 5\n")
        # Counts too small for the lines that follow: the lines win.
        apply_patch("--- a/b.py\n+++ b/b.py\n@@ -1,1 +1,1 @@\n def b():\n-    return 2\n+    return 6\n")
        self.assertEqual(self.get("b.py"), b"def b():\n    return 6\n")

    def test_no_newline_at_end_of_file(self):
        self.put("n.txt", b"a\nb")
        apply_patch("--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n")
        self.assertEqual(self.get("n.txt"), b"a\nc\n")

    def test_refusals(self):
        with self.assertRaisesRegex(PatchError, "empty"):
            apply_patch("  \n")
        with self.assertRaisesRegex(PatchError, "no file changes"):
            apply_patch("just some text\n")
        with self.assertRaisesRegex(PatchError, "End Patch is missing"):
            apply_patch("*** Begin Patch\n*** Delete File: a.py\n")
        with self.assertRaisesRegex(PatchError, "the file exists"):
            apply_patch("*** Begin Patch\n*** Add File: a.py\n+x\n*** End Patch")
        with self.assertRaisesRegex(PatchError, "no such file"):
            apply_patch("*** Begin Patch\n*** Delete File: zz.py\n*** End Patch")
        with self.assertRaisesRegex(PatchError, "absolute"):
            apply_patch("*** Begin Patch\n*** Delete File: /etc/passwd\n*** End Patch")
        with self.assertRaises(TypeError):
            apply_patch(None)
        self.unchanged()

    def test_a_deletion_must_remove_the_whole_file(self):
        # The diff was made when c.py had two lines; it has a third now, which deleting would lose.
        self.put("c.py", THREE["c.py"] + b"extra = 4\n")
        deletion = "--- a/c.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def c():\n-    return 3\n"
        left = r"c.py: the deletion removes only part of the file \(1 more line\(s\), the first 'extra = 4'\)"
        with self.assertRaisesRegex(PatchError, left):
            apply_patch(deletion)
        self.assertEqual(self.get("c.py"), THREE["c.py"] + b"extra = 4\n")
        self.put("c.py", THREE["c.py"])
        self.assertIn("D c.py (-2)", apply_patch(deletion))
        self.assertFalse(os.path.exists("c.py"))

    def test_a_failed_rename_puts_back_what_was_written(self):
        real = patch.os.replace
        calls = []

        def failing(src, dst):
            calls.append(dst)
            if len(calls) == 2:
                raise OSError("disk full")
            real(src, dst)

        patch.os.replace = failing
        try:
            with self.assertRaisesRegex(OSError, "disk full"):
                apply_patch(GOOD_UNIFIED)
        finally:
            patch.os.replace = real
        self.unchanged()
        self.assertEqual([n for n in os.listdir(".") if n.startswith(".relm-")], [])
