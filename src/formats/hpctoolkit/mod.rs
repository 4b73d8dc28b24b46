//! Reader placeholder: replaced by the format's reader (see the issue that owns it).

use crate::error::{Error, Result};
use crate::formats::DatasetGroup;
use crate::model::Dataset;

pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    Err(Error::unsupported(
        &group.root,
        None,
        format!("{} reader not written yet", group.kind.as_str()),
    ))
}

pub mod writer;
