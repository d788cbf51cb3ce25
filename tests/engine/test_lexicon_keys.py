"""Lexicon keys: programs that say the same things are found without a shared passage.

A copier who restructures a whole program leaves no passage, but keeps its
messages; the index keeps those (one key per distinct literal) and a scan
lists such a pair by its resemblance. The editor asks where
passages are, so it is not told of such a pair.
"""

from __future__ import annotations

from doublet.engine.candidates import all_candidates
from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.index import LEXICON, Index, Role
from doublet.engine.lexicon_keys import LEXICON_SEEDS
from doublet.engine.matching import LISTED_RESEMBLANCE, Settings, all_pairs, similar
from doublet.engine.modes import MODES

CODE = MODES["code"]

ORIGINAL = """\
public class Grades {
    public static void main(String[] args) {
        java.util.Scanner input = new java.util.Scanner(System.in);
        System.out.print("How many students are in the class? ");
        int students = input.nextInt();
        double total = 0;
        for (int i = 0; i < students; i++) {
            System.out.print("Grade of the next student: ");
            double grade = input.nextDouble();
            if (grade < 0 || grade > 20) {
                System.out.println("A grade lies between 0 and 20, try again");
                i--;
                continue;
            }
            total += grade;
        }
        System.out.printf("Average grade of the class: %.2f%n", total / students);
    }
}
"""

# The same program told another way: a while loop in a helper method, conditions
# flipped, declarations moved; the messages and the names are the original's.
RESTRUCTURED = """\
import java.util.Scanner;

public class Grades {
    static double total;

    static double readGrade(Scanner input) {
        while (true) {
            System.out.print("Grade of the next student: ");
            double grade = input.nextDouble();
            if (grade >= 0 && grade <= 20) return grade;
            System.out.println("A grade lies between 0 and 20, try again");
        }
    }

    public static void main(String[] args) {
        Scanner input = new Scanner(System.in);
        System.out.print("How many students are in the class? ");
        int students = input.nextInt(), i = students;
        while (i-- > 0) total = total + readGrade(input);
        System.out.printf("Average grade of the class: %.2f%n", total / students);
    }
}
"""

UNRELATED = """\
public class Temperatures {
    public static void main(String[] args) {
        double[] celsius = {12.5, 17.0, 21.25};
        for (double c : celsius) {
            System.out.println("Fahrenheit equivalent: " + (c * 9 / 5 + 32));
        }
    }
}
"""


def documents() -> dict[str, Document]:
    texts = {"a/Grades.java": ORIGINAL, "b/Grades.java": RESTRUCTURED, "c/Temps.java": UNRELATED}
    return {name: Document(name, text, CODE) for name, text in texts.items()}


def indexed(docs: dict[str, Document]) -> Index:
    index = Index()
    for name, document in docs.items():
        index.add(name, document.keys, CODE)
    return index


def test_a_program_has_one_key_per_distinct_literal_and_prose_has_none() -> None:
    program = Document("Grades.java", ORIGINAL, CODE)
    distinct = len(set(program.lexicon.literals.tolist()))
    assert len(program.lexicon_keys) == distinct == 5  # 4 messages and 20
    assert len(Document("essay.txt", "Grades of the class.", MODES["prose"]).lexicon_keys) == 0
    index = indexed({"Grades.java": program})
    assert index.entry("Grades.java").postings_of(LEXICON) == distinct


def test_a_restructured_copy_is_a_candidate_by_what_it_says_alone() -> None:
    docs = documents()
    assert not compare(docs["a/Grades.java"], docs["b/Grades.java"]).passages
    found, _ = all_candidates(indexed(docs), max_docs=10)
    by_pair = {(c.a, c.b): c for c in found}
    copy = by_pair[("a/Grades.java", "b/Grades.java")]
    assert copy.fingerprint_seeds == 0 and copy.lexicon_seeds >= LEXICON_SEEDS
    assert ("a/Grades.java", "c/Temps.java") not in by_pair


def test_a_scan_lists_it_by_its_resemblance_and_the_editor_does_not() -> None:
    docs = documents()
    index = indexed(docs)
    listed = all_pairs(index, docs.__getitem__, Settings(max_docs=10))
    assert [(r.a.name, r.b.name) for r in listed] == [("a/Grades.java", "b/Grades.java")]
    [pair] = listed
    assert pair.passages == [] and pair.resemblance.score >= LISTED_RESEMBLANCE
    assert pair.resemblance.literals > 0.9
    asked = similar(index, docs["b/Grades.java"], Role(), docs.__getitem__, Settings(10))
    assert asked == []


def test_a_threshold_on_similarity_leaves_out_pairs_without_a_passage() -> None:
    docs = documents()
    listed = all_pairs(indexed(docs), docs.__getitem__, Settings(10, min_similarity=0.05))
    assert listed == []


def test_literals_and_names_of_a_template_select_nothing() -> None:
    docs = documents()
    index = Index()
    for name, document in docs.items():
        index.add(name, document.keys, CODE, Role(template=name == "a/Grades.java"))
    index.add("d/Grades.java", Document("d/Grades.java", ORIGINAL, CODE).keys, CODE)
    found, _ = all_candidates(index, max_docs=10)
    assert not any(c.lexicon_seeds for c in found)
