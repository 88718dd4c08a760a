"""The points-at constraint (the seed's options 1 and 2): its solver and its schema."""
