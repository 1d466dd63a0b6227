#!/usr/bin/env python3
"""Turns README.md's runnable blocks into one bash script of run_example / expect_* calls
(scripts/readme-examples-lib.sh), for scripts/check-readme-examples.sh.

    readme-examples.py README.md MARKER OUT_DIR [PORT ORIGIN_PORT]

MARKER `example`: the ```sh blocks after `<!-- example -->` in the "## Endpoints" section, with
http://127.0.0.1:8080 and 127.0.0.1:8000 replaced by PORT and ORIGIN_PORT. MARKER `try-it`: the block
after `<!-- try-it -->`, run exactly as written (the caller gives it a network namespace of its own).
"""
import re, sys
readme, marker, out = sys.argv[1:4]
port, origin_port = (sys.argv[4:6] + [None, None])[:2]
text = open(readme, encoding="utf-8").read()
if marker == "example":
    section = re.search(r"^## Endpoints\n(.*?)(?=^## )", text, re.S | re.M)
    if not section:
        sys.exit("README.md has no '## Endpoints' section")
    text = section.group(1)
blocks = re.findall(rf"<!-- {marker} -->\n```sh\n(.*?)```", text, re.S)
if not blocks:
    sys.exit(f"README.md has no <!-- {marker} --> blocks")

def quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

script = ["set -u", 'source "$EXAMPLES_LIB"']
total = 0
for number, block in enumerate(blocks, 1):
    if port:
        block = block.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{port}")
        block = block.replace("127.0.0.1:8000", f"127.0.0.1:{origin_port}")
    # A command continues over lines while it ends with a backslash or a single-quoted string is open.
    lines, pending = [], ""
    for line in block.splitlines():
        if not pending and line.lstrip().startswith("#"):
            lines.append(line)
            continue
        pending = pending + "\n" + line if pending else line
        if not (pending.rstrip().endswith("\\") or pending.count("'") % 2 == 1):
            lines.append(pending)
            pending = ""
    if pending:
        sys.exit(f"example {number}: unterminated command: {pending[:80]}")
    script.append(f"echo '== example {number}'")
    def close(command, checks):
        if command is None:
            return
        script.append(f"run_example {quote(command)}")
        if not any(re.fullmatch(r"\d{3}", c) for c in checks):
            script.append("expect_success")
        for check in checks:
            if re.fullmatch(r"\d{3}", check):
                script.append(f"expect_status {check}")
            elif check.startswith("~ "):
                script.append(f"expect_body {quote(check[2:])}")
            elif ":" in check:
                name, value = check.split(":", 1)
                script.append(f"expect_header {quote(name.strip())} {quote(value.strip())}")
            else:
                sys.exit(f"example {number}: cannot read the check '#> {check}'")
    command, checks = None, []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#>"):
            if command is None:
                sys.exit(f"example {number}: '{stripped}' follows no command")
            checks.append(stripped[2:].strip())
        elif not stripped or stripped.startswith("#"):
            continue
        else:
            close(command, checks)
            command, checks = line, []
            total += 1
    close(command, checks)
open(f"{out}/{marker}.sh", "w").write("\n".join(script) + "\n")
print(f"{len(blocks)} {marker} blocks, {total} commands")
