"""The docked panels: outliner, inspector, curves, matrix chain, step-through, tutorials."""
