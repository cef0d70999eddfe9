//! ReCUBE: empty until its issue brings its dataset, scorer and metrics.
