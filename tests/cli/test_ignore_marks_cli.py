"""Ignore marks as a user writes them: in a program's comments and in Markdown, scanned."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands import doublet

GIVEN_FUNCTION = '''
def read_grades(path):
    """The function the assignment hands out: every student's file has it."""
    grades = {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            name, _, grade = line.strip().partition(",")
            if name and grade:
                grades[name] = float(grade)
    return grades
'''

ESSAY = (
    "Bees leave a hive in spring when the colony has grown too large for it, and the old "
    "queen flies out with half of the workers to find a hollow tree or a chimney nearby."
)


def scanned_pairs(folder: Path) -> set[frozenset[str]]:
    run = doublet("scan", str(folder), "--format", "json", "--no-progress", "--no-index")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    names = {d["id"]: Path(d["path"]).name for d in data["documents"]}
    return {frozenset((names[p["a"]], names[p["b"]])) for p in data["pairs"]}


def test_marked_code_and_prose_are_left_out_of_a_scan_and_the_rest_is_not(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    mine = f"def main():\n    print(sum(read_grades('g.csv').values()))\n{GIVEN_FUNCTION}"
    marked = (
        "def main():\n    print(max(read_grades('g.csv').values()))\n"
        f"# doublet: ignore-start (given by the teacher)\n{GIVEN_FUNCTION}# doublet: ignore-end\n"
    )
    (folder / "ana.py").write_text(mine, "utf-8")
    (folder / "ben.py").write_text(marked, "utf-8")
    (folder / "source.md").write_text(f"# Notes\n\n{ESSAY}\n", "utf-8")
    (folder / "quoted.md").write_text(
        f"# Mine\n\n<!-- doublet: ignore-start -->\n{ESSAY}\n<!-- doublet: ignore-end -->\n",
        "utf-8",
    )
    (folder / "copied.md").write_text(f"# Also mine\n\n{ESSAY}\n", "utf-8")
    found = scanned_pairs(folder)
    assert frozenset(("source.md", "copied.md")) in found
    assert not any("quoted.md" in pair for pair in found)
    assert frozenset(("ana.py", "ben.py")) not in found

    (folder / "ben.py").write_text(marked.replace("# doublet: ignore-start", "# given"), "utf-8")
    assert frozenset(("ana.py", "ben.py")) in scanned_pairs(folder)
