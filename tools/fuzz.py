"""``make fuzz``: many mutated scene files and BVH clips through load, save and load back,
and bake; the tally.

    python tools/fuzz.py [--examples 20000] [--seed 10]

Each example is a base (a shipped scene, a CMU clip, a glTF or FBX file,
``tests/helpers/fuzzing.py``) after one to three structural mutations, checked by
:func:`tests.helpers.fuzzing.check_input` (every accepted input is saved and loaded back,
and must come back equal; frames evaluated alone must be where the whole bake puts them;
imported meshes must be finite and skin finite).
Prints the tally (inputs, refused, accepted, defects), the count per mutation kind, and one
line per distinct defect (its kind and where in the code it arose) with an input that shows
it; exits 1 when there is a defect. ``--cli N`` also runs refused inputs through
``main.py bake`` (the first of each format and mutation, at most N), each of which must
print one line and exit 2.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import fuzzing  # noqa: E402


def draw(rng: random.Random, names):
    """One example: a base's name and its mutations ``[(kind, seed), ...]``."""
    name = rng.choices(names, weights=[fuzzing.weight(n) for n in names])[0]
    kinds = fuzzing.kinds_for(name)
    return name, [(rng.choice(kinds), rng.randrange(2**32)) for _ in range(rng.randint(1, 3))]


def signature(defect: BaseException) -> str:
    """A defect's kind and the innermost frame of the app that raised it."""
    cause = defect.__cause__ or defect
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if "/app/" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{str(defect).split(':')[0]} at {where}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument(
        "--cli",
        type=int,
        default=40,
        metavar="N",
        help="refused inputs also run through main.py bake (one line, "
        "status 2): the first of each base's format and mutation, "
        "at most N",
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    names = sorted(fuzzing.bases())
    tally = collections.Counter()
    defects: dict[str, tuple] = {}
    slowest = (0.0, None)
    sampled: set = set()
    start = time.perf_counter()
    for _ in range(args.examples):
        name, steps = draw(rng, names)
        data = fuzzing.mutate(name, steps)
        try:
            outcome = fuzzing.check_input(data, fuzzing.suffix_of(name))
        except fuzzing.Defect as e:
            tally["defects"] += 1
            defects.setdefault(signature(e), (name, steps, str(e)[:160]))
            continue
        tally[outcome.kind] += 1
        group = (fuzzing.suffix_of(name), steps[0][0])
        if outcome.kind == "refused" and len(sampled) < args.cli and group not in sampled:
            sampled.add(group)
            try:
                fuzzing.check_cli(data, fuzzing.suffix_of(name))
            except fuzzing.Defect as e:
                tally["defects"] += 1
                defects.setdefault(f"command line: {str(e)[:40]}", (name, steps, str(e)[:160]))
        tally[(fuzzing.suffix_of(name), outcome.kind)] += 1
        for kind in {k for k, _ in steps}:
            tally[("kind", kind, outcome.kind)] += 1
        slowest = max(slowest, (outcome.seconds, (name, steps)), key=lambda s: s[0])
    seconds = time.perf_counter() - start
    print(
        f"inputs {args.examples}  refused {tally['refused']}  accepted {tally['accepted']}  "
        f"defects {tally['defects']} ({len(defects)} distinct)  in {seconds:.0f} s; "
        f"slowest input {slowest[0]:.2f} s"
    )
    print(
        f"  every one of the {tally['accepted']} accepted inputs saved, loaded back equal and baked"
        if not defects
        else "  (see the defects below)"
    )
    print(
        f"  command line: {len(sampled)} refused inputs (one per format and mutation) "
        "through main.py bake, each expected to print one line and exit 2"
    )
    for suffix in sorted({k[0] for k in tally if isinstance(k, tuple) and len(k) == 2}):
        print(
            f"  {suffix}: refused {tally[(suffix, 'refused')]}  "
            f"accepted {tally[(suffix, 'accepted')]}"
        )
    kinds = sorted({k[1] for k in tally if isinstance(k, tuple) and len(k) == 3})
    print(
        "  inputs with each mutation (refused/accepted): "
        + ", ".join(
            f"{kind} {tally[('kind', kind, 'refused')]}/{tally[('kind', kind, 'accepted')]}"
            for kind in kinds
        )
    )
    for sig, (name, steps, message) in sorted(defects.items()):
        print(f"  defect: {sig}\n    {name} {steps}\n    {message}")
    return 1 if defects else 0


if __name__ == "__main__":
    sys.exit(main())
