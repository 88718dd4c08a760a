"""Real motion through the rig: the feet of a clip, their contacts with the floor, the
figures that measure foot sliding, and the plant that removes it (issue 24)."""
