"""JUnit XML for CI pipelines: one test case per session, failing with its findings."""

from __future__ import annotations

import xml.etree.ElementTree as ET


def write(path: str, suite: str, cases: list[tuple[str, list[str]]]) -> None:
    """Write ``cases`` (session id, finding lines; none: passed) as one test suite."""
    failures = sum(1 for _, lines in cases if lines)
    root = ET.Element("testsuites", name="turnscope", tests=str(len(cases)),
                      failures=str(failures))
    node = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)),
                         failures=str(failures), errors="0", skipped="0")
    for session_id, lines in cases:
        case = ET.SubElement(node, "testcase", classname=f"turnscope.{suite}",
                             name=_clean(session_id))
        if lines:
            failure = ET.SubElement(case, "failure", type=suite,
                                    message=_clean(f"{len(lines)} finding(s): {lines[0]}"))
            failure.text = _clean("\n".join(lines))
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _clean(text: str) -> str:
    """XML 1.0 cannot hold most control characters: show them escaped instead."""
    return "".join(c if c in "\t\n\r" or (" " <= c and c not in "\ufffe\uffff"
                                            and not 0xD800 <= ord(c) <= 0xDFFF)
                   else f"\\x{ord(c):02x}" for c in text)
