//! `wheelwright recube`: ReCUBE datasets on this machine, a command a file (`import`, `prepare` and `prompt`, `verify`, `test`); `sandboxes` is what `verify` and `test` share.

pub(super) mod import;
pub(super) mod prepare;
mod sandboxes;
pub(super) mod test;
pub(super) mod verify;
