"""Test references for the multibody cases in their rigid limit: textbook models in NumPy/SciPy.

These are *references for the tests* of the flexible multibody systems (a flexible double
pendulum striking a stop, a beam falling on rigid ground), written from the textbooks and
independently of the library: nothing here imports :mod:`flexlib`.  A flexible body with no
deformation coordinates must reproduce them.

* A rigid double pendulum of two uniform rods (Lagrange's equations derived by hand, see
  H. Goldstein, *Classical Mechanics*, or D. T. Greenwood, *Principles of Dynamics*) with an
  optional Hertz contact of a point of the upper rod against a rigid stop (K. L. Johnson,
  *Contact Mechanics*, 1985: Hertz theory of normal contact, and the impact of elastic bodies).
  The chapter and equation numbers of these books differ between editions, so none are given.
* A falling rigid rod on rigid ground with several contact points:
  - the closed-form first impact of a tilted rod (frictionless, e = 0);
  - Newton's impact law at several simultaneous contact points as a linear complementarity
    problem (F. Pfeiffer and C. Glocker, *Multibody Dynamics with Unilateral Contacts*, Wiley
    1996; B. Brogliato, *Nonsmooth Mechanics*, Springer;
    R. W. Cottle, J.-S. Pang and R. E. Stone, *The Linear Complementarity Problem*, 1992);
  - an event-driven rigid-rod simulation (flight, impacts, frictionless pivoting and sliding on a
    closed end with the contact force as a Lagrange multiplier);
  - the same rod with penalty contact forces (linear or Hertz, optional Hunt-Crossley damping:
    K. H. Hunt and F. R. E. Crossley, J. Appl. Mech. 42, 1975), for comparison with a
    continuous contact method.

Units are SI throughout (m, kg, s, rad, N, J).  Angles are measured counter-clockwise from +X;
gravity is g0 = 9.81 m/s^2 along -Y.  Each smooth piece of motion is integrated with
scipy.integrate.solve_ivp (DOP853) between events, so that no integrator step crosses the kink of
a contact law or an impact.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

G0 = 9.81                    # gravity, m/s^2, along -Y

# The rods' section and material: the aluminium beam of the paper's case 3.2 (a solid round bar of
# radius 0.01 m), stated here as numbers so that the references stay independent of flexlib.params.
RHO = 2766.67                # density, kg/m^3
AREA = 3.14e-4               # cross-section area S = pi r^2, r = 0.01 m, m^2
E_ROD, NU_ROD = 68.952e9, 0.33    # Young's modulus (Pa) and Poisson's ratio of the rods
E_STOP, NU_STOP = 206e9, 0.3      # a steel stop
R_CONTACT = 0.01             # radius of the contact (the rod's radius), m


# ====================================================================== Hertz contact
def hertz_stiffness(R: float = R_CONTACT, E0: float = E_STOP, nu0: float = NU_STOP,
                    E1: float = E_ROD, nu1: float = NU_ROD) -> float:
    """Hertz stiffness K = (4/3) sqrt(R) E* of a sphere of radius R on a flat, N/m^1.5.

    N = K delta^(3/2) with 1/E* = (1 - nu0^2)/E0 + (1 - nu1^2)/E1 (Johnson, Contact Mechanics,
    Hertz theory).  With the defaults (steel stop, the aluminium rod, R = 0.01 m):
    1/E* = 0.91/206e9 + 0.8911/68.952e9 = 1.734097e-11 1/Pa, K = 7.6889e9 N/m^1.5."""
    E_star = 1.0 / ((1.0 - nu0**2) / E0 + (1.0 - nu1**2) / E1)
    return 4.0 / 3.0 * math.sqrt(R) * E_star


def hertz_contact_time(m_eff: float, K: float, v0: float) -> float:
    """Duration of an undamped Hertz impact m x'' = -K x^1.5 at approach speed v0, s.

    The maximum compression is delta_max = (5 m v0^2 / (4 K))^(2/5) and the duration
    t_c = 2.9432 delta_max / v0 (Johnson, Contact Mechanics, impact of elastic spheres), so
    t_c is proportional to K^(-2/5) m^(2/5) v0^(-1/5)."""
    delta_max = (1.25 * m_eff * v0**2 / K) ** 0.4
    return 2.9432 * delta_max / v0


# ====================================================================== double pendulum
@dataclass(frozen=True)
class DoublePendulum:
    """Two uniform rods in the vertical plane: rod 1 (m1 kg, L1 m) hinged at O = (0, 0), rod 2
    (m2 kg, L2 m) hinged to the tip of rod 1.  The point B of rod 1 at x_B m from O can strike the
    rigid half-plane X <= 0 (boundary through O, normal n = (1, 0) into the free side) with the
    contact law N = K delta^exponent (K in N/m^exponent), delta = max(0, -X_B)."""
    m1: float
    L1: float
    m2: float
    L2: float
    x_B: float
    K: float
    exponent: float = 1.5
    g0: float = G0


def double_pendulum_case(L1: float = 1.0, L2: float = 0.5, rho: float = RHO, S: float = AREA,
                         K: float | None = None, x_B_fraction: float = 0.8) -> DoublePendulum:
    """The double-pendulum case: L1 = 1.0 m, L2 = 0.5 m, m = rho S L for each rod
    (m1 = 0.868734 kg, m2 = 0.434367 kg), B at 0.8 L1, Hertz stiffness K = hertz_stiffness()."""
    return DoublePendulum(m1=rho * S * L1, L1=L1, m2=rho * S * L2, L2=L2, x_B=x_B_fraction * L1,
                          K=hertz_stiffness() if K is None else K)


def double_pendulum_mass_matrix(p: DoublePendulum, th1: float, th2: float) -> np.ndarray:
    """M(theta), kg m^2, from the kinetic energy of the two rods.

    Rod 1 rotates about O (moment of inertia m1 L1^2/3); rod 2's centre moves with
    v_c2 = L1 th1' (-sin th1, cos th1) + (L2/2) th2' (-sin th2, cos th2) and it spins with th2'
    (central moment m2 L2^2/12), so

        T = 1/2 (m1/3 + m2) L1^2 th1'^2 + 1/2 m2 L1 L2 cos(th1 - th2) th1' th2' + 1/2 (m2/3) L2^2 th2'^2

        M = [[(m1/3 + m2) L1^2,            1/2 m2 L1 L2 cos(th1 - th2)],
             [1/2 m2 L1 L2 cos(th1 - th2),  m2 L2^2 / 3               ]]."""
    c12 = math.cos(th1 - th2)
    m12 = 0.5 * p.m2 * p.L1 * p.L2 * c12
    return np.array([[(p.m1 / 3.0 + p.m2) * p.L1**2, m12],
                     [m12, p.m2 * p.L2**2 / 3.0]])


def double_pendulum_forces(p: DoublePendulum, th1, th2, om1, om2) -> np.ndarray:
    """F(theta, theta'), N m: velocity-product and gravity terms of Lagrange's equations.

    With V = g0 [ (m1/2 + m2) L1 sin th1 + (m2/2) L2 sin th2 ] (heights of the centres of mass
    above O) and s12 = sin(th1 - th2), d/dt(dT/dth') - dT/dth + dV/dth = Q gives
    M theta'' = F + Q_contact with

        F1 = -1/2 m2 L1 L2 s12 th2'^2 - g0 (m1/2 + m2) L1 cos th1
        F2 = +1/2 m2 L1 L2 s12 th1'^2 - g0 (m2/2) L2 cos th2."""
    h = 0.5 * p.m2 * p.L1 * p.L2 * math.sin(th1 - th2)
    return np.array([-h * om2**2 - p.g0 * (0.5 * p.m1 + p.m2) * p.L1 * math.cos(th1),
                     h * om1**2 - p.g0 * 0.5 * p.m2 * p.L2 * math.cos(th2)])


def double_pendulum_point(p: DoublePendulum, rod: int, x: float, th1, th2, om1=0.0, om2=0.0):
    """Position r (m) and velocity v (m/s) of the material point at x m from the rod's hinge.

    rod 1: r = x e1,          v = x th1' e1perp
    rod 2: r = L1 e1 + x e2,  v = L1 th1' e1perp + x th2' e2perp
    with e_i = (cos th_i, sin th_i) and e_iperp = (-sin th_i, cos th_i)."""
    c1, s1, c2, s2 = math.cos(th1), math.sin(th1), math.cos(th2), math.sin(th2)
    if rod == 1:
        return np.array([x * c1, x * s1]), np.array([-x * s1 * om1, x * c1 * om1])
    if rod == 2:
        return (np.array([p.L1 * c1 + x * c2, p.L1 * s1 + x * s2]),
                np.array([-p.L1 * s1 * om1 - x * s2 * om2, p.L1 * c1 * om1 + x * c2 * om2]))
    raise ValueError(f"rod must be 1 or 2, got {rod!r}")


def double_pendulum_point_jacobian(p: DoublePendulum, rod: int, x: float, th1, th2) -> np.ndarray:
    """J = dr/dtheta (2 x 2, m/rad) of the point at x on rod 1 or 2, so that v = J theta'."""
    return np.column_stack([double_pendulum_point(p, rod, x, th1, th2, 1.0, 0.0)[1],
                            double_pendulum_point(p, rod, x, th1, th2, 0.0, 1.0)[1]])


def double_pendulum_contact(p: DoublePendulum, th1, th2):
    """Penetration delta (m), normal force N (N) and generalised force Q_contact (N m) at B.

    X_B = x_B cos th1, delta = max(0, -X_B), N = K delta^exponent along n = (1, 0), applied at B:
    Q_contact = J_B^T n N = (-x_B sin th1 N, 0) (virtual work N n . delta r_B)."""
    delta = max(0.0, -p.x_B * math.cos(th1))
    N = p.K * delta**p.exponent
    return delta, N, np.array([-p.x_B * math.sin(th1) * N, 0.0])


def double_pendulum_rhs(t, y, p: DoublePendulum, contact: bool = True) -> np.ndarray:
    """y' for y = (th1, th2, th1', th2') (rad, rad/s): theta'' = M^-1 (F + Q_contact)."""
    th1, th2, om1, om2 = y
    rhs = double_pendulum_forces(p, th1, th2, om1, om2)
    if contact:
        rhs = rhs + double_pendulum_contact(p, th1, th2)[2]
    M = double_pendulum_mass_matrix(p, th1, th2)
    det = M[0, 0] * M[1, 1] - M[0, 1] ** 2
    return np.array([om1, om2,
                     (M[1, 1] * rhs[0] - M[0, 1] * rhs[1]) / det,
                     (M[0, 0] * rhs[1] - M[0, 1] * rhs[0]) / det])


def double_pendulum_energy(p: DoublePendulum, y, contact: bool = True) -> np.ndarray:
    """(T, V_G, V_C) in J at the state y = (th1, th2, th1', th2'): kinetic energy 1/2 th'^T M th',
    gravity V_G = g0 [(m1/2 + m2) L1 sin th1 + (m2/2) L2 sin th2] (zero with both rods
    horizontal) and the contact potential V_C = K delta^(n+1)/(n+1) (zero without contact)."""
    th1, th2, om1, om2 = y
    w = np.array([om1, om2])
    T = 0.5 * w @ double_pendulum_mass_matrix(p, th1, th2) @ w
    V_G = p.g0 * ((0.5 * p.m1 + p.m2) * p.L1 * math.sin(th1) + 0.5 * p.m2 * p.L2 * math.sin(th2))
    V_C = 0.0
    if contact:
        delta = double_pendulum_contact(p, th1, th2)[0]
        V_C = p.K * delta ** (p.exponent + 1.0) / (p.exponent + 1.0)
    return np.array([T, V_G, V_C])


@dataclass
class DoublePendulumRun:
    """A run of :func:`simulate_double_pendulum`: samples t (s), th1, th2 (rad), om1, om2 (rad/s),
    the normal force N (N) and the energies T, V_G, V_C (J) at the samples; contacts is the list of
    (t_on, t_off) of every contact interval of B (t_off = None if still closed at t_end)."""
    t: np.ndarray
    th1: np.ndarray
    th2: np.ndarray
    om1: np.ndarray
    om2: np.ndarray
    N: np.ndarray
    energy: np.ndarray          # (n, 3): T, V_G, V_C
    contacts: list = field(default_factory=list)
    message: str = ""


def simulate_double_pendulum(t_end: float, contact: bool = True, rtol: float = 1e-11,
                             atol: float = 1e-12, p: DoublePendulum | None = None,
                             y0=(0.0, 0.0, 0.0, 0.0), dt_out: float = 1e-3,
                             method: str = "DOP853") -> DoublePendulumRun:
    """Integrate the rigid double pendulum from y0 = (th1, th2, th1', th2') to t_end (s).

    Default: the case of :func:`double_pendulum_case`, both rods along +X at rest.  With contact,
    the run is split at the zeros of X_B (terminal events) so that the Hertz law's kink at
    delta = 0 is never inside a step; in a contact interval the step is limited to 1/40 of the
    Hertz duration estimated from the approach speed and the effective mass at B (Johnson).
    The contact law is switched on only in the contact intervals: a step of a free interval that
    crosses X_B = 0 must not see the stiff force, or the located event inherits its error."""
    p = double_pendulum_case() if p is None else p
    y = np.asarray(y0, float)
    t = 0.0
    ts, ys, contacts = [t], [y.copy()], []

    def gap(t_, y_, *_):
        return p.x_B * math.cos(y_[0])
    gap.terminal = True

    in_contact = contact and (gap(t, y) < 0.0)
    if in_contact:
        contacts.append([t, None])
    message = "reached t_end"
    while t < t_end:
        gap.direction = 1.0 if in_contact else -1.0
        max_step = np.inf
        if in_contact:
            J = double_pendulum_point_jacobian(p, 1, p.x_B, y[0], y[1])[0]      # n^T J_B
            Minv = np.linalg.inv(double_pendulum_mass_matrix(p, y[0], y[1]))
            m_eff = 1.0 / (J @ Minv @ J)
            v_n = abs(J @ y[2:])
            max_step = hertz_contact_time(m_eff, p.K, max(v_n, 1e-3)) / 40.0
        sol = solve_ivp(double_pendulum_rhs, (t, t_end), y, method=method, rtol=rtol, atol=atol,
                        args=(p, in_contact), events=gap if contact else None, dense_output=True,
                        max_step=max_step)
        if sol.status < 0:
            message = sol.message
            break
        t_stop = sol.t[-1]
        grid = np.arange(math.floor(t / dt_out) + 1, math.ceil(t_stop / dt_out)) * dt_out
        grid = grid[(grid > t) & (grid < t_stop)]
        if grid.size:
            ts.extend(grid)
            ys.extend(sol.sol(grid).T)
        t, y = t_stop, sol.y[:, -1].copy()
        ts.append(t)
        ys.append(y.copy())
        if sol.status == 1:                     # X_B crossed zero
            if in_contact:
                contacts[-1][1] = t
            else:
                contacts.append([t, None])
            in_contact = not in_contact
    Y = np.array(ys)
    N = np.array([double_pendulum_contact(p, a, b)[1] if contact else 0.0 for a, b in Y[:, :2]])
    E = np.array([double_pendulum_energy(p, yy, contact) for yy in Y])
    return DoublePendulumRun(np.array(ts), *Y.T, N=N, energy=E,
                             contacts=[tuple(c) for c in contacts], message=message)


# ====================================================================== falling rigid rod
@dataclass(frozen=True)
class Rod:
    """A uniform rigid rod of mass m (kg) and length L (m), free in the vertical plane above the
    ground y <= 0 (normal n = (0, 1)).  Coordinates q = (x, y, theta): the centre of mass (m) and
    the angle of the axis from +X (rad, counter-clockwise); M = diag(m, m, m L^2/12).  A contact
    point at fraction xi of the length (xi = 0 and 1 are the ends) sits at signed distance
    d = (xi - 1/2) L from the centre along the axis."""
    m: float
    L: float
    g0: float = G0

    @property
    def J(self) -> float:
        """Central moment of inertia m L^2 / 12, kg m^2."""
        return self.m * self.L**2 / 12.0

    def mass_matrix(self) -> np.ndarray:
        return np.diag([self.m, self.m, self.J])

    def applied_force(self) -> np.ndarray:
        """Generalised gravity force F = (0, -m g0, 0), N and N m."""
        return np.array([0.0, -self.m * self.g0, 0.0])


def falling_rod_case(L: float = 1.0, rho: float = RHO, S: float = AREA) -> Rod:
    """The falling-beam case's rigid limit: m = rho S L = 0.868734 kg, L = 1.0 m."""
    return Rod(m=rho * S * L, L=L)


def rod_offsets(rod: Rod, fractions) -> np.ndarray:
    """Signed distances d_i = (xi_i - 1/2) L (m) of the contact points from the centre."""
    return (np.asarray(fractions, float) - 0.5) * rod.L


def rod_gaps(q, d) -> np.ndarray:
    """Gaps (heights above the ground) of the points: g_i = y + d_i sin theta, m."""
    return q[1] + d * math.sin(q[2])


def rod_normal_jacobian(q, d) -> np.ndarray:
    """W (k x 3): rows dg_i/dq = (0, 1, d_i cos theta), so the normal velocities are v_n = W q'."""
    d = np.atleast_1d(d)
    return np.column_stack([np.zeros_like(d), np.ones_like(d), d * math.cos(q[2])])


def rod_normal_velocity_product(q, qd, d) -> np.ndarray:
    """gamma_i = W' q' = -d_i sin theta theta'^2 (m/s^2), so that g_i'' = W_i q'' + gamma_i."""
    return -np.atleast_1d(d) * math.sin(q[2]) * qd[2] ** 2


def rod_energy(rod: Rod, q, qd) -> tuple[float, float]:
    """(T, V_G) in J: T = 1/2 m (x'^2 + y'^2) + 1/2 J theta'^2, V_G = m g0 y."""
    T = 0.5 * rod.m * (qd[0] ** 2 + qd[1] ** 2) + 0.5 * rod.J * qd[2] ** 2
    return T, rod.m * rod.g0 * q[1]


def tilted_landing(rod: Rod, v_y_minus: float, theta: float):
    """Closed-form first impact of a translating rod (theta' = 0) landing on its lower end,
    frictionless, e = 0.

    With 0 < |theta| < pi/2 the lower end is xi = 0 (d = -L/2) for theta > 0 and xi = 1
    (d = +L/2) for theta < 0.  Its normal velocity is v_y^-, and its Delassus number
    1/m + d^2 cos^2 theta / J = (1 + 3 cos^2 theta)/m.  With Lambda = -m v_y^-/(1 + 3 cos^2 theta):

        v_y^+ = v_y^- 3 cos^2 theta / (1 + 3 cos^2 theta)
        omega^+ = Lambda d cos theta / J = sgn(theta) 6 v_y^- cos theta / (L (1 + 3 cos^2 theta))

    so for theta > 0 (left end lower) and v_y^- < 0 the rod turns clockwise (omega^+ < 0): the
    raised end keeps falling.  v_x is unchanged.  Returns (v_y^+ m/s, omega^+ rad/s, Lambda N s)."""
    c2 = math.cos(theta) ** 2
    v_y_plus = v_y_minus * 3.0 * c2 / (1.0 + 3.0 * c2)
    omega_plus = (math.copysign(1.0, theta) * 6.0 * v_y_minus * math.cos(theta)
                  / (rod.L * (1.0 + 3.0 * c2)))
    return v_y_plus, omega_plus, -rod.m * v_y_minus / (1.0 + 3.0 * c2)


# ---------------------------------------------------------------------- the LCP of Newton's law
def solve_lcp(G, q, tol: float = 1e-10):
    """Solve the linear complementarity problem w = q + G lam, lam >= 0, w >= 0, lam^T w = 0 by
    enumerating the 2^k index sets (k = len(q) small; Cottle, Pang and Stone).

    For an index set a (the points with w = 0) lam_a = -pinv(G_aa) q_a and lam = 0 elsewhere; a
    set is accepted if G_aa lam_a = -q_a holds, lam >= 0 and w >= 0 (to tol, relative to the
    scale of q and of G).  For G = W M^-1 W^T positive semidefinite, w is the same for every
    solution; when G is singular (redundant points) lam is not unique, and the least-norm one is
    returned (a least-norm solution with support s is pinv(G_ss) (-q_s), so it is among the
    candidates).  Returns (lam, w, n_solutions)."""
    G = np.asarray(G, float)
    q = np.asarray(q, float)
    k = len(q)
    q_scale = max(np.abs(q).max(initial=0.0), 1e-300)
    diag = np.diag(G)
    lam_scale = q_scale / max(diag[diag > 0].min(initial=1.0), 1e-300)
    best, n_ok = None, 0
    for r in range(k + 1):
        for a in itertools.combinations(range(k), r):
            a = list(a)
            lam = np.zeros(k)
            if a:
                lam[a] = np.linalg.pinv(G[np.ix_(a, a)], rcond=1e-12) @ (-q[a])
            w = q + G @ lam
            if (np.abs(w[a]).max(initial=0.0) > tol * q_scale or lam.min() < -tol * lam_scale
                    or w.min() < -tol * q_scale):
                continue
            n_ok += 1
            if best is None or lam @ lam < best[0] @ best[0] * (1.0 - 1e-12):
                best = (lam, w)
    if best is None:
        raise ValueError(f"solve_lcp: no solution found for q = {q} (G must be positive "
                         "semidefinite and the problem feasible)")
    lam = np.maximum(best[0], 0.0)
    return lam, q + G @ lam, n_ok


@dataclass
class ImpactJump:
    """Result of :func:`newton_impact`: normal impulses (N s), generalised velocities before and
    after, normal velocities of the points before and after (m/s), the Delassus matrix G (1/kg
    when the rows of W map q' to m/s), the kinetic-energy change dT (J) and how many index sets
    solved the LCP (more than one only when G is singular)."""
    impulses: np.ndarray
    qd_minus: np.ndarray
    qd_plus: np.ndarray
    v_minus: np.ndarray
    v_plus: np.ndarray
    G: np.ndarray
    dT: float
    n_solutions: int


def newton_impact(M, W, qd_minus, e) -> ImpactJump:
    """Frictionless impact at k simultaneous contact points with Newton's restitution law.

    M q'+ = M q'- + W^T Lambda, v = W q' (normal velocities), so v+ = v- + G Lambda with the
    Delassus matrix G = W M^-1 W^T, and at each point (Pfeiffer and Glocker; Brogliato)

        Lambda >= 0,  v+ + e v- >= 0,  Lambda^T (v+ + e v-) = 0,

    an LCP in Lambda with q = (1 + e) v-.  e may be a number or one value per point (a point that
    was already closed, v- = 0, takes e = 0).  Then dT = Lambda^T (v- + v+)/2; with one e in
    [0, 1] for all points dT = -(1 - e)/(2 (1 + e)) Lambda^T G Lambda <= 0."""
    M = np.asarray(M, float)
    W = np.atleast_2d(np.asarray(W, float))
    qd_minus = np.asarray(qd_minus, float)
    Minv_WT = np.linalg.solve(M, W.T)
    G = W @ Minv_WT
    v_minus = W @ qd_minus
    e = np.broadcast_to(np.asarray(e, float), v_minus.shape)
    lam, _, n_ok = solve_lcp(G, (1.0 + e) * v_minus)
    qd_plus = qd_minus + Minv_WT @ lam
    v_plus = W @ qd_plus
    dT = 0.5 * qd_plus @ M @ qd_plus - 0.5 * qd_minus @ M @ qd_minus
    return ImpactJump(lam, qd_minus, qd_plus, v_minus, v_plus, G, float(dT), n_ok)


# ---------------------------------------------------------------------- event-driven rigid rod
@dataclass
class RodImpact:
    """One impact of the event-driven rod: time t (s), the indices of the contact points taking
    part (into the run's fractions), their impulses (N s), the generalised velocities q'- and q'+
    (m/s, m/s, rad/s), the points' normal velocities before and after (m/s), the energy lost
    T- - T+ (J) and the configuration q at the impact."""
    t: float
    points: tuple
    impulses: np.ndarray
    qd_minus: np.ndarray
    qd_plus: np.ndarray
    v_minus: np.ndarray
    v_plus: np.ndarray
    energy_lost: float
    q: np.ndarray


@dataclass
class RigidRodRun:
    """A run of :func:`simulate_rigid_rod`: samples t (s), q = (x, y, theta), qd, the phase of
    each sample ('flight', 'impact', 'pivot <i>', 'rest', 'slide'), the impacts, the time the rod
    came to rest (None if it did not), the largest constraint drift |g_i| of a closed point during the
    pivot phases (m), and why the run stopped.  At an impact the state is recorded twice at the
    same time, before (with the phase that ends) and after (phase 'impact')."""
    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    phase: list
    impacts: list
    fractions: np.ndarray
    t_rest: float | None
    drift: float
    message: str


def rod_pivot_acceleration(rod: Rod, q, qd, d_i: float):
    """Accelerations and the normal force of the rod sliding frictionlessly on one closed point.

    The contact force enters as a Lagrange multiplier N (N): M q'' = F + W_i^T N with the closed
    point's normal acceleration zero, W_i q'' + gamma_i = 0, so

        N = -(W_i M^-1 F + gamma_i) / (W_i M^-1 W_i^T),   q'' = M^-1 (F + W_i^T N).

    The point stays closed while N >= 0 (unilateral contact).  Returns (q'', N)."""
    W = rod_normal_jacobian(q, d_i)[0]
    Minv = 1.0 / np.array([rod.m, rod.m, rod.J])
    F = rod.applied_force()
    gamma = rod_normal_velocity_product(q, qd, d_i)[0]
    N = -(W @ (Minv * F) + gamma) / (W @ (Minv * W))
    return Minv * (F + W * N), N


def _initial_configuration(rod: Rod, h0: float, theta0: float, x0: float) -> np.ndarray:
    """q = (x, y, theta) with the end xi = 0 at (x0, h0) and the axis at theta0."""
    return np.array([x0 + 0.5 * rod.L * math.cos(theta0), h0 + 0.5 * rod.L * math.sin(theta0), theta0])


def _flight(rod: Rod, q, qd, s):
    """Closed-form flight after s seconds: parabola of the centre, constant rotation."""
    s = np.asarray(s, float)
    x = q[0] + qd[0] * s
    y = q[1] + qd[1] * s - 0.5 * rod.g0 * s**2
    th = q[2] + qd[2] * s
    return (np.array([x, y, th]),
            np.array([np.full_like(s, qd[0]), qd[1] - rod.g0 * s, np.full_like(s, qd[2])]))


def simulate_rigid_rod(rod: Rod, h0: float, theta0: float, t_end: float, e: float = 0.0,
                       fractions=(0.0, 1.0), x0: float = 0.0, dt_out: float = 1e-3,
                       rtol: float = 1e-12, atol: float = 1e-13, gap_tol: float = 1e-9,
                       vel_tol: float = 1e-8, max_impacts: int = 200) -> RigidRodRun:
    """Event-driven rigid rod dropped at rest with its end xi = 0 at (x0, h0) (m) and angle theta0
    (rad); frictionless ground y <= 0, Newton's restitution e at the contact points `fractions`.

    Phases (the event-driven scheme of Pfeiffer and Glocker):
      * flight: x = x0 + x' s, y = y0 + y' s - g0 s^2/2, theta = theta0 + theta' s (closed
        form); the next landing is the first zero of a gap y + d_i sin theta, bracketed on a grid
        of 1e-4 s and refined with Brent's method;
      * impact: every point at zero gap (|g| <= gap_tol) and not separating (v_n <= vel_tol),
        with the jump of :func:`newton_impact` (e for approaching points, 0 for closed ones);
      * contact: for the points at zero gap and zero normal velocity the normal forces solve the
        LCP  a_n = W M^-1 F + gamma + G N >= 0, N >= 0, N^T a_n = 0.  One active point: the rod
        pivots and slides on it (:func:`rod_pivot_acceleration`), integrated with DOP853 until N
        returns to 0 (separation) or another point lands; two or more active points lock y and
        theta: the rod is at rest (x' = 0) or slides flat at constant x' to t_end.
    Stops at rest, at t_end or after max_impacts impacts."""
    fractions = np.asarray(fractions, float)
    d = rod_offsets(rod, fractions)
    k = len(d)
    M = rod.mass_matrix()
    Minv = 1.0 / np.diag(M)
    F = rod.applied_force()
    q = _initial_configuration(rod, h0, theta0, x0)
    if rod_gaps(q, d).min() < 0.0:
        raise ValueError(f"simulate_rigid_rod: h0 = {h0} m, theta0 = {theta0} rad put a contact "
                         f"point {-rod_gaps(q, d).min():.3g} m below the ground; "
                         "need h0 + L min(0, sin theta0) >= 0")
    qd = np.zeros(3)
    t = 0.0
    ts, qs, qds, phases = [t], [q.copy()], [qd.copy()], ["flight"]
    impacts: list[RodImpact] = []
    t_rest, drift, message = None, 0.0, "reached t_end"
    n_force_tol = 1e-9 * rod.m * rod.g0

    def record(grid, Q, QD, label):
        for j, tt in enumerate(grid):
            ts.append(float(tt))
            qs.append(Q[:, j].copy())
            qds.append(QD[:, j].copy())
            phases.append(label)

    def out_grid(t_a, t_b):
        g = np.arange(math.floor(t_a / dt_out) + 1, math.ceil(t_b / dt_out)) * dt_out
        return g[(g > t_a) & (g < t_b)]

    while t < t_end:
        gaps = rod_gaps(q, d)
        W = rod_normal_jacobian(q, d)
        v_n = W @ qd
        near = np.abs(gaps) <= gap_tol
        approaching = near & (v_n < -vel_tol)
        if approaching.any():
            if len(impacts) >= max_impacts:
                message = f"stopped after max_impacts = {max_impacts} impacts"
                break
            S = np.flatnonzero(near & (v_n <= vel_tol))
            e_S = np.where(v_n[S] < -vel_tol, e, 0.0)
            jump = newton_impact(M, W[S], qd, e_S)
            impacts.append(RodImpact(t, tuple(int(i) for i in S), jump.impulses, qd.copy(),
                                     jump.qd_plus.copy(), jump.v_minus, jump.v_plus, -jump.dT, q.copy()))
            qd = jump.qd_plus
            record([t], q[:, None], qd[:, None], "impact")
            continue

        # closed points: normal forces from the contact LCP in the accelerations
        C = np.flatnonzero(near & (np.abs(v_n) <= vel_tol))
        active = np.array([], int)
        if C.size:
            Wc = W[C]
            a_free = Wc @ (Minv * F) + rod_normal_velocity_product(q, qd, d[C])
            Gc = Wc @ (Minv[:, None] * Wc.T)
            N, _, _ = solve_lcp(Gc, a_free)
            active = C[N > n_force_tol]
        if active.size >= 2 and np.linalg.matrix_rank(W[active][:, 1:]) == 2:
            # y and theta locked by two distinct points: rest, or a frictionless flat slide
            qd[1:] = 0.0
            label = "rest" if abs(qd[0]) <= vel_tol else "slide"
            if label == "rest":
                t_rest = t
                message = "at rest"
            grid = np.append(out_grid(t, t_end), t_end)
            Q = np.tile(q[:, None], len(grid))
            Q[0] += qd[0] * (grid - t)
            record(grid, Q, np.tile(qd[:, None], len(grid)), label)
            break
        if active.size >= 1:
            i = int(active[0])
            others = [j for j in range(k) if j != i]

            def rhs(t_, y_):
                qdd, _ = rod_pivot_acceleration(rod, y_[:3], y_[3:], d[i])
                return np.concatenate((y_[3:], qdd))

            def separation(t_, y_):
                return rod_pivot_acceleration(rod, y_[:3], y_[3:], d[i])[1]
            separation.terminal, separation.direction = True, -1.0
            events = [separation]
            for j in others:
                def landing(t_, y_, j=j):
                    return y_[1] + d[j] * math.sin(y_[2])
                landing.terminal, landing.direction = True, -1.0
                events.append(landing)
            sol = solve_ivp(rhs, (t, t_end), np.concatenate((q, qd)), method="DOP853",
                            rtol=rtol, atol=atol, events=events, dense_output=True)
            t_new = sol.t[-1]
            grid = out_grid(t, t_new)
            if grid.size:
                Y = sol.sol(grid)
                record(grid, Y[:3], Y[3:], f"pivot {i}")
                drift = max(drift, np.abs(Y[1] + d[i] * np.sin(Y[2])).max())
            t, q, qd = t_new, sol.y[:3, -1].copy(), sol.y[3:, -1].copy()
            drift = max(drift, abs(rod_gaps(q, d[i:i + 1])[0]))
            record([t], q[:, None], qd[:, None], f"pivot {i}")
            continue

        # flight to the first landing of a point that is not separating from the ground
        s_end = t_end - t
        grid_s = np.linspace(0.0, s_end, max(2, int(math.ceil(s_end / 1e-4)) + 1))
        Qs, _ = _flight(rod, q, qd, grid_s)
        G_grid = Qs[1][None, :] + d[:, None] * np.sin(Qs[2])[None, :]
        s_hit, who = None, None
        for j in range(k):
            g_j = G_grid[j]
            cross = np.flatnonzero((g_j[:-1] > 0.0) & (g_j[1:] <= 0.0))
            if cross.size:
                a = grid_s[cross[0]]
                b = grid_s[cross[0] + 1]
                def gap_j(s, j=j):
                    x_, y_, th_ = _flight(rod, q, qd, s)[0]
                    return y_ + d[j] * math.sin(th_)
                s_j = b if gap_j(b) == 0.0 else brentq(gap_j, a, b, xtol=1e-16,
                                                         rtol=4 * np.finfo(float).eps)
                if s_hit is None or s_j < s_hit:
                    s_hit, who = s_j, j
        s_stop = s_end if s_hit is None else s_hit
        grid = out_grid(t, t + s_stop)
        if grid.size:
            Q, QD = _flight(rod, q, qd, grid - t)
            record(grid, Q, QD, "flight")
        Q, QD = _flight(rod, q, qd, s_stop)
        t, q, qd = t + s_stop, Q, QD
        record([t], q[:, None], qd[:, None], "flight")
        if s_hit is None:
            break
    return RigidRodRun(np.array(ts), np.array(qs), np.array(qds), phases, impacts, fractions,
                       t_rest, drift, message)


# ---------------------------------------------------------------------- penalty rigid rod
@dataclass
class PenaltyRodRun:
    """A run of :func:`simulate_penalty_rod`: samples t (s), q, qd, the normal forces N (n x k, N)
    and the contact intervals as (point, t_on, t_off, qd_on, qd_off) with the generalised
    velocities (m/s, m/s, rad/s) at contact onset and release (t_off = None if not released)."""
    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    N: np.ndarray
    contacts: list
    message: str


def penalty_normal_forces(q, qd, d, stiffness: float, exponent: float = 1.0,
                          damping: float = 0.0, in_contact=None) -> np.ndarray:
    """Penalty normal forces N_i (N) at points with penetration delta_i = -g_i > 0:

        N_i = K delta_i^p (1 + chi delta_i'),   clipped at 0 (the ground cannot pull),

    with K in N/m^p (p = 1: linear spring; p = 3/2: Hertz) and chi (s/m) the Hunt-Crossley
    damping coefficient (chi = 3 (1 - e)/(2 v-) gives a restitution close to e for small
    losses; Hunt and Crossley 1975).  in_contact (bool per point) selects the points whose law
    is on; by default those with delta_i > 0.  The clip at 0 is not an event of the simulation:
    with damping the force can reach 0 shortly before the gap does, a kink inside a step."""
    delta = np.maximum(-rod_gaps(q, d), 0.0)
    if in_contact is not None:
        delta = np.where(in_contact, delta, 0.0)
    delta_dot = -(rod_normal_jacobian(q, d) @ qd)
    N = stiffness * delta**exponent * (1.0 + damping * delta_dot)
    return np.maximum(N, 0.0)


def simulate_penalty_rod(rod: Rod, h0: float, theta0: float, t_end: float, stiffness: float,
                         exponent: float = 1.0, damping: float = 0.0, fractions=(0.0, 1.0),
                         x0: float = 0.0, rtol: float = 1e-10, atol: float = 1e-12,
                         dt_out: float = 1e-3) -> PenaltyRodRun:
    """The rod of :func:`simulate_rigid_rod` with penalty forces instead of impacts:

        M q'' = F + sum_i W_i^T N_i   (N_i from :func:`penalty_normal_forces`),

    integrated with DOP853, split at every zero of a gap (terminal events) so that a step never
    crosses the onset or release of a contact; in a segment with contact the step is limited to
    1/40 of pi sqrt(m/(4 K)) (a quarter of the rod's mass is the smallest effective mass at an
    end), for the linear law, or of the Hertz duration at 1 m/s for p > 1."""
    fractions = np.asarray(fractions, float)
    d = rod_offsets(rod, fractions)
    k = len(d)
    Minv = 1.0 / np.diag(rod.mass_matrix())
    F = rod.applied_force()
    q = _initial_configuration(rod, h0, theta0, x0)
    y = np.concatenate((q, np.zeros(3)))
    if exponent == 1.0:
        t_c = math.pi * math.sqrt(rod.m / (4.0 * stiffness))
    else:
        t_c = hertz_contact_time(rod.m / 4.0, stiffness, 1.0)
    t = 0.0
    ts, ys, Ns = [], [], []
    contacts: list = []
    open_contact = {}
    closed = rod_gaps(q, d) < 0.0
    for j in np.flatnonzero(closed):
        open_contact[j] = len(contacts)
        contacts.append([int(j), t, None, y[3:].copy(), None])
    message = "reached t_end"

    def forces(y_, closed_):
        return penalty_normal_forces(y_[:3], y_[3:], d, stiffness, exponent, damping, closed_)

    while t < t_end:
        closed_now = closed.copy()

        def rhs(t_, y_):
            N = forces(y_, closed_now)
            W = rod_normal_jacobian(y_[:3], d)
            return np.concatenate((y_[3:], Minv * (F + W.T @ N)))

        events = []
        for j in range(k):
            def ev(t_, y_, j=j):
                return y_[1] + d[j] * math.sin(y_[2])
            ev.terminal, ev.direction = True, (1.0 if closed_now[j] else -1.0)
            events.append(ev)
        sol = solve_ivp(rhs, (t, t_end), y, method="DOP853", rtol=rtol, atol=atol, events=events,
                        dense_output=True, max_step=t_c / 40.0 if closed_now.any() else np.inf)
        if sol.status < 0:
            message = sol.message
            break
        t_new = sol.t[-1]
        grid = np.arange(math.floor(t / dt_out) + 1, math.ceil(t_new / dt_out)) * dt_out
        grid = np.concatenate(([t], grid[(grid > t) & (grid < t_new)]))
        Y = sol.sol(grid)
        for j in range(Y.shape[1]):
            ts.append(grid[j])
            ys.append(Y[:, j])
            Ns.append(forces(Y[:, j], closed_now))
        t, y = t_new, sol.y[:, -1].copy()
        if sol.status == 1:
            for j in range(k):
                if sol.t_events[j].size:
                    closed[j] = not closed[j]
                    if closed[j]:
                        open_contact[j] = len(contacts)
                        contacts.append([j, t, None, y[3:].copy(), None])
                    else:
                        c = contacts[open_contact.pop(j)]
                        c[2], c[4] = t, y[3:].copy()
    ts.append(t)
    ys.append(y)
    Ns.append(forces(y, closed))
    Y = np.array(ys)
    return PenaltyRodRun(np.array(ts), Y[:, :3], Y[:, 3:], np.array(Ns),
                         [tuple(c) for c in contacts], message)
