"""JIT fallback: what Graph mode does when host code needs a traced tensor's value."""
