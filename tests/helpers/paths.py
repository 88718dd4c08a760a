"""Where the tests find things: the repository, its shipped scenes, the CMU clips of
Debian's ``assimp-testmodels``, the test data."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "resources" / "scenes"
CMU_DIR = Path("/usr/share/assimp/models/BVH")
DATA = ROOT / "tests" / "data"
