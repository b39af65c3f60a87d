"""The event-driven simulator of the paper's cases: right-hand side, integrator, phases, histories."""
