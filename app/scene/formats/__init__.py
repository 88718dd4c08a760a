"""Files: the scene schema, BVH in and out, CSV, and atomic writes."""
