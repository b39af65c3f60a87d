"""Contact at the beam's tip: gap and slip, the normal laws (constraint, penalty), the impact jump, friction and the mode selection."""
