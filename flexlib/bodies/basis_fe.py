"""The finite-element basis: Euler-Bernoulli beam elements with Hermite cubic shape functions.

The transverse deflection is interpolated element by element from the deflection w_j [m] and the
slope theta_j [rad] of the nodes (Przemieniecki 1968, ch. 5; the consistent element of every
finite-element text).  On an element [x_e, x_e + h], xi = (x - x_e) / h in [0, 1],

    u_y(x) = N1(xi) w_e + h N2(xi) theta_e + N3(xi) w_e+1 + h N4(xi) theta_e+1,
    N1 = 1 - 3 xi^2 + 2 xi^3,  N2 = xi - 2 xi^2 + xi^3,  N3 = 3 xi^2 - 2 xi^3,  N4 = xi^3 - xi^2.

The functions are C^1 (deflection and slope continuous), so the bending energy int EI u''^2 dx is
the exact energy of the interpolated beam and Rayleigh-Ritz gives frequencies that are upper
bounds of the continuous beam's, converging as h^4 (Strang and Fix 1973, ch. 6).

:class:`HermiteMesh` evaluates any set of basis functions given by their nodal values (a matrix
with one row per nodal coordinate and one column per function) on a uniform mesh: the values,
first and second derivatives at any points, and the coupling shape H(x) = int_0^x Phi'^T Phi' of
the foreshortening term, integrated per element with :data:`GAUSS_PER_ELEMENT` Gauss points.  On
each element Phi is a cubic, so H is a quintic and the highest-degree integrand of the mass matrix
and the forces (H H, degree 10) is integrated exactly by 6 points (degree <= 11).  The
partitioned basis (:mod:`flexlib.bodies.basis_partition`) uses the same mesh for its local region.

:class:`FiniteElementBasis` is the whole beam meshed with ``elements`` elements, the root node
clamped (w_0 = theta_0 = 0, the hinge is the floating frame's origin and the frame's axis is the
root tangent, as for the clamped-free assumed modes): its coordinates are
B = (w_1, theta_1, ..., w_ne, theta_ne), 2 n_e of them.
"""
from __future__ import annotations

import numpy as np

__all__ = ["GAUSS_PER_ELEMENT", "hermite_shapes", "HermiteMesh", "FiniteElementBasis"]

# Gauss-Legendre points per element: exact for polynomials of degree <= 11 (the integrands of the
# mass matrix and the forces are of degree <= 10 on an element)
GAUSS_PER_ELEMENT = 6


def gauss_rule(a: float, b: float, k: int):
    """The k-point Gauss-Legendre nodes and weights mapped to [a, b]."""
    xi, wi = np.polynomial.legendre.leggauss(k)
    return 0.5 * (b - a) * xi + 0.5 * (b + a), 0.5 * (b - a) * wi


def hermite_shapes(xi, h: float):
    """The Hermite cubic shape functions of an element of length ``h`` [m] at the local
    coordinates ``xi`` in [0, 1]: (N, N', N''), each (len(xi), 4), for the nodal coordinates
    (w_left, theta_left, w_right, theta_right); derivatives with respect to x (1/m, 1/m^2)."""
    s = np.atleast_1d(np.asarray(xi, dtype=float))
    s2, s3 = s * s, s * s * s
    one = np.ones_like(s)
    N = np.stack([1.0 - 3.0 * s2 + 2.0 * s3, h * (s - 2.0 * s2 + s3), 3.0 * s2 - 2.0 * s3,
                  h * (s3 - s2)], axis=1)
    dN = np.stack([(-6.0 * s + 6.0 * s2) / h, one - 4.0 * s + 3.0 * s2, (6.0 * s - 6.0 * s2) / h,
                   3.0 * s2 - 2.0 * s], axis=1)
    ddN = np.stack([(-6.0 + 12.0 * s) / h**2, (-4.0 + 6.0 * s) / h, (6.0 - 12.0 * s) / h**2,
                    (-2.0 + 6.0 * s) / h], axis=1)
    return N, dN, ddN


class HermiteMesh:
    """Functions given by their nodal values on a uniform Hermite mesh of [a, b].

    ``nodal`` is (2 (n_e + 1), n): rows (w_0, theta_0, w_1, theta_1, ...) of the n functions.
    Outside [a, b] the functions are zero (the caller adds what lives there)."""

    def __init__(self, a: float, b: float, elements: int, nodal: np.ndarray):
        self.a, self.b, self.ne = float(a), float(b), int(elements)
        self.h = (self.b - self.a) / self.ne
        self.nodes = self.a + self.h * np.arange(self.ne + 1)
        self.nodes[-1] = self.b
        self.nodal = np.asarray(nodal, dtype=float)
        self.n = self.nodal.shape[1]

    def element_of(self, x) -> np.ndarray:
        """The element index of each point (points at a node belong to the element on their
        left, the last node to the last element)."""
        e = np.ceil((np.asarray(x, dtype=float) - self.a) / self.h).astype(int) - 1
        return np.clip(e, 0, self.ne - 1)

    def shapes(self, x):
        """(Phi, Phi', Phi'') of the functions at the points ``x`` of [a, b], each (len(x), n)."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        e = self.element_of(x)
        N, dN, ddN = hermite_shapes((x - self.nodes[e]) / self.h, self.h)
        out = []
        for S in (N, dN, ddN):
            out.append(np.einsum("mr,mrj->mj", S, self.nodal[2 * e[:, None] + np.arange(4)]))
        return tuple(out)

    def quadrature(self):
        """:data:`GAUSS_PER_ELEMENT` Gauss-Legendre nodes and weights per element, in order."""
        xs, ws = [], []
        for e in range(self.ne):
            x, w = gauss_rule(self.nodes[e], self.nodes[e + 1], GAUSS_PER_ELEMENT)
            xs.append(x)
            ws.append(w)
        return np.concatenate(xs), np.concatenate(ws)

    def _partial(self, x0: float, x1: float) -> np.ndarray:
        """int_x0^x1 Phi'^T Phi' dx inside one element (exact: the integrand is a quartic)."""
        xq, wq = gauss_rule(x0, x1, GAUSS_PER_ELEMENT)
        _, d, _ = self.shapes(xq)
        return (wq * d.T) @ d

    def coupling(self, x) -> np.ndarray:
        """int_a^x Phi'^T Phi' d xi at the points ``x`` of [a, b], (len(x), n, n): the element
        integrals accumulated up to the element of x, plus the part of that element up to x."""
        x = np.atleast_1d(np.asarray(x, dtype=float))
        cum = np.zeros((self.ne + 1, self.n, self.n))
        for e in range(self.ne):
            cum[e + 1] = cum[e] + self._partial(self.nodes[e], self.nodes[e + 1])
        e = self.element_of(x)
        out = np.empty((len(x), self.n, self.n))
        for j, (xj, ej) in enumerate(zip(x, e)):
            out[j] = cum[ej] + self._partial(self.nodes[ej], xj)
        return out


class FiniteElementBasis:
    """The whole beam [0, L] in ``elements`` Hermite elements, root node clamped: 2 n_e
    coordinates B = (w_1, theta_1, ..., w_ne, theta_ne) [m, rad].

    The interface every basis offers (:func:`flexlib.bodies.bases.basis_of`): ``name``, ``L``, ``n``
    (number of coordinates), ``quadrature()`` (nodes and weights on [0, L]), ``shapes(x)``
    (Phi, Phi', Phi''), ``coupling(x)`` (H(x), zero without foreshortening), ``lam`` (the
    cantilever roots of a modal basis, else None)."""

    name = "fe"
    lam = None

    def __init__(self, L: float, elements: int, foreshortening: bool = True):
        self.L = float(L)
        self.n = 2 * int(elements)
        self.foreshortening = bool(foreshortening)
        nodal = np.zeros((self.n + 2, self.n))
        nodal[2:] = np.eye(self.n)                 # w_0 = theta_0 = 0: the clamped root
        self.mesh = HermiteMesh(0.0, self.L, elements, nodal)

    def quadrature(self):
        return self.mesh.quadrature()

    def shapes(self, x):
        return self.mesh.shapes(x)

    def coupling(self, x):
        x = np.atleast_1d(np.asarray(x, dtype=float))
        if not self.foreshortening:
            return np.zeros((len(x), self.n, self.n))
        return self.mesh.coupling(x)

    def elements(self):
        """The local support of the functions, for the element route of M and Q
        (:func:`flexlib.bodies.modes.element_integrals`): (near, far, dofs, start), per element
        in order from the clamp, its end nearer the clamp and its far end [m], the indices of
        the (at most 4) coordinates whose functions are nonzero on it (-1: a clamped one) and
        whether it starts a chain of elements from the clamp (here one chain, root to tip)."""
        nodes = self.mesh.nodes
        ne = self.mesh.ne
        node_dofs = np.concatenate([[-1, -1], np.arange(self.n)])      # node 0 is clamped
        dofs = np.stack([node_dofs[2 * e:2 * e + 4] for e in range(ne)])
        start = np.zeros(ne, dtype=bool)
        start[0] = True
        return nodes[:-1].copy(), nodes[1:].copy(), dofs, start
