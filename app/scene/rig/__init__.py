"""The rig: the scene model, keys, forward kinematics, joint limits and pure scene edits."""
