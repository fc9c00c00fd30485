"""Lists every skipped test of this run with its reason, from the TRX files the test projects write.

Directory.Build.props makes each test project write TestResults/last-run.trx (and the console logger print each skip
with its reason as it happens); this lists them again in one place. Only files newer than the marker given (made
before the run) count.
Usage: python3 .ci/skipped.py MARKER [--require REGEX]
With --require, a skipped test whose name matches REGEX fails the script (exit 1): a CI job that provides what those
tests need (a real SQL Server, Windows with PowerShell) must not pass because they skipped; nor when the run wrote no
result file at all.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

NS = {"t": "http://microsoft.com/schemas/VisualStudio/TeamTest/2010"}


def main(marker: str, required: str | None = None) -> int:
    since = os.path.getmtime(marker)
    skipped = []
    read = 0
    for path in sorted(glob.glob("tests/*/TestResults/last-run.trx")):
        if os.path.getmtime(path) < since:
            continue
        read += 1
        for result in ET.parse(path).getroot().iterfind(".//t:UnitTestResult", NS):
            if result.get("outcome") != "NotExecuted":
                continue
            message = result.find("t:Output/t:ErrorInfo/t:Message", NS)
            reason = " ".join((message.text or "").split()) if message is not None else "(no reason given)"
            skipped.append((result.get("testName"), reason))
    if read == 0 and required is not None:
        # No result file of this run: a logger named on dotnet test's command line replaces the TRX logger of
        # Directory.Build.props, and nothing here could tell a skipped required test from a run that skipped none.
        print("No TestResults/last-run.trx written by this run: cannot check that the required tests ran (was a --logger given to dotnet test?).")
        return 1
    if not skipped:
        return 0
    print(f"Skipped tests ({len(skipped)}), with their reasons:")
    for name, reason in skipped:
        print(f"  - {name}: {reason}")
    if required is None:
        return 0
    bad = [name for name, _ in skipped if re.search(required, name)]
    for name in bad:
        print(f"REQUIRED test skipped: {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    require = None
    if "--require" in args:
        i = args.index("--require")
        require = args[i + 1]
        del args[i : i + 2]
    sys.exit(main(args[0], require))
