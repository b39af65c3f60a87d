"""Studies built on runs: parameter sweeps, the paper's claims and figures, accuracy against cost, peers."""
