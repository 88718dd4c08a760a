"""Motion onto another character: the humanoid map of a skeleton and the retarget."""
