"""Imported by the process pool's fork server (``multiprocessing.set_forkserver_preload``): loads
flexlib's compiled kernels once in the server, so every worker forked from it starts warm."""
from .sweep import warm_worker

warm_worker()
