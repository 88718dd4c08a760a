"""Child-of, copy-rotation and copy-location: three kinds that follow another bone, sharing
what they keep from ``frame_start`` (``common``) and one schema; a solver each."""
