"""What the curve view plots for a selection, and the unwrapped turn of a driven body."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.analysis.curve_subjects import DRIVEN, POSITION, ROTATION, subject_of
from app.scene.analysis.curves import accumulated_turn_deg
from app.scene.io import load_scene
from app.scene.rig.refs import Ref
from tests.helpers.paths import SCENES


def test_a_pivot_or_a_free_bone_plots_its_rotation():
    foot = load_scene(SCENES / "foot_roll.json")
    heel = subject_of(foot, Ref.pivot_of("foot_roll", "heel"))
    assert heel.kind == ROTATION and heel.keys is foot.constraints[0].pivots[0].rotation_keys
    legs = load_scene(SCENES / "legs.json")
    calf = subject_of(legs, Ref.bone("calf.r"))
    assert calf.kind == ROTATION and calf.keys is legs.bone("calf.r").rotation_keys
    assert calf.bone_item is legs.bone("calf.r")
    assert subject_of(legs, None) is None and subject_of(legs, Ref.bone("nobody")) is None


def test_a_driven_bone_marks_the_keys_that_drive_it():
    foot = load_scene(SCENES / "foot_roll.json")
    for ref in (Ref.bone("foot"), Ref.constraint("foot_roll")):
        s = subject_of(foot, ref)
        assert s.kind == DRIVEN and s.bone == foot.bone_index("foot")
        assert s.drivers == ("foot_roll",)
    s = subject_of(foot, Ref.constraint("foot_roll"))
    keyed = {float(f) for p in foot.constraints[0].pivots for f in p.rotation_keys.frames}
    assert set(s.key_frames()) == keyed
    for frame, owner in s.key_owners:
        pivot = next(p for p in foot.constraints[0].pivots if p.name == owner.part_name)
        assert frame in pivot.rotation_keys.frames
    arm = load_scene(SCENES / "fabrik_arm.json")
    tip = subject_of(arm, Ref.constraint("arm reaches"))
    assert tip.kind == DRIVEN and tip.bone == arm.bone_index("fingers")
    assert {o.kind for _, o in tip.key_owners} <= {"target", "pole", "bone"}
    target = subject_of(arm, Ref.target_of("arm reaches"))
    assert target.kind == POSITION and target.keys is arm.constraints[0].target.position_keys


def test_the_accumulated_turn_unwraps_a_spin_and_comes_back_with_it():
    angles = np.radians(np.concatenate([np.linspace(0, 720, 97), np.linspace(720, 300, 40)]))
    quats = Rotation.from_rotvec(np.outer(angles, [0.0, 0.6, 0.8])).as_quat(scalar_first=True)
    quats[::3] *= -1  # either sign of each sample
    np.testing.assert_allclose(accumulated_turn_deg(quats), np.degrees(angles), atol=1e-9)
    assert len(accumulated_turn_deg(np.zeros((0, 4)))) == 0
