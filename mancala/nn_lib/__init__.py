"""Network code: base class, input encoders, training, a numpy forward pass."""
