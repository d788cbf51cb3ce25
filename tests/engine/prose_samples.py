"""Sentences on unrelated subjects, for tests that need texts sharing nothing by chance."""

UNRELATED_SENTENCES = [
    "The lighthouse keeper climbed the stairs every evening before sunset.",
    "Copper kettles hung above the stove in the narrow kitchen of the inn.",
    "A migrating flock of geese crossed the valley in a long uneven line.",
    "The committee postponed its decision until the spring meeting.",
    "Rain had washed the chalk drawings off the pavement overnight.",
    "She kept a ledger of every seed she planted and every one that failed.",
    "The old bridge was closed to carts after the flood cracked its pillars.",
    "Students argued about the meaning of the final chapter for an hour.",
    "Fresh bread cooled on the windowsill while the children waited outside.",
    "The telescope revealed four moons circling the bright planet.",
]
