"""Loads flexlib's compiled kernels once in the process pool's fork server.

Imported by the fork server (``multiprocessing.set_forkserver_preload``), so that every worker
forked from it starts warm."""
from .studies.sweep import warm_worker

warm_worker()
