//! Unit tests of the reference backend's machinery (the semantics suite covers the ops).
