"""The papers' experiments as commands that produce their tables and figures.

One module per experiment (e.g. :mod:`burstlab.experiments.prr_mu` for Srinivasan et al.,
:mod:`burstlab.experiments.padhye` for the Padhye validation of Barsocchi et al. §V).
"""
