"""Networks: base class, zoo, encoders, metadata and the numpy forward pass."""
