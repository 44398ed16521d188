"""Hostile and broken pyramid files: XML attacks, wrong formats, bad parts, a 50 MB file."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.pyramid.model import LOST, RECOVERED
from simrate.formats.pyramids.pyramid import read_pyramid
from tests.conftest import ROOT
from tests.support.pyramid_xml import DTD

BODY = """<pyramid>
 <text>
  <line>-----</line>
  <line>D9905.M.100.A.A</line>
  <line>-----</line>
  <line>The ferry service resumed on Monday after the strike.</line>
 </text>
 <scu uid="1" label="The ferry service resumed">
  <contributor label="The ferry service resumed on Monday">
   <part label="The ferry service resumed on Monday" start="28" end="63"/>
  </contributor>
 </scu>
</pyramid>
"""


def doc(internal_subset: str = "", body: str = BODY, doctype: str | None = None) -> str:
    """A pyramid whose DTD holds DUCView's declarations plus `internal_subset`."""
    if doctype is None:
        doctype = DTD.replace("]>", internal_subset + "\n]>")
    return '<?xml version="1.0"?>\n' + doctype + "\n" + body


def read_text(tmp_path, content: str, name: str = "D9905.pyr"):
    """Write `content` and read it as a pyramid."""
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return read_pyramid(path)


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("the reader tried to use the network")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_the_plain_document_is_fine(tmp_path):
    assert read_text(tmp_path, doc()).part_counts()[LOST] == 0


def test_billion_laughs_is_refused_at_the_first_entity_declaration(tmp_path):
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{k} "{("&lol" + str(k - 1) + ";") * 10}">' for k in range(1, 10)]
    body = BODY.replace("on Monday after", "on &lol9; after")
    with pytest.raises(SimrateError, match="entity declarations are not allowed") as caught:
        read_text(tmp_path, doc("\n".join(entities), body))
    declared_at = doc().count("\n", 0, doc().index("]>")) + 1
    assert abs(caught.value.line - declared_at) <= 1  # expat reports the declaration's line
    assert caught.value.path.endswith("D9905.pyr")


def test_external_entity_is_refused_and_the_file_never_read(tmp_path, no_network):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    for system_id in (secret.as_uri(), "http://example.invalid/x"):
        body = BODY.replace("on Monday after", "on &xxe; after")
        with pytest.raises(SimrateError, match="not allowed") as caught:
            read_text(tmp_path, doc(f'<!ENTITY xxe SYSTEM "{system_id}">', body))
        assert "TOP-SECRET" not in str(caught.value)


def test_external_dtd_and_parameter_entities_are_refused(tmp_path, no_network):
    secret = tmp_path / "evil.dtd"
    secret.write_text('<!ENTITY leak "TOP-SECRET">')
    external = f'<!DOCTYPE pyramid SYSTEM "{secret.as_uri()}">'
    with pytest.raises(SimrateError, match="external DTD"):
        read_text(tmp_path, doc(doctype=external))
    public = '<!DOCTYPE pyramid PUBLIC "-//X//DTD X//EN" "http://example.invalid/x.dtd">'
    with pytest.raises(SimrateError, match="external DTD"):
        read_text(tmp_path, doc(doctype=public))
    with pytest.raises(SimrateError, match="not allowed"):
        read_text(tmp_path, doc(f'<!ENTITY % ext SYSTEM "{secret.as_uri()}"> %ext;'))


def test_unparsed_entities_and_notations_are_refused(tmp_path):
    with pytest.raises(SimrateError, match="notation declarations are not allowed"):
        read_text(tmp_path, doc('<!NOTATION gif SYSTEM "image/gif">'))


def test_an_undeclared_entity_reference_is_not_well_formed(tmp_path):
    body = BODY.replace("on Monday after", "on &xxe; after")
    with pytest.raises(SimrateError, match="not well-formed XML: undefined entity") as caught:
        read_text(tmp_path, doc(body=body))
    assert caught.value.line is not None


def test_attacks_inside_a_peer_annotation_are_refused_too(tmp_path):
    pan = ('<?xml version="1.0"?>\n<!DOCTYPE peerAnnotation [\n <!ENTITY a "aaaaaaaaaa">\n]>\n'
           "<peerAnnotation>" + BODY + "</peerAnnotation>\n")
    with pytest.raises(SimrateError, match="entity declarations are not allowed"):
        read_text(tmp_path, pan, "x.pan")


@pytest.mark.parametrize("content, message", [
    ("this is a summary, not XML\n", "not well-formed XML"),
    ('<?xml version="1.0"?>\n<pyramid>\n <text>\n  <line>cut off', "not well-formed XML"),
    ('<?xml version="1.0"?>\n<Pyramid><SCU id="1"/></Pyramid>\n', "PyrEval"),
    ("<html><body>hello</body></html>\n", r"root element is <html>"),
    ('<?xml version="1.0"?>\n<pyramid/>\n', "no <text> element"),
    ('<?xml version="1.0"?>\n<pyramid><text><line>x</line></text></pyramid>\n', "empty pyramid"),
    ("", "empty file"),
    ("   \n\n", "empty file"),
])
def test_bad_files_give_one_clear_error(tmp_path, content, message):
    with pytest.raises(SimrateError, match=message) as caught:
        read_text(tmp_path, content)
    assert caught.value.path.endswith("D9905.pyr")
    assert "\n" not in str(caught.value)


def test_not_xml_error_names_the_line(tmp_path):
    with pytest.raises(SimrateError) as caught:
        read_text(tmp_path, '<?xml version="1.0"?>\n<pyramid>\n <text>\n  <line>a < b</line>\n')
    assert caught.value.line == 4


def test_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(SimrateError, match="no such file"):
        read_pyramid(tmp_path / "absent.pyr")


def test_part_offsets_outside_the_text(tmp_path):
    body = BODY.replace('start="28" end="63"', 'start="5000" end="5035"')
    recovered = read_text(tmp_path, doc(body=body))
    assert recovered.part_counts()[RECOVERED] == 1  # the label is in the text: found again
    lost_body = body.replace('part label="The ferry service resumed on Monday"',
                             'part label="A label that the text does not hold"')
    lost = read_text(tmp_path, doc(body=lost_body))
    assert lost.part_counts()[LOST] == 1
    part_line = doc(body=lost_body).count("\n", 0, doc(body=lost_body).index("<part")) + 1
    assert any(line == part_line and "not found" in m for line, m in lost.warnings)
    garbage = read_text(tmp_path, doc(body=BODY.replace('start="28"', 'start="x"')))
    assert any("not a number" in message for _, message in garbage.warnings)
    assert garbage.part_counts()[RECOVERED] == 1


def test_an_scu_with_no_contributors_is_skipped_with_a_warning(tmp_path):
    body = BODY.replace(" </pyramid>", "").replace(
        "</pyramid>", ' <scu uid="2" label="Nobody wrote this">\n </scu>\n</pyramid>')
    pyramid = read_text(tmp_path, doc(body=body))
    assert [s.uid for s in pyramid.scus] == ["1"]
    assert any("SCU 2 has no contributors" in message for _, message in pyramid.warnings)


READ_AND_MEASURE = textwrap.dedent("""
    import json, sys, time
    from simrate.formats.pyramids.pyramid import read_pyramid
    started = time.perf_counter()
    pyramid = read_pyramid(sys.argv[1])
    print(json.dumps({"seconds": time.perf_counter() - started,
                      # VmHWM, not ru_maxrss: Linux carries the parent's peak across exec
                      "peak_mb": int(next(l.split()[1] for l in open("/proc/self/status")
                                          if l.startswith("VmHWM"))) / 1024,
                      "scus": len(pyramid.scus), "counts": pyramid.part_counts()}))
""")


def measure(path) -> dict:
    """Read `path` in a fresh interpreter; its time and peak memory."""
    done = subprocess.run([sys.executable, "-c", READ_AND_MEASURE, str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)


def test_a_50_mb_pyramid_of_misplaced_parts_neither_hangs_nor_exhausts_memory(tmp_path):
    path = tmp_path / "huge.pyr"
    sentences = [f"Sentence {k} tells of the ferry, the strike and the harbour." for k in range(2000)]
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0"?>\n' + DTD + "\n<pyramid>\n <text>\n")
        out.writelines(f"  <line>{s}</line>\n" for s in sentences)
        out.write(" </text>\n")
        uid = 0
        while out.tell() < 50_000_000:
            # half of the parts point 40 characters off, half name text that is nowhere
            label = "the ferry, the strike" if uid % 2 else f"missing words {uid}"
            out.write(f' <scu uid="{uid}" label="x"><contributor label="c"><part label="{label}"'
                      f' start="{(uid * 61) % 120000}" end="{(uid * 61) % 120000 + 21}"/>'
                      "</contributor></scu>\n")
            uid += 1
        out.write("</pyramid>\n")
    result = measure(path)
    assert result["scus"] == uid
    assert result["counts"]["lost"] >= uid // 2
    assert result["seconds"] < 60
    assert result["peak_mb"] < 1500


def test_a_50_mb_line_is_read_in_bounded_memory(tmp_path):
    path = tmp_path / "longline.pyr"
    with path.open("w", encoding="utf-8") as out:
        out.write(doc(body="").rstrip("\n") + "<pyramid><text><line>")
        chunk = "many words in one enormous line " * 1000
        while out.tell() < 50_000_000:
            out.write(chunk)
        out.write('</line></text><scu uid="1" label="x"><contributor label="c">'
                  '<part label="many words" start="0" end="10"/></contributor></scu></pyramid>\n')
    result = measure(path)
    assert result["counts"]["exact"] == 1
    assert result["seconds"] < 60
    assert result["peak_mb"] < 1000
