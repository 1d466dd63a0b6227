"""Exits 0 when every package named in the requirements file given as argument is installed."""

import sys
from importlib import metadata

missing = []
with open(sys.argv[1]) as requirements:
    for line in requirements:
        name = line.split("#", 1)[0].strip()
        if not name:
            continue
        try:
            metadata.version(name.split("[")[0].split("=")[0].split(">")[0].split("<")[0])
        except metadata.PackageNotFoundError:
            missing.append(name)
sys.exit(1 if missing else 0)
