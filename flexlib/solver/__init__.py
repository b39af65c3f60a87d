"""The integrator of every run: a compiled DOP853 around a given right-hand side, and its algebra.

It runs whatever right-hand side it is given (and scipy's methods) and knows no body, contact or
case; ``linalg`` holds the dense linear algebra of the compiled code."""
