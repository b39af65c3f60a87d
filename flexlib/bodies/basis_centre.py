"""The basis of a free body: each half of the beam a clamped-free beam from its centre.

A body hinged at its end x = 0 is described in a frame whose axis is the tangent at that end, and
its deflection by functions clamped there (the clamped-free modes of the paper, or Hermite
elements with the root node clamped).  For a free body that choice prefers one end: a truncated
clamped-free basis spans the beam's deflections well near the clamp and poorly at the far end,
and a beam dropped flat on both ends then lands as two different ends and starts to turn.

Three frames and bases treat both ends alike (Shabana, *Dynamics of Multibody Systems*, ch. 5;
Agrawal and Shabana 1985 on the choice of the body reference):

* free-free modes with the mean-axis (Tisserand) conditions int rho S u dx = 0 and
  int rho S (x cross u) dx = 0, which put R at the centre of mass and make theta the mean rotation;
* finite elements with a Buckens frame, the frame tied to the nodes by constraints that remove the
  rigid motions from the deformation;
* functions clamped at the centre: the frame's axis is the tangent at the material point x = L/2,
  and each half is a clamped-free beam of length L/2 from there.

We use the third.  It changes only the functions Phi, Phi', Phi'' and the coupling shape H of the
foreshortening term, which is all a basis gives the body (:func:`flexlib.bodies.modes.modal_integrals`):
the mass matrix, the forces, the contact points and the jump stay the same code.  The mean-axis
conditions are not a property of the functions alone: their modes make the frame origin the
centre of mass, so p(x) would no longer be x + (deformation) along the body's own axis from the
end x = 0, and the joint and contact code, which place material points from x, would need a
second convention.  A Buckens frame with elements needs constraint rows in the equations of the
body.  The centre clamp needs neither, and its functions are as good as the clamped-free ones of
a body hinged at its end: every deflection of the free beam is a rigid motion of the centre's
tangent (spanned by R and theta) plus a deflection that vanishes with its slope at the centre,
so the Rayleigh-Ritz frequencies of the free body converge from above to the free-free ones.

With the frame at the centre's tangent, the frame origin R is no longer a material point: it is
the point of that tangent at a distance L/2 behind the centre (the end x = 0 of the undeformed
beam).  Results and options speak of material points (the ends, the centre of mass), not of R.

The functions (c = L/2, s = |x - c|, phi_i a clamped-free function of the half [0, c]):

    left half  (x <= c):  Phi_i(x)     = phi_i(c - x),   Phi_i'  = -phi_i'(c - x)
    right half (x >= c):  Phi_n+i(x)   = phi_i(x - c),   Phi_n+i' = phi_i'(x - c)

2n functions for n per half (the left's first), each zero on the other half, C^1 at the centre
(phi_i(0) = phi_i'(0) = 0).  The coupling shape runs from the centre, signed:
H(x) = int_c^x Phi'^T Phi' d xi, so that p_x(x) = x - 1/2 B^T H(x) B moves both ends towards the
centre as the beam bends; on the left H(x) = -H_half(c - x) in the left block, on the right
H_half(x - c) in the right block.  The mirror x -> L - x swaps the two blocks: Phi(L - x) =
Phi(x) P, Phi'(L - x) = -Phi'(x) P, H(L - x) = -P H(x) P with P the swap.  With axial modes each
half has ``axial_modes`` fixed-free bar modes from the centre, the left's pointing to -x.

The halves are :class:`flexlib.bodies.modes.ModalBasis` (``basis = "modal"``: ``n_modes``
clamped-free modes per half, 2 ``n_modes`` coordinates) or
:class:`flexlib.bodies.basis_fe.FiniteElementBasis` (``basis = "fe"``: ``elements`` Hermite
elements over the whole beam, ``elements / 2`` per half, the centre node clamped: an even count).
"""
from __future__ import annotations

import numpy as np

from .basis_fe import FiniteElementBasis
from .modes import ModalBasis, axial_shapes

__all__ = ["CentreClampedBasis", "centre_basis"]


class CentreClampedBasis:
    """The beam [0, L] as two halves clamped at the centre c = L/2, each described by ``half``, a
    root-clamped basis of the interval [0, L/2] (:func:`centre_basis` builds it from the beam's
    parameters).  Coordinates B = (left half's, right half's), 2 ``half.n`` of them.

    The interface of every basis (:func:`flexlib.bodies.bases.basis_of`), and ``axial(x, na)``:
    the axial functions of the two halves."""

    lam = None           # not the cantilever modes of the whole beam: the damping takes the generic route

    def __init__(self, half, L: float, foreshortening: bool = True):
        self.half = half
        self.L = float(L)
        self.c = 0.5 * self.L
        self.n = 2 * half.n
        self.name = f"{half.name}-centre"
        self.foreshortening = bool(foreshortening)

    def quadrature(self):
        """The half's rule mirrored onto both halves (nodes ascending on [0, L])."""
        s, w = self.half.quadrature()
        return np.concatenate([self.c - s[::-1], self.c + s]), np.concatenate([w[::-1], w])

    def _sides(self, x):
        x = np.atleast_1d(np.asarray(x, dtype=float))
        return x, np.abs(x - self.c), x <= self.c, x >= self.c

    def shapes(self, x):
        """(Phi, Phi', Phi'') at the points ``x`` of [0, L], each (len(x), 2 n); at the centre
        itself both halves' values (Phi and Phi' are zero there)."""
        x, s, left, right = self._sides(x)
        n = self.half.n
        out = []
        for k, f in enumerate(self.half.shapes(s)):
            F = np.zeros((len(x), self.n))
            F[:, :n] = np.where(left[:, None], f if k != 1 else -f, 0.0)
            F[:, n:] = np.where(right[:, None], f, 0.0)
            out.append(F)
        return tuple(out)

    def coupling(self, x):
        """H(x) = int_c^x Phi'^T Phi' d xi at the points ``x``, (len(x), 2 n, 2 n): negative
        semi-definite left of the centre, positive right of it; zero without foreshortening."""
        x, s, left, right = self._sides(x)
        n = self.half.n
        H = np.zeros((len(x), self.n, self.n))
        if not self.foreshortening or n == 0:
            return H
        Hh = self.half.coupling(s)
        H[:, :n, :n] = np.where(left[:, None, None], -Hh, 0.0)
        H[:, n:, n:] = np.where(right[:, None, None], Hh, 0.0)
        return H

    def elements(self):
        """The local support of the functions (a finite-element half; None for modal halves),
        as :meth:`flexlib.bodies.basis_fe.FiniteElementBasis.elements`: two chains from the
        centre, the left half's elements (outwards to x = 0), then the right half's."""
        own = getattr(self.half, "elements", None)
        if own is None:
            return None
        near, far, dofs, start = own()
        n = self.half.n
        right = np.where(dofs >= 0, dofs + n, -1)
        return (np.concatenate([self.c - near, self.c + near]),
                np.concatenate([self.c - far, self.c + far]),
                np.concatenate([dofs, right]), np.concatenate([start, start]))

    def axial(self, x, na: int):
        """(Psi, Psi') of ``na`` fixed-free bar modes per half from the centre, (len(x), 2 na)
        each: the right half's sqrt(2) sin((2j - 1) pi (x - c) / L), the left half's the same of
        c - x with the sign that makes it point to -x."""
        x, s, left, right = self._sides(x)
        p, d = axial_shapes(s, self.c, int(na))
        Psi = np.concatenate([np.where(left[:, None], -p, 0.0), np.where(right[:, None], p, 0.0)], 1)
        dPsi = np.concatenate([np.where(left[:, None], d, 0.0), np.where(right[:, None], d, 0.0)], 1)
        return Psi, dPsi


def centre_basis(beam) -> CentreClampedBasis:
    """The centre-clamped basis of the beam parameters ``beam`` (a
    :class:`flexlib.params.BeamParams`): ``n_modes`` clamped-free modes per half (``"modal"``,
    integrated with ``gauss_points`` nodes per half) or ``elements`` Hermite elements over the
    whole beam (``"fe"``, an even number: the centre is a node)."""
    c = 0.5 * beam.L
    fs = beam.foreshortening
    if beam.basis == "modal":
        return CentreClampedBasis(ModalBasis(c, beam.n_modes, beam.gauss_points, fs), beam.L, fs)
    if beam.basis == "fe":
        if beam.elements % 2:
            raise ValueError(f"parameter 'elements' = {beam.elements} is invalid for a body clamped "
                             f"at its centre (a free body): valid range is an even integer in "
                             f"[2, 256] (a node at the centre)")
        return CentreClampedBasis(FiniteElementBasis(c, beam.elements // 2, fs), beam.L, fs)
    raise ValueError(f"parameter 'basis' = {beam.basis!r} is invalid for a body clamped at its "
                     f"centre (a free body): valid range is one of 'modal', 'fe' (the partitioned "
                     f"basis refines one end; give the body clamp='root' to use it)")
