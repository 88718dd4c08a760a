"""Pivotal's benchmarks: ``make bench`` runs :mod:`benchmarks.run`."""
