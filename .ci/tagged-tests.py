#!/usr/bin/env python3
"""Prints a `swift test --filter` regular expression that selects the tests carrying a tag.

Usage: .ci/tagged-tests.py TAG TEST_DIRECTORY...

Swift Testing's `--filter` matches test identifiers, not tags (Swift 6.3 has no tag filter on the command
line), so the tag is read from the sources: a `@Suite` whose traits include `.tags(.TAG)` selects every
test of the type it declares, a `@Test` with it selects that function. A test's identifier is
`Target.Type/function(labels:)` (`Target.Outer/Inner/function(…)` in a nested type), and the expression
names exactly those. It fails when no test carries the tag, or when a tagged attribute declares nothing.
"""
import pathlib
import re
import sys

tag, directories = sys.argv[1], sys.argv[2:]
strings = re.compile(r'"(?:[^"\\]|\\.)*"')
type_declaration = re.compile(r'\b(?:struct|class|enum|actor|extension)\s+([A-Z]\w*)')
function_declaration = re.compile(r'\bfunc\s+(\w+)\s*\(')
tags = re.compile(r'\.tags\(([^()]*)\)')
selected = []

for directory in directories:
    target = pathlib.Path(directory).name
    for path in sorted(pathlib.Path(directory).rglob('*.swift')):
        scopes = []  # (indentation, type name) of the types around the current line
        attribute = None  # ('Suite' or 'Test', its text so far) until its declaration is reached
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = strings.sub('""', line.split('//', 1)[0] if not line.lstrip().startswith('@') else line)
            stripped = line.lstrip()
            indentation = len(line) - len(stripped)
            if stripped.startswith(('@Suite', '@Test')):
                attribute = ('Suite' if stripped.startswith('@Suite') else 'Test', '')
            if attribute is not None:
                attribute = (attribute[0], attribute[1] + line)
            declared = type_declaration.search(code) or function_declaration.search(code)
            if declared is None:
                continue
            while scopes and scopes[-1][0] >= indentation:
                scopes.pop()
            is_type = declared.re is type_declaration
            if attribute is not None:
                kind, text = attribute
                attribute = None
                if any(f'.{tag}' in [trait.strip() for trait in traits.split(',')] for traits in tags.findall(text)):
                    if (kind == 'Suite') != is_type:
                        sys.exit(f'{path}:{number}: a @{kind} tagged .{tag} does not declare a {kind.lower()}')
                    names = [name for _, name in scopes] + [declared.group(1)]
                    identifier = re.escape(f'{target}.' + '/'.join(names))
                    selected.append(identifier + '/' if is_type else identifier + r'\(')
            if is_type:
                scopes.append((indentation, declared.group(1)))

if not selected:
    sys.exit(f'no test is tagged .{tag} in {" ".join(directories)}')
print('|'.join(selected))
