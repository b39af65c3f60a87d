"""The partitioned basis: modal far from the contact, finite elements near it.

The partition method (Duan, Zhang and Hong 2013, Applied Mathematics and Mechanics 34(11):
1393-1404, doi:10.1007/s10483-013-1754-7, and the same authors in the Chinese Journal of
Theoretical and Applied Mechanics, 2013, with their multi-variable method) divides a flexible body into a local
region where the impact happens, described by finite-element nodal coordinates, and a region
away from it, described by a few modal coordinates, coupled at the interface so that the
partitioned body is one continuous body.  For the beam hinged at x = 0 and striking with its tip,
the local region is the end [a, L] of length l = L - a (``local_length``) and:

* **far functions**: the first N clamped-free modes of a beam of length a (the assumed modes of
  :mod:`flexlib.bodies.modes` with L -> a), continued past x = a by the Hermite interpolation of their
  value Phi_i(a) and slope Phi_i'(a) over the first local element (to zero value and slope at its
  far node), and zero beyond it, so that they are C^1;
* **local functions**: the Hermite cubic elements of :mod:`flexlib.bodies.basis_fe` on [a, L]
  (``elements`` of them); the interface node's deflection and slope are not coordinates of their
  own but those of the far functions, w(a) = Phi(a) B_far and w'(a) = Phi'(a) B_far, which is
  what couples the two regions.

Optionally the local region is reduced (Craig and Bampton 1968) to its ``local_modes`` = k
lowest fixed-interface modes (the eigenvectors of its stiffness and mass with the interface node
held) plus its constraint modes, the static shapes of a unit interface deflection and slope.  The
local region of a clamped-free beam is free at the tip, so the constraint modes are its rigid
motions: the far functions are then continued as the straight line Phi_i(a) + Phi_i'(a)(x - a)
over the whole local region instead of over one element.  With k = 2 n_e (every fixed-interface
mode) the reduced basis spans the same functions as the unreduced one.  The reduction bounds the
basis's highest frequency by that of the k-th fixed-interface mode.

The limits are the other two bases: l = 0 is the modal basis (N assumed modes of the whole beam),
l = L has no far functions and the root node clamped, which is the finite-element basis.

Every function is a cubic on each local element, so the local region is integrated exactly per
element (:data:`flexlib.bodies.basis_fe.GAUSS_PER_ELEMENT` points); the far region [0, a] uses the
modal basis's Gauss-Legendre rule mapped to [0, a].
"""
from __future__ import annotations

import numpy as np

from .basis_fe import HermiteMesh, gauss_rule, hermite_shapes
from .modes import cantilever_roots, coupling_shape, mode_shapes

__all__ = ["PartitionBasis", "fixed_interface_reduction"]


def fixed_interface_reduction(K: np.ndarray, M: np.ndarray, nb: int, k: int):
    """Craig and Bampton's (1968) reduction of a substructure with stiffness ``K`` and mass ``M``
    whose first ``nb`` coordinates are the interface: (Psi_c, V_k, omega_k) with the constraint
    modes Psi_c = -K_ii^-1 K_ib (the interior's static response to unit interface
    coordinates), the ``k`` lowest fixed-interface modes V_k (M_ii-orthonormal columns) and their
    frequencies [rad/s].  The interior coordinates are u_i = Psi_c u_b + V_k eta."""
    from scipy.linalg import eigh
    Kii, Kib, Mii = K[nb:, nb:], K[nb:, :nb], M[nb:, nb:]
    Psi_c = -np.linalg.solve(Kii, Kib)
    w2, V = eigh(Kii, Mii, subset_by_index=[0, k - 1])
    return Psi_c, V, np.sqrt(np.clip(w2, 0.0, None))


class PartitionBasis:
    """N far functions and the local region [L - l, L]'s Hermite elements (or its k
    fixed-interface modes): B = (B_far, local coordinates).  The interface of
    :class:`flexlib.bodies.basis_fe.FiniteElementBasis` (``quadrature``, ``shapes``, ``coupling``).

    Local coordinates: unreduced, the nodal deflections and slopes (w_1, theta_1, ..., w_ne,
    theta_ne) [m, rad] of the local nodes after the interface; reduced, the amplitudes [m] of the
    fixed-interface modes, normalised as the assumed modes are, int phi^2 dx = l over the region.
    """

    name = "partition"
    lam = None

    def __init__(self, L: float, n_far: int, local_length: float, elements: int,
                 local_modes: int = 0, rho_S: float = 1.0, EI: float = 1.0,
                 foreshortening: bool = True, gauss_far: int = 40):
        self.L = float(L)
        self.l = float(local_length)
        self.a = self.L - self.l
        self.foreshortening = bool(foreshortening)
        self.gauss_far = int(gauss_far)
        self.n_far = int(n_far) if self.a > 0.0 else 0
        self.lam_far = cantilever_roots(self.n_far) if self.n_far else np.zeros(0)
        self.ne = int(elements) if self.l > 0.0 else 0
        self.k = int(local_modes)
        self.mesh = None
        self.local_frequencies = np.zeros(0)     # of the fixed-interface modes kept, rad/s
        n_loc = 0
        if self.ne:
            nf = self.n_far
            nn = 2 * (self.ne + 1)
            G = np.zeros((2, nf))                # the interface deflection and slope
            if nf:
                phi, dphi, _ = mode_shapes([self.a], self.a, nf, self.lam_far)
                G[0], G[1] = phi[0], dphi[0]
            if self.k:
                unit = HermiteMesh(self.a, self.L, self.ne, np.eye(nn))
                x, w = unit.quadrature()
                N, _, ddN = unit.shapes(x)
                K = EI * (w * ddN.T) @ ddN
                M = rho_S * (w * N.T) @ N
                Psi_c, V, self.local_frequencies = fixed_interface_reduction(K, M, 2, self.k)
                V = V * np.sqrt(rho_S * self.l)          # int phi^2 dx = l
                n_loc = self.k
                nodal = np.zeros((nn, nf + n_loc))
                nodal[:2, :nf] = G
                nodal[2:, :nf] = Psi_c @ G
                nodal[2:, nf:] = V
            else:
                n_loc = 2 * self.ne
                nodal = np.zeros((nn, nf + n_loc))
                nodal[:2, :nf] = G
                nodal[2:, nf:] = np.eye(n_loc)
            self.mesh = HermiteMesh(self.a, self.L, self.ne, nodal)
        self.n = self.n_far + n_loc

    def quadrature(self):
        """The far rule on [0, a] (``gauss_far`` points) followed by the local elements'."""
        xs, ws = [np.zeros(0)], [np.zeros(0)]
        if self.n_far:
            x, w = gauss_rule(0.0, self.a, self.gauss_far)
            xs.append(x)
            ws.append(w)
        if self.mesh is not None:
            x, w = self.mesh.quadrature()
            xs.append(x)
            ws.append(w)
        return np.concatenate(xs), np.concatenate(ws)

    def shapes(self, x):
        """(Phi, Phi', Phi'') at the points ``x``, each (len(x), n); a point at x = a is taken
        from the far side (Phi and Phi' are continuous there)."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        out = [np.zeros((len(x), self.n)) for _ in range(3)]
        far = x <= self.a
        if self.n_far and far.any():
            for o, s in zip(out, mode_shapes(x[far], self.a, self.n_far, self.lam_far)):
                o[far, :self.n_far] = s
        if self.mesh is not None and (~far).any():
            for o, s in zip(out, self.mesh.shapes(x[~far])):
                o[~far] = s
        return tuple(out)

    def coupling(self, x):
        """H(x) = int_0^x Phi'^T Phi' (len(x), n, n): the far modes' H (:func:`flexlib.bodies.modes.
        coupling_shape` on [0, min(x, a)]) plus, past a, the local mesh's element integrals."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        out = np.zeros((len(x), self.n, self.n))
        if not self.foreshortening:
            return out
        nf = self.n_far
        if nf:
            out[:, :nf, :nf] = coupling_shape(np.minimum(x, self.a), self.a, nf, self.gauss_far,
                                              self.lam_far)
        if self.mesh is not None:
            past = x > self.a
            if past.any():
                out[past] += self.mesh.coupling(x[past])
        return out
