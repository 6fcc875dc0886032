"""The tt (Triton IR) and ttg (Triton GPU IR) dialects, declared as data and loaded as IRDL."""
