"""The rotating flexible beam in a floating frame: the modal data and M(q), Q(q, q').

q = [theta, B_1..B_N] (the paper's model), or q = [theta, B_1..B_N, C_1..C_Na] with the axial
extension (``axial_modes = Na >= 1``, not the paper's model; docs/model.md section 16).  The
model is described in docs/model.md, sections 4-5.  :class:`BeamModel` holds the modal integrals
(:mod:`flexlib.modes`), hands them to the compiled kernel (:meth:`BeamModel.kernel_arrays`,
:meth:`BeamModel.kernel_params`) and gives a readable API over it.

Where the formulas live (in :mod:`flexlib.kernel`; the tip point and the energies once each):

* M(q) and Q(q, q'): the paper's closed form, eqs (13)-(22) with the printed typos corrected
  (docs/model.md section 15), written with the precomputed tensors T3 = int rho S H_ij Phi_k and
  T4 = int rho S H_ij H_kl (:func:`flexlib.kernel.mass_forces_into`), and with axial modes the
  generic quadrature route (docs/model.md 5.3; :func:`flexlib.kernel.mass_forces_quad_into`);
  here :meth:`BeamModel.mass_and_forces`, :meth:`~BeamModel.mass_matrix`,
  :meth:`~BeamModel.generalized_forces`, :meth:`~BeamModel.accelerations`;
* the tip point p_P = (L + Psi_L C - 1/2 B^T H_L B, Phi_L B) and its rate:
  :func:`flexlib.kernel._tip_point`, used by the simulator's contact kinematics
  (:func:`flexlib.kernel._tip_into`) and by the tip histories of a run
  (:func:`flexlib.kernel.sample_kinematics`);
* the potential energies V_E, V_A, V_G: :func:`flexlib.kernel.potential_energies`; the kinetic
  energy T = 1/2 q'^T M q' is evaluated by the kernel's right-hand side
  (:func:`flexlib.kernel.phase_eval_samples`).

The NumPy statements of these formulas (M, Q by both routes, the tip position, Jacobian and
velocity product, the energies) are test references in tests/reference.py, not library code.
Only the material points of the whole beam (:meth:`BeamModel.positions`, for the interior
contact check) are computed here.

Sign and frame conventions: W(theta) maps floating components to inertial ones (r = W p;
the paper's text after eq (7) states the opposite direction, its formula is this one); gravity is
(0, -g0); V_G is referred to the hinge level Y = 0.
"""
from __future__ import annotations

import math

import numpy as np

from . import kernel
from .kernel import KernelArrays
from .layout import pack_params
from .modes import ModalIntegrals, axial_shapes, coupling_shape, mode_shapes, modal_integrals
from .params import BeamParams

__all__ = ["BeamModel", "KernelArrays", "rotation"]

# The names of the modal data handed to the kernel (:meth:`BeamModel.kernel_arrays`, a
# :class:`flexlib.kernel.KernelArrays`).
KERNEL_ARRAY_NAMES = KernelArrays._fields


def rotation(theta: float) -> np.ndarray:
    """W(theta), eq (6): floating-frame components to inertial components."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


class BeamModel:
    """Precomputed beam model.  Build once per parameter set; all methods are pure in (q, q')."""

    def __init__(self, beam: BeamParams | None = None):
        if beam is not None and not isinstance(beam, BeamParams):
            raise TypeError(f"BeamModel expects a BeamParams (or None for the paper's beam), got "
                            f"{type(beam).__name__} {beam!r:.60}; for a Case use BeamModel(case.beam)")
        self.params = beam if beam is not None else BeamParams()
        self.mi: ModalIntegrals = modal_integrals(self.params)
        self.n = self.mi.n
        self.na = self.mi.na
        self.ndof = self.n + 1 + self.na
        self.g0 = self.params.g0
        self._kernel_arrays = None

    # ------------------------------------------------------------------ hot path
    def kernel_arrays(self) -> KernelArrays:
        """The modal data in the layout of the compiled kernel (:mod:`flexlib.kernel`), a
        :class:`~flexlib.kernel.KernelArrays`: the tensor route's arrays (M2, M2 - D, S_y, K2,
        T3 and T4 flattened, Hbar, Sbar, C), the tip values (Phi_L, H_L), and the quadrature
        route's (nodes, weights x rho S, Phi, H, Psi, K_A), Psi_L and Psibar.  Built once per
        model."""
        if self._kernel_arrays is None:
            mi = self.mi
            n = mi.n
            c = np.ascontiguousarray
            self._kernel_arrays = KernelArrays(
                M2=c(mi.M2), M2mD=c(mi.M2 - mi.D), S_y=c(mi.S_y), K2=c(mi.K2),
                T3r=c(mi.T3.reshape(n * n, n)), T3tr=c(mi.T3.transpose(0, 2, 1).reshape(n * n, n)),
                T4r=c(mi.T4.reshape(n * n, n * n)),
                T4pr=c(mi.T4.transpose(0, 2, 1, 3).reshape(n * n, n * n)), Hbar=c(mi.Hbar),
                Sbar=c(mi.Sbar), C=c(mi.C), Phi_L=c(mi.Phi_L), H_L=c(mi.H_L),
                # generic quadrature route, used only with axial modes (an extension beyond the paper)
                xk=c(mi.x), wk=c(mi.w * mi.rhoS), Phik=c(mi.Phi),
                Hk=c(mi.H.reshape(len(mi.x), n * n)), Psik=c(mi.Psi), KA=c(mi.K_A),
                Psi_L=c(mi.Psi_L), Psibar=c(mi.Psibar))
        return self._kernel_arrays

    def kernel_params(self, tau_d: float | None = None) -> np.ndarray:
        """The kernel's parameter vector with the beam's slots set (J_ob, Rx0, g0, tau_d, L)."""
        mi = self.mi
        return pack_params(J_ob=mi.J_ob, Rx0=mi.Rx0, g0=self.g0, L=mi.L,
                           tau_d=self.params.tau_d if tau_d is None else tau_d)

    def mass_and_forces(self, q, qd, tau_d: float | None = None):
        """M(q) and Q(q, q') together (eqs (13)-(17), corrected), by the simulator's compiled
        code (:func:`flexlib.kernel.mass_forces_any`).

        Q contains the drive torque, gravity, all velocity terms, the elastic force -K2 B and
        the modal damping -C B'.  It does not contain contact forces.  Without axial modes the
        paper's closed form with the tensors T3, T4; with axial modes the quadrature route.
        """
        c = np.ascontiguousarray
        return kernel.mass_forces_any(c(q, dtype=float), c(qd, dtype=float),
                                      self.kernel_params(tau_d), self.kernel_arrays())

    def mass_matrix(self, q) -> np.ndarray:
        """M(q), eqs (13)-(15) (S_y = int rho S x Phi^T dx: eq (20) misses the x).  Symmetric positive
        definite."""
        return self.mass_and_forces(np.asarray(q, float), np.zeros(self.ndof))[0]

    def generalized_forces(self, q, qd, tau_d: float | None = None) -> np.ndarray:
        """Q(q, q'), eqs (16)-(17) with the printed typos corrected: drive, gravity, velocity,
        elastic, damping."""
        return self.mass_and_forces(np.asarray(q, float), np.asarray(qd, float), tau_d)[1]

    def accelerations(self, q, qd, tau_d: float | None = None) -> np.ndarray:
        """q'' in free flight: the solution of M q'' = Q (Cholesky)."""
        M, Q = self.mass_and_forces(q, qd, tau_d)
        return _chol_solve(M, Q)

    def _split(self, q):
        """(theta, B, C) of a coordinate vector (C is empty without axial modes)."""
        q = np.asarray(q, float)
        return q[0], q[1:1 + self.n], q[1 + self.n:]

    # ------------------------------------------------------------------ whole-beam positions
    def station_data(self, xs):
        """(xs, Phi(x), H(x)) at stations ``xs`` (precompute once, then use :meth:`positions`);
        with axial modes also Psi(x) as a 4th entry."""
        xs = np.asarray(xs, float)
        k = self.params.gauss_points
        phi = mode_shapes(xs, self.mi.L, self.n, self.mi.lam)[0]
        H = coupling_shape(xs, self.mi.L, self.n, k, self.mi.lam, self.params.foreshortening)
        if self.na:
            return xs, phi, H, axial_shapes(xs, self.mi.L, self.na)[0]
        return xs, phi, H

    def positions(self, q, stations) -> np.ndarray:
        """Inertial positions (len(xs), 2) of material points, given :meth:`station_data`
        (:func:`flexlib.kernel.material_points_into`, the code of the interior-contact check)."""
        xs, phi, H = stations[:3]
        Psi = stations[3] if self.na else np.zeros((len(xs), 0))
        _, B, C = self._split(q)
        P = np.empty((len(xs), 2))
        c_ = np.ascontiguousarray
        kernel.material_points_into(c_(B), c_(C), math.cos(q[0]), math.sin(q[0]),
                                    c_(xs, dtype=float), c_(phi, dtype=float), c_(H, dtype=float),
                                    c_(Psi, dtype=float), P)
        return P

    # ------------------------------------------------------------------ frequencies
    def natural_frequencies(self) -> np.ndarray:
        """Clamped-free bending frequencies (rad/s): eigenvalues of the quadrature K2, M2 (E5)."""
        from scipy.linalg import eigh   # lazily: the simulator does not need SciPy
        w2 = eigh(self.mi.K2, self.mi.M2, eigvals_only=True)
        return np.sqrt(np.clip(w2, 0.0, None))

    def axial_frequencies(self) -> np.ndarray:
        """Fixed-free axial frequencies (rad/s): eig(K_A, M_A); empty without axial
        modes.  Exact values (2j - 1)(pi/2) sqrt(E/rho)/L: the shapes are eigenfunctions."""
        if not self.na:
            return np.zeros(0)
        from scipy.linalg import eigh
        w2 = eigh(self.mi.K_A, self.mi.M_A, eigvals_only=True)
        return np.sqrt(np.clip(w2, 0.0, None))

    def pinned_free_frequencies(self) -> np.ndarray:
        """Hinged (pinned-free) frequencies, rad/s: eig(diag(0, K2), M(q = 0)) with g = 0 (E6).

        The first value is the rigid rotation (0 rad/s)."""
        K = np.zeros((self.ndof, self.ndof))
        K[1:1 + self.n, 1:1 + self.n] = self.mi.K2
        if self.na:
            K[1 + self.n:, 1 + self.n:] = self.mi.K_A
        from scipy.linalg import eigh
        w2 = eigh(K, self.mass_matrix(np.zeros(self.ndof)), eigvals_only=True)
        return np.sqrt(np.clip(w2, 0.0, None))


def _chol_solve(M, b):
    L = np.linalg.cholesky(M)
    y = np.linalg.solve(L, b)
    return np.linalg.solve(L.T, y)
