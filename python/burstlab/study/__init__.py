"""The study framework: claims declared as data (:mod:`burstlab.study.claims`), their
verdicts with uncertainty (:mod:`burstlab.study.verdict`), estimates from replicate samples
(:mod:`burstlab.study.estimate`), sentences generated from numbers
(:mod:`burstlab.study.prose`) and the provenance of a run (:mod:`burstlab.study.provenance`).

Importing this package imports nothing heavy; scipy is loaded when an interval is computed.
"""
