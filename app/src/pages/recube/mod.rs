//! ReCUBE's pages: a dataset and its instances, an instance (its masked target, tests, views and neighbourhood), and a run.

pub(crate) mod dataset;
pub(crate) mod instance;
pub(crate) mod run;
