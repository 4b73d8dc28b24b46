//! XML-era HPCToolkit databases (experiment.xml v2.x with .metric-db, .mdb, .mt and .hpctrace side
//! files, written from about 2012 to 2022): recognised and probed for the summary; their full
//! reader is not written yet.

pub mod probe;

use crate::error::{Error, Result};
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe, EXPERIMENT_XML};
use crate::model::Dataset;

/// The format id of XML-era databases.
pub const ID: &str = "hpctoolkit-xml";

/// XML-era databases in the registry ([`crate::formats::FORMATS`]).
pub struct HpcToolkitXml;
pub static HPCTOOLKIT_XML: HpcToolkitXml = HpcToolkitXml;

impl Format for HpcToolkitXml {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "HPCToolkit XML database"
    }
    /// experiment.xml is shared with prof2 ([`EXPERIMENT_XML`]); the side files are hpcrun's
    /// traces or kinds no reader uses yet.
    fn detect(&self, _path: &str, _name: &str, _head: &[u8]) -> Option<FileKind> {
        None
    }
    /// A folder with experiment.xml and no prof2 binary files (prof2 is asked first). XML-era
    /// databases keep .hpctrace files (hpcrun's trace format) beside experiment.xml.
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| *k == EXPERIMENT_XML)
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        Err(Error::unsupported(
            &group.root,
            None,
            "XML-era HPCToolkit databases (experiment.xml v2) are not read yet",
        ))
    }
}
