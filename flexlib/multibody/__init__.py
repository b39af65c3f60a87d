"""Flexible multibody systems: bodies, joints, obstacles and contact points as data.

Their equations come from the velocity transformation, their runs from an event-driven
simulation."""
from .system import (Body, ContactLaws, ContactPoint, FreeJoint, GroundHinge, HalfPlane, Hinge,
                     System)
from .simulate import SystemSimulationError, SystemSimulator
from .result import SystemResult
from .models import MODELS, laws_for
from .laws import FrictionLaw

__all__ = ["Body", "ContactLaws", "ContactPoint", "FreeJoint", "GroundHinge", "HalfPlane", "Hinge",
           "System", "SystemSimulator", "SystemSimulationError", "SystemResult", "MODELS", "laws_for",
           "FrictionLaw"]
