"""The modal basis (clamped-free cantilever eigenfunctions) and the integrals of any basis.

docs/model.md section 4 (numerically stable form; coupling-shape matrix H, eq (4)) and 5.2
(constant integrals, eqs (18)-(22), with S_y = int rho S x Phi^T dx: the printed eq (20) misses
the x).  :class:`ModalBasis` is the paper's basis; the finite-element and partitioned bases
(:mod:`flexlib.bodies.basis_fe`, :mod:`flexlib.bodies.basis_partition`) offer the same interface, and
:func:`modal_integrals` computes the constant integrals and quadrature arrays from any of them.
Everything here is computed once per model; the right-hand side of the ODE only contracts the
small dense tensors stored in :class:`ModalIntegrals`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..params import BeamParams

__all__ = ["cantilever_roots", "mode_shapes", "axial_shapes", "axial_of", "coupling_shape", "ModalBasis",
           "ModalIntegrals", "modal_integrals", "element_integrals", "ElementIntegrals",
           "TENSOR_ROUTE_MAX", "NODES_PER_ELEMENT"]

# The tensor route (the tensors T3 and T4 have N^3 and N^4 entries, and its work per evaluation
# grows as N^4) is used up to this many deformation coordinates; larger bases use the quadrature
# route (~ K N^2 per evaluation for K nodes)
TENSOR_ROUTE_MAX = 8

# Gauss points per element of the element route (the finite-element basis's own rule: its
# integrands are polynomials of degree <= 10 on an element, integrated exactly by 6 points)
NODES_PER_ELEMENT = 6


def cantilever_roots(n: int) -> np.ndarray:
    """The first ``n`` roots lambda_i = beta_i L of 1 + cos(lambda) cosh(lambda) = 0.

    Found by bracketed root finding of cos(l) + 1/cosh(l) = 0 (the same equation divided
    by cosh, which never overflows) on [(i-1) pi, i pi].
    """
    f = lambda lam: math.cos(lam) + 1.0 / math.cosh(lam)
    roots = [_bisect(f, max((i - 1) * math.pi, 0.1), i * math.pi) for i in range(1, n + 1)]
    return np.array(roots)


def _bisect(f, a: float, b: float) -> float:
    """The root of f in [a, b] (f(a), f(b) of opposite signs) to the last bit, by bisection.

    It replaces scipy's brentq (xtol = rtol = 1e-15, which it agrees with to ~1e-15): importing
    scipy.optimize cost every fresh ``python -m flexlib`` process ~0.15 s, for at most 8 roots."""
    fa = f(a)
    while True:
        m = 0.5 * (a + b)
        if not a < m < b:            # a and b are adjacent doubles
            return m
        fm = f(m)
        if fm == 0.0:
            return m
        if (fm < 0.0) == (fa < 0.0):
            a, fa = m, fm
        else:
            b = m


def mode_shapes(x, L: float, n: int, roots=None):
    """Phi, Phi', Phi'' of the first ``n`` cantilever modes at points ``x`` (shape (len(x), n)).

    Uses the stable form of docs/model.md 4.1 (no cosh - sigma sinh cancellation), accurate to
    round-off up to n = 8.  Normalised so that int_0^L Phi_i Phi_j dx = L delta_ij and
    Phi_i(L) = 2 (-1)^(i+1).
    """
    x = np.atleast_1d(np.asarray(x, dtype=float))
    lam = cantilever_roots(n) if roots is None else np.asarray(roots)
    beta = lam / L
    a = np.outer(x, beta)                      # (m, n)
    eps = np.exp(-lam)
    sl, cl = np.sin(lam), np.cos(lam)
    den = (1.0 - eps**2) / 2.0 + eps * sl
    sigma = 1.0 - (sl - cl - eps) * eps / den
    A = (sl - cl - eps) * np.exp(a - lam) / den
    em = np.exp(-a)
    C = 0.5 * (A + (1.0 + sigma) * em)
    Sh = 0.5 * (A - (1.0 + sigma) * em)
    sa, ca = np.sin(a), np.cos(a)
    phi = C - ca + sigma * sa
    dphi = beta * (Sh + sa + sigma * ca)
    ddphi = beta**2 * (C + ca - sigma * sa)
    return phi, dphi, ddphi


def axial_shapes(x, L: float, na: int):
    """Psi_j(x) = sqrt(2) sin((2j - 1) pi x / (2L)) and Psi_j'(x), j = 1..na.

    The fixed-free axial bar modes (an extension beyond the paper).  Shapes (len(x), na);
    normalised so that int_0^L Psi_i Psi_j dx = L delta_ij and Psi_j(L) = sqrt(2) (-1)^(j+1)."""
    x = np.atleast_1d(np.asarray(x, dtype=float))
    k = (2.0 * np.arange(1, na + 1) - 1.0) * math.pi / (2.0 * L)
    a = np.outer(x, k)
    return math.sqrt(2.0) * np.sin(a), math.sqrt(2.0) * k * np.cos(a)


def axial_of(basis, x, L: float, na: int):
    """(Psi, Psi') of the axial functions of ``basis`` at ``x``: the basis's own (a basis with a
    method ``axial(x, na)``, e.g. the centre-clamped one, :mod:`flexlib.bodies.basis_centre`), else
    the ``na`` fixed-free bar modes from x = 0 (:func:`axial_shapes`)."""
    own = getattr(basis, "axial", None)
    return own(x, na) if own is not None else axial_shapes(x, L, na)


@dataclass
class ModalIntegrals:
    """Quadrature data and the constant integrals of one beam (all per unit rho*S folded in).

    Attributes (N = number of modes, K = quadrature points):

    ``x, w`` (K,) nodes and weights on [0, L]; ``Phi, dPhi, ddPhi`` (K, N);
    ``H`` (K, N, N) the coupling-shape matrix H(x_k) of eq (4) (no rows for a basis on the
    element route, whose ``elements`` hold it by element); ``Phi_L`` (N,), ``H_L`` (N, N)
    at the tip; ``lam`` (N,) the roots beta_i L.

    Constant integrals (rho S included): ``m`` mass, ``J_ob`` = int rho S x^2, ``M2`` =
    int rho S Phi^T Phi, ``D`` = int rho S x H, ``S_y`` = int rho S x Phi^T (eq (20) misses the x),
    ``K2`` = int EI Phi''^T Phi'', ``Hbar`` = int rho S H, ``Sbar`` = int rho S Phi, ``Rx0`` =
    int rho S x, ``T3[i,j,k]`` = int rho S H_ij Phi_k, ``T4[i,j,k,l]`` = int rho S H_ij H_kl,
    ``C`` the modal damping matrix diag(2 zeta omega_i m).

    Axial extension (``na = 0`` is the paper's inextensible beam): ``Psi``,
    ``dPsi`` (K, na) the axial shapes at the nodes, ``Psi_L`` (na,), ``K_A`` = int EA Psi'^T Psi',
    ``M_A`` = int rho S Psi^T Psi, ``Psibar`` = int rho S Psi.

    ``basis`` is the basis object the arrays come from (:func:`flexlib.bodies.bases.basis_of`); ``lam``
    is None for a basis that is not modal, and ``T3``, ``T4`` are empty (first axis of length 0)
    for a basis too large for the tensor route.
    """
    L: float
    rhoS: float
    EI: float
    n: int
    lam: np.ndarray
    x: np.ndarray
    w: np.ndarray
    Phi: np.ndarray
    dPhi: np.ndarray
    ddPhi: np.ndarray
    H: np.ndarray
    Phi_L: np.ndarray
    H_L: np.ndarray
    m: float
    J_ob: float
    M2: np.ndarray
    D: np.ndarray
    S_y: np.ndarray
    K2: np.ndarray
    Hbar: np.ndarray
    Sbar: np.ndarray
    Rx0: float
    T3: np.ndarray
    T4: np.ndarray
    C: np.ndarray
    na: int = 0
    EA: float = 0.0
    Psi: np.ndarray = None
    dPsi: np.ndarray = None
    Psi_L: np.ndarray = None
    K_A: np.ndarray = None
    M_A: np.ndarray = None
    Psibar: np.ndarray = None
    basis: object = None
    elements: "ElementIntegrals" = None


class ElementIntegrals(NamedTuple):
    """The data of the element route of M and Q (:func:`flexlib.bodies.beam.mass_forces_elem_into`)
    for a basis whose functions have local support (E elements, G = :data:`NODES_PER_ELEMENT`
    Gauss points on each), built by :func:`element_integrals`; every array has E = 0 rows for a
    basis without it.  Elements come in chains, each ordered from its clamp outwards (one chain
    for a root-clamped beam, two for one clamped at its centre); on element e the coupling shape
    is H(x) = sum of the complete integrals A of the earlier elements of its chain + the partial
    integral P(x) of e, each restricted to the (at most 4) coordinates living on the element."""
    edof: np.ndarray    # (E, 4) int: the coordinates whose functions are nonzero on e (-1: none)
    estart: np.ndarray  # (E,) int: 1 where a chain starts
    etail: np.ndarray   # (E,) the mass of the chain beyond e [kg]
    eA: np.ndarray      # (E, 4, 4) int_e Phi'^T Phi' (signed as H), the element's complete integral
    ew: np.ndarray      # (E, G) Gauss weights x rho S [kg]
    ex: np.ndarray      # (E, G) Gauss nodes [m]
    eN: np.ndarray      # (E, G, 4) Phi at the nodes
    eP: np.ndarray      # (E, G, 4, 4) H(x_k) - H(the element's near end): the partial integral
    eK: np.ndarray      # (E, 4, 2) the columns of the end slopes in the element's stiffness
    eh: np.ndarray      # (E,) the element's length [m]


def _gauss(a: float, b: float, k: int):
    xi, wi = np.polynomial.legendre.leggauss(k)
    return 0.5 * (b - a) * xi + 0.5 * (b + a), 0.5 * (b - a) * wi


def coupling_shape(xs, L: float, n: int, k: int, roots=None, foreshortening: bool = True) -> np.ndarray:
    """H(x) = int_0^x Phi'(xi)^T Phi'(xi) d xi at each point of ``xs`` (eq (4)).

    A k-point Gauss-Legendre rule mapped to [0, x] for each x (nested rules).
    Returns zeros when the foreshortening term is switched off.
    """
    xs = np.atleast_1d(np.asarray(xs, dtype=float))
    out = np.zeros((len(xs), n, n))
    if not foreshortening:
        return out
    xi, wi = np.polynomial.legendre.leggauss(k)
    for j, xj in enumerate(xs):
        pts = 0.5 * xj * (xi + 1.0)
        _, d, _ = mode_shapes(pts, L, n, roots)
        out[j] = (0.5 * xj * wi * d.T) @ d
    return out


class ModalBasis:
    """The modal basis of the paper: the first ``n`` clamped-free assumed modes of the whole beam
    (eqs (1)-(2)), integrated with a ``k``-point Gauss-Legendre rule on [0, L].

    The interface every basis offers (:func:`flexlib.bodies.bases.basis_of`): ``name``, ``L``, ``n``
    (number of coordinates), ``quadrature()`` (nodes and weights on [0, L]), ``shapes(x)``
    (Phi, Phi', Phi'', each (len(x), n)), ``coupling(x)`` (H(x) of eq (4), zero without
    foreshortening) and ``lam`` (the roots beta_i L, which give the modal damping)."""

    name = "modal"

    def __init__(self, L: float, n: int, k: int, foreshortening: bool = True):
        self.L, self.n, self.k = float(L), int(n), int(k)
        self.foreshortening = bool(foreshortening)
        self.lam = cantilever_roots(self.n)

    def quadrature(self):
        return _gauss(0.0, self.L, self.k)

    def shapes(self, x):
        return mode_shapes(x, self.L, self.n, self.lam)

    def coupling(self, x):
        return coupling_shape(x, self.L, self.n, self.k, self.lam, self.foreshortening)


def element_integrals(basis, rhoS: float, EI: float, K2: np.ndarray,
                      na: int = 0) -> ElementIntegrals:
    """The element route's data (:class:`ElementIntegrals`) of ``basis``, from its own functions
    (``shapes``, ``coupling``) on the element layout its method ``elements()`` gives; empty
    (E = 0) for a basis without that method or whose ``elements()`` is None (modal,
    partitioned), and with axial modes (``na`` > 0: their functions are not local).  ``rhoS``
    [kg/m] weights the Gauss rule.

    The elastic force is taken element by element from the end slopes relative to the chord,
    phi = theta - (w_far - w_near) / h (:func:`flexlib.bodies.beam.elastic_force_elem`): a
    rigid motion of the element costs no energy, so K_e q_e = K_e[:, theta_near] phi_near +
    K_e[:, theta_far] phi_far, without the sums of terms 12 EI w / h^3 that cancel.  K_e =
    int EI N''^T N'' of the Hermite shape functions on the element of length h, in the chain's
    own coordinate from the clamp outwards (the coordinates of both halves of a centre-clamped
    beam are the deflection and its slope along that coordinate).  Assembled, the K_e must give
    ``K2``, the basis's own int EI Phi''^T Phi'' (``EI`` [N m^2]): checked here."""
    G = NODES_PER_ELEMENT
    layout = getattr(basis, "elements", lambda: None)() if na == 0 else None
    if layout is None:
        return ElementIntegrals(np.zeros((0, 4), np.int64), np.zeros(0, np.int64), np.zeros(0),
                                np.zeros((0, 4, 4)), np.zeros((0, G)), np.zeros((0, G)),
                                np.zeros((0, G, 4)), np.zeros((0, G, 4, 4)), np.zeros((0, 4, 2)),
                                np.zeros(0))
    near, far, dofs, start = (np.asarray(a) for a in layout)
    E, n = len(near), basis.n
    xi, wi = np.polynomial.legendre.leggauss(G)
    lo, hi = np.minimum(near, far), np.maximum(near, far)
    ex = 0.5 * (hi - lo)[:, None] * xi + 0.5 * (hi + lo)[:, None]
    ew = rhoS * 0.5 * (hi - lo)[:, None] * wi
    idx = np.where(dofs >= 0, dofs, n)          # -1 reads a zero column/row appended at n

    def pad(a):            # (m, n) or (m, n, n) with a zero column (and row) at index n
        z = np.zeros(a.shape[:-1] + (1,))
        a = np.concatenate([a, z], axis=-1)
        if a.ndim == 3:
            a = np.concatenate([a, np.zeros((a.shape[0], 1, n + 1))], axis=1)
        return a
    Phi = pad(basis.shapes(ex.ravel())[0]).reshape(E, G, n + 1)
    H = pad(basis.coupling(ex.ravel())).reshape(E, G, n + 1, n + 1)
    Hn, Hf = pad(basis.coupling(near)), pad(basis.coupling(far))
    eN = np.stack([Phi[e][:, idx[e]] for e in range(E)])
    eP = np.stack([(H[e] - Hn[e])[:, idx[e]][:, :, idx[e]] for e in range(E)])
    eA = np.stack([(Hf[e] - Hn[e])[np.ix_(idx[e], idx[e])] for e in range(E)])
    m = ew.sum(axis=1)
    etail = np.zeros(E)
    for e in range(E - 2, -1, -1):
        etail[e] = 0.0 if start[e + 1] else etail[e + 1] + m[e + 1]
    from .basis_fe import hermite_shapes
    eh = hi - lo
    eK = np.empty((E, 4, 2))
    for e in range(E):
        _, _, ddN = hermite_shapes(0.5 * (xi + 1.0), eh[e])
        Ke = EI * ((0.5 * eh[e] * wi) * ddN.T) @ ddN
        eK[e] = Ke[:, [1, 3]]
    check = np.zeros((n + 1, n + 1))
    for e in range(E):
        h = eh[e]
        # K_e from its slope columns: a rigid motion (1, 0, 1, 0), (0, 1, h, 1) costs nothing
        Ke = np.empty((4, 4))
        Ke[:, 1], Ke[:, 3] = eK[e, :, 0], eK[e, :, 1]
        Ke[:, 2] = -(Ke[:, 1] + Ke[:, 3]) / h
        Ke[:, 0] = -Ke[:, 2]
        check[np.ix_(idx[e], idx[e])] += Ke
    if not np.allclose(check[:n, :n], K2, rtol=0.0, atol=1e-9 * max(np.abs(K2).max(), 1e-300)):
        raise ValueError("the basis's elements are not Hermite elements in their chain's "
                         "coordinate: their stiffness does not assemble to K2")
    c = np.ascontiguousarray
    return ElementIntegrals(c(dofs, np.int64), c(start, np.int64), etail, c(eA), c(ew), c(ex),
                            c(eN), c(eP), c(eK), c(eh))


def modal_integrals(beam: BeamParams, basis=None) -> ModalIntegrals:
    """Precompute every quadrature array and constant integral of ``beam`` (once per model) in
    ``basis`` (a basis object of :func:`flexlib.bodies.bases.basis_of`; default: the modal basis, which
    is the only one this module builds by itself).

    The tensors T3 and T4 are built only for bases of at most :data:`TENSOR_ROUTE_MAX`
    coordinates (the tensor route); larger bases get empty ones and use the quadrature route.
    The damping C gives every eigenmode of eig(K2, M2) the damping ratio zeta: for the modal basis
    the modes are the eigenfunctions and C = diag(2 zeta omega_i rho S L); for any other basis
    C = M2 V diag(2 zeta omega) V^T M2 with the M2-orthonormal eigenvectors V."""
    if basis is None:
        if beam.basis != "modal":
            raise ValueError(f"modal_integrals builds only the modal basis by itself; for basis "
                             f"{beam.basis!r} pass flexlib.bodies.bases.basis_of(beam)")
        basis = ModalBasis(beam.L, beam.n_modes, beam.gauss_points, beam.foreshortening)
    n, L = basis.n, beam.L
    rhoS = beam.rho * beam.S
    EI = beam.E * beam.I
    x, w = basis.quadrature()
    Phi, dPhi, ddPhi = basis.shapes(x)
    H = basis.coupling(x)
    PhiL = basis.shapes([L])[0][0]
    H_L = basis.coupling([L])[0]
    ws = w * rhoS
    M2 = (ws * Phi.T) @ Phi
    K2 = EI * (w * ddPhi.T) @ ddPhi
    D = np.einsum("k,kij->ij", ws * x, H)
    S_y = (ws * x) @ Phi
    Hbar = np.einsum("k,kij->ij", ws, H)
    Sbar = ws @ Phi
    if n <= TENSOR_ROUTE_MAX:
        T3 = np.einsum("k,kij,kl->ijl", ws, H, Phi)
        T4 = np.einsum("k,kij,kml->ijml", ws, H, H)
    else:
        T3, T4 = np.zeros((0, n, n)), np.zeros((0, n, n, n))
    if basis.lam is not None:
        omega = basis.lam**2 * math.sqrt(EI / (rhoS * L**4))
        C = np.diag(2.0 * beam.zeta * omega * rhoS * L)
    elif beam.zeta > 0.0:
        from scipy.linalg import eigh   # lazily: the simulator does not need SciPy
        w2, V = eigh(K2, M2)
        MV = M2 @ V
        C = (MV * (2.0 * beam.zeta * np.sqrt(np.clip(w2, 0.0, None)))) @ MV.T
    else:
        C = np.zeros((n, n))
    EA = beam.E * beam.S
    Psi, dPsi = axial_of(basis, x, L, int(getattr(beam, "axial_modes", 0)))
    na = Psi.shape[1]
    Psi_L = axial_of(basis, [L], L, int(getattr(beam, "axial_modes", 0)))[0][0]
    K_A = EA * (w * dPsi.T) @ dPsi
    M_A = (ws * Psi.T) @ Psi
    Psibar = ws @ Psi
    elements = element_integrals(basis, rhoS, EI, K2, na)
    if elements.eA.shape[0] > 0:
        # the element route needs H only as its local parts (elements.eA, eP): the dense
        # H(x_k), K N^2 numbers (3.2 GB at 512 coordinates), is not kept
        H = np.zeros((0, n, n))
    return ModalIntegrals(
        L=L, rhoS=rhoS, EI=EI, n=n, lam=basis.lam, x=x, w=w, Phi=Phi, dPhi=dPhi, ddPhi=ddPhi,
        H=H, Phi_L=PhiL, H_L=H_L, m=rhoS * L, J_ob=float(ws @ x**2), M2=M2, D=D, S_y=S_y, K2=K2,
        Hbar=Hbar, Sbar=Sbar, Rx0=float(ws @ x), T3=np.ascontiguousarray(T3),
        T4=np.ascontiguousarray(T4), C=C, na=na, EA=EA, Psi=Psi, dPsi=dPsi, Psi_L=Psi_L, K_A=K_A,
        M_A=M_A, Psibar=Psibar, basis=basis, elements=elements)
