"""The library's physics (compiled, the code the simulator runs) against the NumPy statements of
the same formulas in tests/reference.py."""
import numpy as np
import pytest

from flexlib.bodies.beam import BeamModel
from flexlib.params import BeamParams
from reference import mass_and_forces as reference_mass_and_forces


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_mass_and_forces_agree_with_the_numpy_closed_form(N):
    m = BeamModel(BeamParams(n_modes=N))
    rng = np.random.default_rng(30 + N)
    for tau in (None, 0.0, 2.5):
        for _ in range(5):
            q = np.concatenate(([rng.uniform(-0.5, 1.5)], 1e-3 * rng.standard_normal(N)))
            qd = np.concatenate(([rng.uniform(-5, 5)], 1e-1 * rng.standard_normal(N)))
            M, Q = m.mass_and_forces(q, qd, tau)
            Mr, Qr = reference_mass_and_forces(m, q, qd, tau)
            np.testing.assert_allclose(M, Mr, rtol=1e-12, atol=1e-14 * np.abs(Mr).max())
            np.testing.assert_allclose(Q, Qr, rtol=1e-11, atol=1e-12 * np.abs(Qr).max())
            np.testing.assert_allclose(M, M.T, rtol=1e-14, atol=1e-16 * np.abs(M).max())
