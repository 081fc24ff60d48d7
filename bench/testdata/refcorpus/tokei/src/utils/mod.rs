#[macro_use]
mod macros;
pub(crate) mod ext;
pub mod fs;
