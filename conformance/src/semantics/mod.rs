//! Backend-neutral semantics test cases.
