"""Assumed modes (clamped-free cantilever eigenfunctions) and the modal integrals.

docs/model.md section 4 (numerically stable form; coupling-shape matrix H, eq (4)) and 5.2
(constant integrals, eqs (18)-(22), with S_y = int rho S x Phi^T dx: the printed eq (20) misses
the x).  Everything here is computed once per model; the right-hand side of the ODE only
contracts the small dense tensors stored in :class:`ModalIntegrals`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .params import BeamParams

__all__ = ["cantilever_roots", "mode_shapes", "axial_shapes", "ModalIntegrals", "modal_integrals"]


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


@dataclass
class ModalIntegrals:
    """Quadrature data and the constant integrals of one beam (all per unit rho*S folded in).

    Attributes (N = number of modes, K = quadrature points):

    ``x, w`` (K,) nodes and weights on [0, L]; ``Phi, dPhi, ddPhi`` (K, N);
    ``H`` (K, N, N) the coupling-shape matrix H(x_k) of eq (4); ``Phi_L`` (N,), ``H_L`` (N, N)
    at the tip; ``lam`` (N,) the roots beta_i L.

    Constant integrals (rho S included): ``m`` mass, ``J_ob`` = int rho S x^2, ``M2`` =
    int rho S Phi^T Phi, ``D`` = int rho S x H, ``S_y`` = int rho S x Phi^T (eq (20) misses the x),
    ``K2`` = int EI Phi''^T Phi'', ``Hbar`` = int rho S H, ``Sbar`` = int rho S Phi, ``Rx0`` =
    int rho S x, ``T3[i,j,k]`` = int rho S H_ij Phi_k, ``T4[i,j,k,l]`` = int rho S H_ij H_kl,
    ``C`` the modal damping matrix diag(2 zeta omega_i m).

    Axial extension (``na = 0`` is the paper's inextensible beam): ``Psi``,
    ``dPsi`` (K, na) the axial shapes at the nodes, ``Psi_L`` (na,), ``K_A`` = int EA Psi'^T Psi',
    ``M_A`` = int rho S Psi^T Psi, ``Psibar`` = int rho S Psi.
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


def modal_integrals(beam: BeamParams) -> ModalIntegrals:
    """Precompute every quadrature array and constant integral of ``beam`` (once per model)."""
    n, L = beam.n_modes, beam.L
    k = beam.gauss_points
    lam = cantilever_roots(n)
    rhoS = beam.rho * beam.S
    EI = beam.E * beam.I
    x, w = _gauss(0.0, L, k)
    Phi, dPhi, ddPhi = mode_shapes(x, L, n, lam)
    H = coupling_shape(x, L, n, k, lam, beam.foreshortening)
    PhiL = mode_shapes([L], L, n, lam)[0][0]
    H_L = coupling_shape([L], L, n, k, lam, beam.foreshortening)[0]
    ws = w * rhoS
    M2 = (ws * Phi.T) @ Phi
    K2 = EI * (w * ddPhi.T) @ ddPhi
    D = np.einsum("k,kij->ij", ws * x, H)
    S_y = (ws * x) @ Phi
    Hbar = np.einsum("k,kij->ij", ws, H)
    Sbar = ws @ Phi
    T3 = np.einsum("k,kij,kl->ijl", ws, H, Phi)
    T4 = np.einsum("k,kij,kml->ijml", ws, H, H)
    omega = lam**2 * math.sqrt(EI / (rhoS * L**4))
    C = np.diag(2.0 * beam.zeta * omega * rhoS * L)
    na = int(getattr(beam, "axial_modes", 0))
    EA = beam.E * beam.S
    Psi, dPsi = axial_shapes(x, L, na)
    Psi_L = axial_shapes([L], L, na)[0][0]
    K_A = EA * (w * dPsi.T) @ dPsi
    M_A = (ws * Psi.T) @ Psi
    Psibar = ws @ Psi
    return ModalIntegrals(
        L=L, rhoS=rhoS, EI=EI, n=n, lam=lam, x=x, w=w, Phi=Phi, dPhi=dPhi, ddPhi=ddPhi, H=H,
        Phi_L=PhiL, H_L=H_L, m=rhoS * L, J_ob=float(ws @ x**2), M2=M2, D=D, S_y=S_y, K2=K2,
        Hbar=Hbar, Sbar=Sbar, Rx0=float(ws @ x), T3=np.ascontiguousarray(T3),
        T4=np.ascontiguousarray(T4), C=C, na=na, EA=EA, Psi=Psi, dPsi=dPsi, Psi_L=Psi_L, K_A=K_A,
        M_A=M_A, Psibar=Psibar)
