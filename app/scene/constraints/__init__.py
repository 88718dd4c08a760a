"""The constraint solvers that :mod:`app.scene.evaluate` runs, one package or module per kind."""
