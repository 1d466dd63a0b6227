#!/usr/bin/env python3
"""Turns README.md's runnable blocks into one bash script of run_example / expect_* calls
(scripts/readme-examples-lib.sh), for scripts/check-readme-examples.sh.

    readme-examples.py README.md MARKER OUT_DIR [PORT ORIGIN_PORT [SERVER_PORT ...]]

MARKER `example`: the ```sh blocks after `<!-- example -->` in the "## Endpoints" section, with
http://127.0.0.1:8080 and 127.0.0.1:8000 replaced by PORT and ORIGIN_PORT. A block after
`<!-- example serve: SETTINGS -->` needs a server of its own started with SETTINGS (a signing key,
tokens): its 127.0.0.1:8080 becomes the SERVER_PORT of those settings, one port per distinct SETTINGS
in order of first appearance. MARKER `servers`: writes those SETTINGS, one a line, to OUT_DIR/servers.txt
for the caller to start. MARKER `try-it`: the block after `<!-- try-it -->`, run exactly as written
(the caller gives it a network namespace of its own).
"""
import re, sys
readme, marker, out = sys.argv[1:4]
port, origin_port = (sys.argv[4:6] + [None, None])[:2]
server_ports = sys.argv[6:]
text = open(readme, encoding="utf-8").read()
if marker in ("example", "servers"):
    section = re.search(r"^## Endpoints\n(.*?)(?=^## )", text, re.S | re.M)
    if not section:
        sys.exit("README.md has no '## Endpoints' section")
    text = section.group(1)
if marker == "try-it":
    blocks = [("", block) for block in re.findall(r"<!-- try-it -->\n```sh\n(.*?)```", text, re.S)]
else:
    blocks = re.findall(r"<!-- example(?: serve: ([^\n]*?))? -->\n```sh\n(.*?)```", text, re.S)
if not blocks:
    sys.exit(f"README.md has no <!-- {marker} --> blocks")
settings = list(dict.fromkeys(extra.strip() for extra, _ in blocks if extra.strip()))
if marker == "servers":
    open(f"{out}/servers.txt", "w").write("".join(line + "\n" for line in settings))
    print(f"{len(settings)} servers with settings of their own")
    sys.exit(0)
if port and len(server_ports) != len(settings):
    sys.exit(f"{len(settings)} blocks need servers of their own, {len(server_ports)} ports given")

def quote(s):
    return "'" + s.replace("'", "'\\''") + "'"

script = ["set -u", 'source "$EXAMPLES_LIB"']
total = 0
for number, (extra, block) in enumerate(blocks, 1):
    if port:
        own = server_ports[settings.index(extra.strip())] if extra.strip() else port
        block = block.replace("http://127.0.0.1:8080", f"http://127.0.0.1:{own}")
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
