"""Write sample_data/pairs.xlsx: a title row, a blank row, then the header on row 3.

Run once after changing the rows: python tests/formats/intake/make_sample_xlsx.py
"""

from __future__ import annotations

from pathlib import Path

from openpyxl import Workbook

OUT = Path(__file__).resolve().parents[3] / "sample_data" / "pairs.xlsx"
HEADER = ("pair_id", "left", "right", "genre", "score", "batch")
ROWS = (
    ("xl-01", "The bakery on the corner opens at seven.", "You can buy bread there from 7 a.m.",
     "local", 3.5, 1),
    ("xl-02", "The river flooded the lower fields after a week of rain.",
     "A week of rain left the low meadows under water.", "news", 4, 1),
    ("xl-03", "How many legs does a spider have?", 8, "quiz", 1.25, 1),
    ("xl-04", "The meeting has moved to Tuesday afternoon.", "Lunch will be served at noon.",
     "office", 0.5, 1),
    ("xl-05", "Turn off the lights when you leave the room.",
     "Please switch the lights off on your way out.", "home", 4, 2),
    ("xl-06", "The choir practises in the church hall on Fridays.",
     "On Fridays the singers rehearse in the hall.", "local", 3.75, 2),
    ("xl-07", "Her first novel was translated into twelve languages.",
     "The author has written several books.", "culture", 1.75, 2),
    ("xl-08", "The printer on the second floor is out of toner.",
     "Upstairs, the printer needs a new cartridge.", "office", 3.5, 2),
    ("xl-09", "The market sells fish only on Saturday mornings.",
     "Fresh fish can be bought at the market at the weekend.", "local", 3, 2),
    ("xl-10", "The last train home leaves at 23:40.", "Trains stop running shortly before midnight.",
     "travel", 3.25, 2),
)


def main() -> None:
    """Build the workbook and save it over the sample file."""
    book = Workbook()
    sheet = book.active
    sheet.title = "pairs"
    sheet.append(("Sample pairs for simrate (written by the project)",))
    sheet.append(())
    sheet.append(HEADER)
    for row in ROWS:
        sheet.append(row)
    book.save(OUT)


if __name__ == "__main__":
    main()
