"""The beam's basis, chosen by the beam parameter ``basis``.

The transverse deflection is u_y(x, t) = Phi(x) B(t) in every basis; only the functions Phi
differ (docs/model.md, "Bases of the beam"):

* ``"modal"`` (default, the paper's): ``n_modes`` clamped-free assumed modes
  (:class:`flexlib.bodies.modes.ModalBasis`);
* ``"fe"``: ``elements`` Euler-Bernoulli Hermite elements, root clamped
  (:class:`flexlib.bodies.basis_fe.FiniteElementBasis`);
* ``"partition"``: ``n_modes`` assumed modes of the beam of length L - ``local_length``, and
  ``elements`` Hermite elements on the end region of length ``local_length``, optionally reduced
  to ``local_modes`` fixed-interface modes (:class:`flexlib.bodies.basis_partition.PartitionBasis`).

Each is clamped at the root x = 0 (``clamp = "root"``, a body hinged there).  A free body has
its functions clamped at the centre instead (``clamp = "centre"``: each half a clamped-free beam
from x = L/2, ``"modal"`` or ``"fe"``; :mod:`flexlib.bodies.basis_centre`), so that its two ends
are alike.

A basis enters the model only through its functions and their coupling shape H(x) at the
quadrature nodes and at the tip (:func:`flexlib.bodies.modes.modal_integrals`): the mass matrix, the
forces, the jump, the constraints and the friction laws are the same for all of them.
"""
from __future__ import annotations

from .basis_centre import centre_basis
from .basis_fe import FiniteElementBasis
from .basis_partition import PartitionBasis
from .modes import ModalBasis
from ..params import BeamParams

__all__ = ["basis_of", "BASES", "CLAMPS"]

BASES = ("modal", "fe", "partition")
CLAMPS = ("root", "centre")


def basis_of(beam: BeamParams, clamp: str = "root"):
    """The basis object of the beam parameters ``beam``, its functions clamped at the root x = 0
    or at the centre x = L/2 (``clamp``)."""
    if clamp not in CLAMPS:
        raise ValueError(f"parameter 'clamp' = {clamp!r} is invalid: valid range is one of "
                         + ", ".join(repr(c) for c in CLAMPS))
    if clamp == "centre":
        return centre_basis(beam)
    fs = beam.foreshortening
    if beam.basis == "modal":
        return ModalBasis(beam.L, beam.n_modes, beam.gauss_points, fs)
    if beam.basis == "fe":
        return FiniteElementBasis(beam.L, beam.elements, fs)
    if beam.basis == "partition":
        return PartitionBasis(beam.L, beam.n_modes, beam.local_length, beam.elements,
                              beam.local_modes, beam.rho * beam.S, beam.E * beam.I, fs,
                              beam.gauss_points)
    raise ValueError(f"parameter 'basis' = {beam.basis!r} is invalid: valid range is one of "
                     + ", ".join(repr(b) for b in BASES))
