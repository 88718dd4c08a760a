"""Per-bone differences between two poses (Compare mode)."""

import numpy as np
from scipy.spatial.transform import Rotation

from app.scene.analysis.compare import difference_level, pose_differences, skeleton_radius


def transforms(rotations, positions, scale=(1, 1, 1)):
    m = np.tile(np.eye(4), (len(positions), 1, 1))
    m[:, :3, :3] = rotations.as_matrix() * np.asarray(scale)[None, None, :]
    m[:, :3, 3] = positions
    return m


def test_distances_and_angles(rng):
    ra = Rotation.random(6, random_state=1)
    rb = Rotation.random(6, random_state=2)
    pa = rng.normal(size=(6, 3))
    pb = rng.normal(size=(6, 3))
    dist, angle = pose_differences(transforms(ra, pa), transforms(rb, pb, scale=(2, 0.5, 3)))
    assert np.allclose(dist, np.linalg.norm(pa - pb, axis=1))
    assert np.allclose(angle, np.degrees((ra.inv() * rb).magnitude()), atol=1e-7)


def test_identical_poses_differ_by_nothing_and_stacks_work(rng):
    m = transforms(Rotation.random(4, random_state=3), rng.normal(size=(4, 3)))
    stack = np.stack([m, m])
    dist, angle = pose_differences(stack, stack)
    assert dist.shape == (2, 4) and np.all(dist == 0) and np.allclose(angle, 0, atol=1e-5)


def test_difference_level():
    level = difference_level([0, 0.05, 1.0, 0, 0], [0, 0, 0, 15, 90], length_scale=1.0)
    assert np.allclose(level, [0, 0.2, 1, 0.5, 1])
    assert difference_level([1e-9], [1e-6], 1.0)[0] == 0  # rounding noise is not a difference


def test_skeleton_radius():
    assert skeleton_radius([[0, 0, 0]], [[0, 2, 0]]) == 1.0


def test_rotation_parts_match_the_polar_decomposition(rng):
    from app.scene.analysis.compare import rotation_parts
    from app.scene.math.transforms import rotation_from_matrix

    m = transforms(
        Rotation.random(20, random_state=4), rng.normal(size=(20, 3)), scale=(1.5, 0.5, 2.0)
    )
    sheared = m.copy()
    sheared[:10, :3, :3] = sheared[:10, :3, :3] @ Rotation.random(10, random_state=5).as_matrix()
    for stack in (m, sheared):
        ours, polar = rotation_parts(stack), rotation_from_matrix(stack)
        assert np.allclose(np.abs(np.sum(ours * polar, axis=-1)), 1, atol=1e-12)
