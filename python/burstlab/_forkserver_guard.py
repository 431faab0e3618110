"""Imported (only) by the multiprocessing forkserver that :mod:`burstlab.sweep` starts,
as its preload: the forkserver then dies with the process that started it, and with it
the workers it forked (:mod:`burstlab._lifetime`)."""

from burstlab._lifetime import die_with_parent

die_with_parent()
