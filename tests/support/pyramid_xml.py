"""Build DUCView pyramid XML for tests, the sample file and the benchmark.

Offsets are computed here independently of the reader under test: each part is given as a
fragment of one model summary and found with a plain `str.find`. A fragment holding "\n"
crosses a line break the way DUCView records it: the label loses the line break and the end
offset is start + len(label), one short of the real span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

DTD = """<!DOCTYPE pyramid [
 <!ELEMENT pyramid (startDocumentRegEx?,text,scu*)>
 <!ELEMENT startDocumentRegEx (#PCDATA)>
 <!ELEMENT text (line*)>
 <!ELEMENT line (#PCDATA)>
 <!ELEMENT scu (contributor)+>
 <!ATTLIST scu uid CDATA #REQUIRED
               label CDATA #REQUIRED
               comment CDATA #IMPLIED>
 <!ELEMENT contributor (part)+>
 <!ATTLIST contributor label CDATA #REQUIRED
                       comment CDATA #IMPLIED>
 <!ELEMENT part EMPTY>
 <!ATTLIST part label CDATA #REQUIRED
                start CDATA #REQUIRED
                end   CDATA #REQUIRED>

]>"""

REGEX = r"<startDocumentRegEx><![CDATA[[-]*\nD[0-9]*\.M\.[0-9]*\.[A-Z]\.[A-Z]\n[-]*\n]]></startDocumentRegEx>"


@dataclass
class SpecScu:
    """An SCU to write: uid, label, and per contributor a list of (summary id, fragment)."""

    uid: str
    label: str
    contributors: list[list[tuple[str, str]]] = field(default_factory=list)


def summary_lines(summaries: dict[str, list[str]]) -> list[str]:
    """The <line>s of the pyramid text: a header, then each summary after its dashed id block."""
    lines = ["#4", "", ""]
    for summary_id, sentences in summaries.items():
        lines += ["-" * 17, summary_id, "-" * 17, ""]
        lines += sentences
        lines += [""]
    return lines


def locate(text: str, summaries_at: dict[str, int], summary_id: str, fragment: str) -> tuple[str, int, int]:
    """The (label, start, end) DUCView would write for `fragment` of one summary."""
    start = text.find(fragment, summaries_at[summary_id])
    if start < 0:
        raise ValueError(f"{fragment!r} is not in summary {summary_id}")
    label = fragment.replace("\n", "")
    return label, start, start + len(label)


def ducview_xml(summaries: dict[str, list[str]], scus: list[SpecScu], *, newline: str = "\n",
                regex: bool = True, reverse_parts: set[str] = frozenset()) -> str:
    """A DUCView .pyr document; SCUs whose uid is in `reverse_parts` list parts last to first."""
    lines = summary_lines(summaries)
    text = "\n".join(lines)
    summaries_at = {sid: text.find("\n" + sid + "\n") for sid in summaries}
    out = ['<?xml version="1.0"?>', DTD, "", "<pyramid>"]
    if regex:
        out.append(REGEX)
    out.append(" <text>")
    out += [f"  <line>{escape(line)}</line>" for line in lines]
    out.append(" </text>")
    for scu in scus:
        out.append(f" <scu uid={quoteattr(scu.uid)} label={quoteattr(scu.label)}>")
        for parts in scu.contributors:
            located = [locate(text, summaries_at, sid, frag) for sid, frag in parts]
            label = "...".join(p[0] for p in located)
            out.append(f"  <contributor label={quoteattr(label)}>")
            if scu.uid in reverse_parts:
                located = located[::-1]
            for part_label, start, end in located:
                out.append(f"   <part label={quoteattr(part_label)} start=\"{start}\" end=\"{end}\"/>")
            out.append("  </contributor>")
        out.append(" </scu>")
    out.append("</pyramid>")
    return ("\n".join(out) + "\n").replace("\n", newline)


# --- The sample pyramid D9901: our own summaries of an invented event ------------------------

D9901_SUMMARIES = {
    "D9901.M.100.X.A": [
        "The town of Brellmoor opened a new footbridge over the Vask River on 14 May, two years after spring floods swept the old bridge away.",
        "Volunteers built most of the bridge in weekends over eight months.",
        "The project cost 1.2 million euros, and Hollin & Sons, a local brewery, paid for the lighting.",
        "The bridge is 48 metres long and closed to cars.",
        "Schoolchildren had walked an extra three kilometres each day.",
        "That detour ended when the bridge opened.",
    ],
    "D9901.M.100.X.B": [
        "Brellmoor's footbridge across the Vask was opened on 14 May.",
        "The previous crossing was destroyed by flooding in 2022.",
        "Around 300 volunteers gave their weekends to the construction, which took eight months.",
        "Funding of 1.2 million euros came from the regional council and donations.",
        "Pupils no longer need a three-kilometre detour to reach the school.",
    ],
    "D9901.M.100.X.C": [
        "Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022.",
        "A replacement footbridge, built mainly by volunteers, opened in May.",
        "The 48-metre span carries pedestrians and cyclists only.",
        "Hollin & Sons brewery sponsored the lamps along the deck.",
        "The mayor, Ida Fenwick, called it the work of the whole town.",
    ],
    "D9901.M.100.X.D": [
        "On 14 May the mayor of Brellmoor, Ida Fenwick, opened a footbridge that residents had built themselves.",
        "It replaces a bridge lost to floods two years earlier.",
        "The new structure cost 1.2 million euros.",
        "Children going to school had faced a detour of three kilometres.",
        "Cars are not allowed on the bridge.",
    ],
}

A, B, C, D = (f"D9901.M.100.X.{k}" for k in "ABCD")

D9901_SCUS = [
    SpecScu("3", "A new footbridge over the Vask River in Brellmoor opened on 14 May", [
        [(A, "The town of Brellmoor opened a new footbridge over the Vask River on 14 May")],
        [(B, "Brellmoor's footbridge across the Vask was opened on 14 May")],
        [(C, "A replacement footbridge"), (C, "opened in May")],
        [(D, "On 14 May the mayor of Brellmoor"), (D, "opened a footbridge")],
    ]),
    SpecScu("7", "Floods destroyed the old bridge over the Vask", [
        [(A, "two years after spring floods swept the old bridge away")],
        [(B, "The previous crossing was destroyed by flooding in 2022")],
        [(C, "Flood water destroyed the old Vask River bridge in Brellmoor in the spring of 2022")],
        [(D, "It replaces a bridge lost to floods two years earlier")],
    ]),
    SpecScu("1", "Volunteers from the town built the bridge", [
        [(A, "Volunteers built most of the bridge")],
        [(B, "Around 300 volunteers gave their weekends to the construction")],
        [(C, "built mainly by volunteers")],
        [(D, "a footbridge that residents had built themselves")],
    ]),
    SpecScu("12", "The bridge cost 1.2 million euros", [
        [(A, "The project cost 1.2 million euros")],
        [(B, "Funding of 1.2 million euros")],
        [(D, "The new structure cost 1.2 million euros")],
    ]),
    SpecScu("9", "Without the bridge schoolchildren faced a detour of three kilometres", [
        [(A, "Schoolchildren had walked an extra three kilometres each day.\nThat detour ended")],
        [(B, "Pupils no longer need a three-kilometre detour to reach the school")],
        [(D, "Children going to school had faced a detour of three kilometres")],
    ]),
    SpecScu("5", "Cars may not use the bridge", [
        [(A, "closed to cars")],
        [(C, "carries pedestrians and cyclists only")],
        [(D, "Cars are not allowed on the bridge")],
    ]),
    SpecScu("2", "Construction took eight months", [
        [(A, "in weekends over eight months")],
        [(B, "the construction, which took eight months")],
    ]),
    SpecScu("8", "Hollin & Sons, a local brewery, paid for the bridge lights", [
        [(A, "Hollin & Sons, a local brewery, paid for the lighting")],
        [(C, "Hollin & Sons brewery sponsored the lamps along the deck")],
    ]),
    SpecScu("11", "The bridge is 48 metres long", [
        [(A, "The bridge is 48 metres long")],
        [(C, "The 48-metre span")],
    ]),
    SpecScu("4", "Ida Fenwick is the mayor of Brellmoor", [
        [(C, "The mayor, Ida Fenwick")],
        [(D, "the mayor of Brellmoor, Ida Fenwick")],
    ]),
    SpecScu("10", "Money came from the regional council and donations", [
        [(B, "came from the regional council and donations")],
    ]),
    SpecScu("6", "The mayor called the bridge the work of the whole town", [
        [(C, "The mayor, Ida Fenwick, called it the work of the whole town")],
    ]),
]


def d9901_xml() -> str:
    """The sample pyramid sample_data/D9901.pyr: CRLF, a part across a line break, an &amp;
    entity, and SCU 3's contributors listing their parts last to first."""
    return ducview_xml(D9901_SUMMARIES, D9901_SCUS, newline="\r\n", reverse_parts={"3"})
