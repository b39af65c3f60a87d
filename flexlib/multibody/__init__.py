"""Flexible multibody systems: bodies, joints, obstacles and contact points as data, their
equations by the velocity transformation, and their event-driven simulation."""
from .system import (Body, ContactLaws, ContactPoint, FreeJoint, GroundHinge, HalfPlane, Hinge,
                     System)
from .simulate import SystemSimulationError, SystemSimulator
from .result import SystemResult
from .models import MODELS, laws_for
from .laws import FrictionLaw

__all__ = ["Body", "ContactLaws", "ContactPoint", "FreeJoint", "GroundHinge", "HalfPlane", "Hinge",
           "System", "SystemSimulator", "SystemSimulationError", "SystemResult", "MODELS", "laws_for",
           "FrictionLaw"]
