//! The guidance bundle `rea` ships and its search: [`bundle`] (sources, admission, sections),
//! [`locator`] (bundle-bound section locators) and [`search`] (search and read).

pub mod bundle;
pub mod locator;
pub mod search;

pub use bundle::{BundleSource, GuidanceBundle};
pub use search::{SearchRequest, read, search};
