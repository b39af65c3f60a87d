"""The integrator of every run: a compiled DOP853 around whatever right-hand side it is given (and
scipy's methods), and the dense linear algebra of the compiled code.  It knows no body, contact or case."""
