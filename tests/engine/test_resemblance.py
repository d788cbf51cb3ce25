"""Code: disguises that token matching survives, and a document score that ranks copies first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from doublet.engine.code import code_lexicon, code_units
from doublet.engine.comparison import compare
from doublet.engine.document import Document
from doublet.engine.modes import MODES
from doublet.engine.resemblance import resemblance

CODE = MODES["code"]
EXAMPLES = Path(__file__).parent.parent.parent / "examples" / "code"

ORIGINAL = """\
import java.util.Scanner;

public class Shop {
    static final double TAX = 0.21;

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int items = in.nextInt();
        double total = 0;
        for (int i = 0; i < items; i++) {
            double price = in.nextDouble();
            int quantity = in.nextInt();
            if (quantity > 12) {
                price = price * 0.9;
            }
            total += price * quantity;
        }
        double tax = total * TAX;
        System.out.println("Subtotal in euros: " + total);
        System.out.println("VAT at 21 percent: " + tax);
        System.out.println("Amount to pay now: " + (total + tax));
    }
}
"""

#: Names changed, declarations moved, dead statements added, comments and layout changed.
DISGUISED = """\
import java.util.Scanner;

public class Till
{
    static final double RATE = 0.21;

    public static void main(String[] argv)
    {
        double sum = 0;          // running sum
        Scanner sc = new Scanner(System.in);
        int unused = 7;
        int n = sc.nextInt();
        for (int k = 0; k < n; k++)
        {
            double cost = sc.nextDouble();
            int count = sc.nextInt();
            boolean debug = false;
            if (count > 12)
            {
                cost = cost * 0.9;
            }
            sum += cost * count;
        }
        double vat = sum * RATE;
        System.out.println("Subtotal in euros: " + sum);
        System.out.println("VAT at 21 percent: " + vat);
        System.out.println("Amount to pay now: " + (sum + vat));
    }
}
"""

#: The same program restructured: a method extracted, for → while, the condition
#: mirrored. Too little structure is left in order for a passage; the messages stay.
RESTRUCTURED = """\
import java.util.Scanner;

public class Till {
    static double line(Scanner sc) {
        double cost = sc.nextDouble();
        int count = sc.nextInt();
        if (12 < count) cost *= 0.9;
        return cost * count;
    }

    public static void main(String[] argv) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt(), k = 0;
        double sum = 0;
        while (k < n) { sum += line(sc); k++; }
        System.out.println("Subtotal in euros: " + sum);
        System.out.println("VAT at 21 percent: " + sum * 0.21);
        System.out.println("Amount to pay now: " + sum * 1.21);
    }
}
"""

#: Another student's solution of the same exercise, written independently.
INDEPENDENT = """\
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner input = new Scanner(System.in);
        int n = input.nextInt();
        double subtotal = 0.0;
        for (int i = 0; i < n; i++) {
            double p = input.nextDouble();
            int q = input.nextInt();
            double line = p * q;
            if (q >= 13) {
                line = line - line / 10;
            }
            subtotal = subtotal + line;
        }
        System.out.printf("Total before tax %.2f%n", subtotal);
        System.out.printf("Tax %.2f%n", subtotal * 0.21);
        System.out.printf("To pay %.2f%n", subtotal * 1.21);
    }
}
"""


def java(name: str, text: str) -> Document:
    return Document(name + ".java", text, CODE)


def score(a: str, b: str) -> float:
    return compare(java("a", a), java("b", b)).resemblance.score


def test_mirrored_comparisons_are_one_unit_sequence() -> None:
    left = code_units("if (a > b) { x = a; }", language="java").symbols
    right = code_units("if (y < x) { z = y; }", language="java").symbols
    assert np.array_equal(left, right)
    assert not np.array_equal(left, code_units("if (a == b) { x = a; }", language="java").symbols)


def test_moved_declarations_and_dead_statements_still_make_one_passage() -> None:
    result = compare(java("a", ORIGINAL), java("b", DISGUISED))
    assert len(result.passages) >= 1
    assert result.a_coverage > 0.8 and result.b_coverage > 0.8


def test_literals_ignore_quotes_escapes_and_outer_spaces() -> None:
    plain = code_lexicon('print("Welcome to Java")', language="python").literals
    escaped = code_lexicon("print('  Welcome to Java\\n')", language="python").literals
    assert plain.shape == (1,) and np.array_equal(plain, escaped)
    assert code_lexicon('print("Welcome To Java")', language="python").literals[0] != plain[0]


def test_common_literals_and_builtins_are_not_evidence() -> None:
    lexicon = code_lexicon('x = 0\ny = 1\nz = ""\nw = ", "\nprint(len(x))\n', language="python")
    assert lexicon.literals.shape == (0,)
    assert len(lexicon.names) == 5  # x, y, z, w and x again; print and len are builtins


def test_a_copy_resembles_its_original_more_than_an_independent_solution() -> None:
    assert score(ORIGINAL, DISGUISED) > 0.8 > 0.5 > score(ORIGINAL, INDEPENDENT)


def test_shared_messages_count_where_the_structure_was_broken_up() -> None:
    evidence = compare(java("a", ORIGINAL), java("b", RESTRUCTURED)).resemblance
    assert evidence.structure < evidence.literals  # the messages, not the structure
    assert evidence.score > 0.15  # no passage left, yet the pair is not unrelated


def test_identical_programs_resemble_fully_and_scores_stay_in_range() -> None:
    assert score(ORIGINAL, ORIGINAL) == pytest.approx(1.0)
    for other in (DISGUISED, RESTRUCTURED, INDEPENDENT, "class Empty {}"):
        evidence = compare(java("a", ORIGINAL), java("b", other)).resemblance
        for value in (evidence.score, evidence.structure, evidence.literals, evidence.names):
            assert 0.0 <= value <= 1.0


def test_prose_resemblance_is_the_similarity() -> None:
    prose = MODES["prose"]
    text = "The printing press spread across Europe within a few decades of its invention. " * 3
    result = compare(Document("a", text, prose), Document("b", text + " And more.", prose))
    assert resemblance(result.similarity, result.a, result.b).score == result.similarity
    with pytest.raises(ValueError):
        _ = result.a.lexicon


def test_the_examples_renamed_copy_ranks_above_independent_solutions() -> None:
    def load(name: str) -> Document:
        return Document(name, (EXAMPLES / name).read_text(encoding="utf-8"), CODE)

    original = load("wordfreq.py")
    copy = compare(original, load("text_stats.py")).resemblance.score
    for name in ("word_counter.py", "top_words_heap.py"):
        assert compare(original, load(name)).resemblance.score < 0.5 < copy


def test_string_prefixes_are_not_part_of_a_literal() -> None:
    plain = code_lexicon('x = "Welcome to Java"', language="python").literals
    prefixed = code_lexicon('x = f"Welcome to Java"', language="python").literals
    assert np.array_equal(plain, prefixed)


#: The exercise "print Welcome to Java five times", as twelve of IR-Plag's fifteen
#: independent solutions of it wrote it (case-01), and as its original was written.
LOOP = """\
public class T01 {
    public static void main(String[] args) {
        for (int i = 0; i < 5; i++) {
            System.out.println("Welcome To Java");
        }
    }
}
"""
FIVE_LINES = """\
public class T1 {
    public static void main(String[] args) {
        System.out.println("Welcome to Java");
        System.out.println("Welcome to Java");
        System.out.println("Welcome to Java");
        System.out.println("Welcome to Java");
        System.out.println("Welcome to Java");
    }
}
"""


def test_a_files_own_name_is_not_a_shared_name() -> None:
    own = code_lexicon(LOOP, filename="case/T01.java").names
    other = code_lexicon(LOOP, filename="Main.java").names
    assert len(other) == len(own) + 1  # T01: the class Java names after its file
    # two solutions handed in under the name the exercise gave share no more names
    # for it than a copy whose class had to be renamed with its file
    alike = compare(Document("a/T01.java", LOOP, CODE), Document("b/T01.java", LOOP, CODE))
    renamed = LOOP.replace("T01", "Copy")
    copy = compare(Document("a/T01.java", LOOP, CODE), Document("b/Copy.java", renamed, CODE))
    assert alike.resemblance.names == copy.resemblance.names == 1.0


def test_structure_counts_what_is_the_same_not_the_gaps_bridged() -> None:
    # a copy renamed throughout: the same token sequence
    renamed = ORIGINAL.replace("items", "n").replace("total", "sum").replace("Shop", "Till")
    # an extra statement in the middle: passages bridge it (similarity 1), yet the
    # two programs are not the same sequence
    padded = ORIGINAL.replace(
        "        double tax = total * TAX;\n",
        "        double tax = total * TAX;\n        total = total + 0;\n",
    )
    copy = compare(java("a", ORIGINAL), java("b", renamed))
    near = compare(java("a", ORIGINAL), java("b", padded))
    assert copy.similarity == near.similarity == 1.0
    assert copy.resemblance.structure == 1.0 > near.resemblance.structure
    assert near.resemblance.structure == near.exact_coverage
