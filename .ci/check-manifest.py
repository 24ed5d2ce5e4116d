#!/usr/bin/env python3
"""Checks that a package's manifest declares what its targets import, and nothing more.

Usage: .ci/check-manifest.py PACKAGE-DIRECTORY

For every target of the package (read with `swift package dump-package`), compares the modules its Swift files
import with the dependencies the manifest declares for it, and fails on either kind of drift:
  - a dependency declared and imported by no file of the target (a library linked for nothing);
  - a module imported and not declared (it builds only because another target happened to build it first;
    `swift build --explicit-target-dependency-import-check error` catches the same in the build).
A product's module is taken to be its name, as it is for every product these packages use. The toolchain's own
modules (Foundation, Testing, Glibc…) need no declaration.
"""
import json
import pathlib
import re
import subprocess
import sys

TOOLCHAIN_MODULES = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin",
    "Testing", "XCTest", "Synchronization", "Observation", "_Concurrency", "Swift", "os",
}
IMPORT = re.compile(r"^\s*(?:@[\w]+(?:\([\w, ]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def default_path(target):
    folder = "Tests" if target["type"] == "test" else "Sources"
    return f"{folder}/{target['name']}"


def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def imported(directory):
    modules = set()
    for file in directory.rglob("*.swift"):
        modules.update(IMPORT.findall(file.read_text(encoding="utf-8")))
    return modules


def main():
    package = pathlib.Path(sys.argv[1]).resolve()
    manifest = json.loads(subprocess.check_output(["swift", "package", "dump-package"], cwd=package))
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        directory = package / (target.get("path") or default_path(target))
        uses = imported(directory) - TOOLCHAIN_MODULES - {target["name"]}
        declares = declared(target)
        for unused in sorted(declares - uses):
            problems.append(f"{target['name']}: declares {unused} and no file imports it")
        for undeclared in sorted(uses - declares):
            problems.append(f"{target['name']}: imports {undeclared} without declaring it")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"{package.name}: every target imports what it declares and declares what it imports "
          f"({len(manifest['targets'])} targets)")


if __name__ == "__main__":
    main()
