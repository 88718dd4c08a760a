"""The Khronos glTF-Validator (npm ``gltf-validator``) as the judge of the files we write.

``make test`` installs it into ``build/gltf-validator`` (``tools/install-gltf-validator.sh``);
when it is missing this helper runs that script first.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "build" / "gltf-validator" / "node_modules"
SCRIPT = ROOT / "tools" / "gltf_validate.js"


def validate(*paths) -> list[dict]:
    """One validator report (its JSON) per file."""
    if not (MODULES / "gltf-validator").is_dir():
        subprocess.run([str(ROOT / "tools" / "install-gltf-validator.sh")], check=True)
    env = dict(os.environ, NODE_PATH=str(MODULES))
    done = subprocess.run(
        ["node", str(SCRIPT), *map(str, paths)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def problems(report: dict) -> list[tuple]:
    """Errors and warnings (severity 0 and 1) as ``(code, pointer, message)``."""
    return [
        (m["code"], m.get("pointer"), m["message"])
        for m in report["issues"]["messages"]
        if m["severity"] <= 1
    ]
