"""Measurement scripts: each one measures one thing on data with known truth and writes its figures (most to
``docs/figures/<name>.json``). Run one with ``python -m benchmarks.measure.<script>``; its docstring says what it
measures, on which data and how it is scored. ``make bench`` runs :mod:`benchmarks.measure.make_bench`.

The library they share (instances, scoring, suites, solvers, the runner and reports) is the rest of
:mod:`benchmarks`; outside this folder only the scripts' own tests import them.
"""
