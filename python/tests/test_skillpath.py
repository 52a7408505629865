"""relm.skillpath: skill folders go last on sys.path, and a skill something else shadows is named."""

import os
import subprocess
import sys
import unittest

from relm import skillpath

from .support import temp_dir

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(skillpath.__file__)))


def skill(root, name, code):
    folder = os.path.join(root, name)
    os.makedirs(os.path.join(folder, name.replace("-", "_")))
    open(os.path.join(folder, "SKILL.md"), "w").close()
    with open(os.path.join(folder, name.replace("-", "_"), "__init__.py"), "w") as f:
        f.write(code)
    return folder


class SkillPathTests(unittest.TestCase):
    def run_python(self, code, folders):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR, RELM_SKILL_PATH=os.pathsep.join(folders))
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def test_a_skill_named_json_is_not_imported_and_is_named_as_unused(self):
        root = temp_dir(self)
        json_skill = skill(root, "json", "raise RuntimeError('the json skill was imported')\n")
        words = skill(root, "word-count", "def count(text):\n    return len(text.split())\n")
        code = (
            "from relm import skillpath\n"
            "unused = skillpath.install()\n"
            "import json, word_count\n"
            "print(json.dumps({'n': word_count.count('a b')}))\n"
            "print(json.dumps(unused))\n"
        )
        out = self.run_python(code, [json_skill, words]).splitlines()
        self.assertEqual(out[0], '{"n": 2}')
        import json

        ((folder, line),) = json.loads(out[1])
        self.assertEqual(folder, json_skill)  # which skill, for the host to name in the prompt
        self.assertIn(f"skill json ({json_skill}) is not used: `import json` gives the module at ", line)
        self.assertIn("rename the skill", line)

    def test_skill_folders_come_after_the_standard_library(self):
        root = temp_dir(self)
        folder = skill(root, "relm_test_last", "X = 1\n")
        code = (
            "import os, sys\nfrom relm import skillpath\nskillpath.install()\n"
            f"print(sys.path.index(os.path.dirname(os.__file__)) < sys.path.index({folder!r}))"
        )
        self.assertEqual(self.run_python(code, [folder]).strip(), "True")

    def test_a_skill_nothing_else_provides_is_not_named(self):
        folder = skill(temp_dir(self), "relm_test_free", "X = 1\n")
        self.assertEqual(skillpath.unused([folder]), [])


if __name__ == "__main__":
    unittest.main()
