"""Lists every skipped test of this run with its reason, from the TRX files the test projects write.

dotnet test's console logger hides skip reasons at its default verbosity; Directory.Build.props makes each test
project write TestResults/last-run.trx. Only files newer than the marker given (made before the run) count.
Usage: python3 .ci/skipped.py MARKER
"""
import glob
import os
import sys
import xml.etree.ElementTree as ET

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}


def main(marker: str) -> None:
    since = os.path.getmtime(marker)
    skipped = []
    for path in sorted(glob.glob("tests/*/TestResults/last-run.trx")):
        if os.path.getmtime(path) < since:
            continue
        for result in ET.parse(path).getroot().iterfind(".//t:UnitTestResult", NS):
            if result.get("outcome") != "NotExecuted":
                continue
            message = result.find("t:Output/t:ErrorInfo/t:Message", NS)
            reason = " ".join((message.text or "").split()) if message is not None else "(no reason given)"
            skipped.append((result.get("testName"), reason))
    if not skipped:
        return
    print(f"Skipped tests ({len(skipped)}), with their reasons:")
    for name, reason in skipped:
        print(f"  - {name}: {reason}")


if __name__ == "__main__":
    main(sys.argv[1])
